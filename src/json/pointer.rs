//! RFC 6901 JSON pointers, as a tool's `ignore` list names result members
//! (`"/details/version"`): resolved as `serde_json::Value::pointer_mut` resolves them, and a copy
//! of a value without the members they name.

use serde_json::Value;

/// A copy of `value` without the members at `pointers` (RFC 6901; missing paths are ignored).
pub fn without_pointers(value: &Value, pointers: &[String]) -> Value {
    let mut copy = value.clone();
    for pointer in pointers {
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            continue;
        };
        let key = unescape_pointer_token(last);
        match pointer_target(&mut copy, parent) {
            Some(Value::Object(map)) => {
                map.remove(&key);
            }
            Some(Value::Array(items)) => {
                if let Ok(index) = key.parse::<usize>() {
                    if index < items.len() {
                        items.remove(index);
                    }
                }
            }
            _ => {}
        }
    }
    copy
}

/// The value an RFC 6901 JSON pointer refers to (as `serde_json::Value::pointer_mut` resolves it:
/// array indices are digits without a sign or leading zeros).
fn pointer_target<'v>(value: &'v mut Value, pointer: &str) -> Option<&'v mut Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let tokens = pointer.strip_prefix('/')?;
    let mut target = value;
    for token in tokens.split('/') {
        let token = unescape_pointer_token(token);
        target = match target {
            Value::Object(map) => map.get_mut(&token)?,
            Value::Array(items) => {
                let plain = !token.starts_with('+') && (token == "0" || !token.starts_with('0'));
                items.get_mut(token.parse::<usize>().ok().filter(|_| plain)?)?
            }
            _ => return None,
        };
    }
    Some(target)
}

/// An RFC 6901 reference token unescaped: `~1` is `/`, `~0` is `~`.
fn unescape_pointer_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('~', Some('1')) => {
                out.push('/');
                chars.next();
            }
            ('~', Some('0')) => {
                out.push('~');
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_resolve_as_serde_json_resolves_them() {
        let value = json!({
            "a": {"b/c": [10, {"~k": 1, "": 2}], "0": "zero", "": {"": 3}},
            "list": [1, 2, 3, [4, 5]],
            "m~0n": true
        });
        for pointer in [
            "",
            "/",
            "//",
            "/a",
            "/a/b~1c",
            "/a/b~1c/1/~0k",
            "/a/b~1c/1/",
            "/a/0",
            "/a//",
            "/list/0",
            "/list/3/1",
            "/list/01",
            "/list/+1",
            "/list/4",
            "/list/-",
            "/m~00n",
            "/m~0n",
            "a",
            "/a/b~1c/00",
            "/list/3/1/x",
            "/~1",
            "/~01",
        ] {
            let (mut ours, mut theirs) = (value.clone(), value.clone());
            assert_eq!(
                pointer_target(&mut ours, pointer).map(|v| v.clone()),
                theirs.pointer_mut(pointer).map(|v| v.clone()),
                "{pointer}"
            );
        }
        for token in ["~01", "~10", "~~1", "~0~1", "a~", "~", "~2", "plain"] {
            assert_eq!(
                unescape_pointer_token(token),
                token.replace("~1", "/").replace("~0", "~"),
                "{token}"
            );
        }
    }
}
