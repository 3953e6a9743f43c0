/**
 * Where JSON text first goes wrong: engines do not always say (V8 reports "Unexpected token 'x',
 * "…" is not valid JSON" without a position), and a reader must name the line. Run only after
 * JSON.parse has failed; it validates without building values and without recursion.
 */

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const LITERAL = /true|false|null/y;

/** The UTF-16 offset of the first syntax error in `text` (its length for a premature end), or -1. */
export function syntaxErrorOffset(text: string): number {
  // Each open container: "{" or "[" plus what it expects next.
  const stack: { kind: "{" | "["; expect: "first" | "key" | "colon" | "value" | "comma" }[] = [];
  let i = 0;
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
  };
  const token = (pattern: RegExp): boolean => {
    pattern.lastIndex = i;
    if (!pattern.test(text)) return false;
    i = pattern.lastIndex;
    return true;
  };
  /** Reads one value start; containers are pushed. False on error. */
  const value = (): boolean => {
    const c = text[i];
    if (c === "{" || c === "[") {
      stack.push({ kind: c, expect: "first" });
      i++;
      return true;
    }
    if (c === '"') return token(STRING);
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return token(NUMBER);
    return token(LITERAL);
  };
  skip();
  if (i >= text.length) return i;
  if (!value()) return i;
  for (;;) {
    skip();
    const top = stack[stack.length - 1];
    if (top === undefined) return i < text.length ? i : -1;
    if (i >= text.length) return i;
    const c = text[i];
    const close = top.kind === "{" ? "}" : "]";
    if ((top.expect === "first" || top.expect === "comma") && c === close) {
      stack.pop();
      i++;
      const parent = stack[stack.length - 1];
      if (parent) parent.expect = "comma";
      continue;
    }
    if (top.expect === "comma") {
      if (c !== ",") return i;
      i++;
      skip();
      top.expect = top.kind === "{" ? "key" : "value";
      if (top.kind === "[") {
        if (!value()) return i;
        if (stack[stack.length - 1] === top) top.expect = "comma";
      }
      continue;
    }
    if (top.kind === "{" && (top.expect === "first" || top.expect === "key")) {
      if (c !== '"' || !token(STRING)) return i;
      top.expect = "colon";
      continue;
    }
    if (top.expect === "colon") {
      if (c !== ":") return i;
      i++;
      skip();
      top.expect = "value";
    }
    // An array's first value, or an object member's value.
    top.expect = "comma";
    if (!value()) return i;
  }
}
