//! A run's tool-name table: the names its records refer to by index. All names live in one
//! exactly sized allocation, each prefixed by its byte length (LEB128), so a run with a handful
//! of tools pays one small heap block for them instead of one per name plus a vector of `String`s.

/// Tool names, in index order, packed into one buffer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolTable {
    packed: Box<[u8]>,
    len: u32,
}

impl ToolTable {
    /// A table holding `names` in order.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str> + Clone) -> ToolTable {
        let size = names
            .clone()
            .into_iter()
            .map(|name| prefix_len(name.len()) + name.len())
            .sum();
        let mut packed = Vec::with_capacity(size);
        let mut len = 0u32;
        for name in names {
            append(&mut packed, name);
            len = len.saturating_add(1);
        }
        ToolTable {
            packed: packed.into_boxed_slice(),
            len,
        }
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// The names in index order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries()
            .map(|bytes| std::str::from_utf8(bytes).unwrap_or(""))
    }

    pub fn get(&self, index: usize) -> Option<&str> {
        self.iter().nth(index)
    }

    pub fn position(&self, name: &str) -> Option<usize> {
        self.entries().position(|bytes| bytes == name.as_bytes())
    }

    /// Appends `name`, reallocating the buffer to its exact new size (new tools are rare).
    pub fn push(&mut self, name: &str) {
        let mut packed =
            Vec::with_capacity(self.packed.len() + prefix_len(name.len()) + name.len());
        packed.extend_from_slice(&self.packed);
        append(&mut packed, name);
        self.packed = packed.into_boxed_slice();
        self.len = self.len.saturating_add(1);
    }

    /// Each name's bytes, in index order (always valid UTF-8: only `&str`s are appended).
    fn entries(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut rest: &[u8] = &self.packed;
        std::iter::from_fn(move || {
            let mut size = 0usize;
            let mut shift = 0u32;
            loop {
                let (&byte, tail) = rest.split_first()?;
                rest = tail;
                size |= usize::from(byte & 0x7f).checked_shl(shift)?;
                if byte & 0x80 == 0 {
                    break;
                }
                shift += 7;
            }
            let (name, tail) = rest.split_at_checked(size)?;
            rest = tail;
            Some(name)
        })
    }
}

/// Bytes of the LEB128 length prefix of a name of `size` bytes.
fn prefix_len(size: usize) -> usize {
    let mut n = 1;
    let mut rest = size >> 7;
    while rest != 0 {
        n += 1;
        rest >>= 7;
    }
    n
}

fn append(packed: &mut Vec<u8>, name: &str) {
    let mut size = name.len();
    while size >= 0x80 {
        packed.push((size & 0x7f) as u8 | 0x80);
        size >>= 7;
    }
    packed.push(size as u8);
    packed.extend_from_slice(name.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_one_exact_buffer() {
        let long = "x".repeat(300);
        let mut table = ToolTable::from_names(["read_file", "", "ünïcode\0name"]);
        table.push(&long);
        table.push("list_dir");
        let names: Vec<&str> = table.iter().collect();
        assert_eq!(
            names,
            ["read_file", "", "ünïcode\0name", long.as_str(), "list_dir"]
        );
        assert_eq!(table.len(), 5);
        assert_eq!(table.get(3), Some(long.as_str()));
        assert_eq!(table.get(5), None);
        assert_eq!(table.position("list_dir"), Some(4));
        assert_eq!(table.position(""), Some(1));
        assert_eq!(table.position("read"), None);
        // Four 1-byte prefixes, a 2-byte one for the 300-byte name, then the names' bytes.
        assert_eq!(table.packed.len(), 4 + 2 + 9 + 14 + 300 + 8);
    }
}
