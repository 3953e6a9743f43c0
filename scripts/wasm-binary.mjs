// Reading the WebAssembly binary format, as much as scripts/target-features.mjs and the package's
// module test need: LEB128 numbers, the sections, and which exported functions return what.

/** Unsigned LEB128 at `at`: [value, position after it]. */
export function readLeb(bytes, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    if (at >= bytes.length) throw new Error("truncated LEB128 in .wasm");
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

/** `value` as unsigned LEB128 bytes. */
export function leb(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/** The module's sections in order: {id, start (of the section), body (its first byte), end}. */
export function sections(bytes) {
  const out = [];
  let pos = 8;
  while (pos < bytes.length) {
    const [size, body] = readLeb(bytes, pos + 1);
    out.push({ id: bytes[pos], start: pos, body, end: body + size });
    pos = body + size;
  }
  return out;
}

/** A name (LEB128 length + UTF-8) at `at`: [name, position after it]. */
function readName(bytes, at) {
  const [length, start] = readLeb(bytes, at);
  return [new TextDecoder().decode(bytes.subarray(start, start + length)), start + length];
}

/** A custom section's name, or undefined for other sections. */
export function customName(bytes, section) {
  return section.id === 0 ? readName(bytes, section.body)[0] : undefined;
}

const TYPE = 1;
const IMPORT = 2;
const FUNCTION = 3;
const EXPORT = 7;

/** Skips an import's description (after its kind byte) from `at`. */
function skipImportDescription(bytes, kind, at) {
  switch (kind) {
    case 0: // function: type index
      return readLeb(bytes, at)[1];
    case 1: {
      // table: reference type, limits
      const flags = bytes[at + 1];
      let pos = readLeb(bytes, at + 2)[1];
      if (flags & 1) pos = readLeb(bytes, pos)[1];
      return pos;
    }
    case 2: {
      // memory: limits
      const flags = bytes[at];
      let pos = readLeb(bytes, at + 1)[1];
      if (flags & 1) pos = readLeb(bytes, pos)[1];
      return pos;
    }
    case 3: // global: value type, mutability
      return at + 2;
    default:
      throw new Error(`unknown import kind ${kind}`);
  }
}

/** {name: number of results} of every exported function of a module (`bytes`). */
export function exportedResultCounts(bytes) {
  const resultCounts = [];
  const functionTypes = [];
  const exports = {};
  for (const section of sections(bytes)) {
    let [count, pos] = section.id === TYPE || section.id === IMPORT || section.id === FUNCTION || section.id === EXPORT ? readLeb(bytes, section.body) : [0, 0];
    for (let i = 0; i < count; i++) {
      if (section.id === TYPE) {
        if (bytes[pos] !== 0x60) throw new Error("unsupported type form in .wasm");
        const [params, afterParams] = readLeb(bytes, pos + 1);
        const [results, afterResults] = readLeb(bytes, afterParams + params);
        resultCounts.push(results);
        pos = afterResults + results;
      } else if (section.id === IMPORT) {
        pos = readName(bytes, readName(bytes, pos)[1])[1];
        const kind = bytes[pos];
        if (kind === 0) functionTypes.push(readLeb(bytes, pos + 1)[0]);
        pos = skipImportDescription(bytes, kind, pos + 1);
      } else if (section.id === FUNCTION) {
        const [type, next] = readLeb(bytes, pos);
        functionTypes.push(type);
        pos = next;
      } else {
        const [name, afterName] = readName(bytes, pos);
        const kind = bytes[afterName];
        const [index, next] = readLeb(bytes, afterName + 1);
        if (kind === 0) exports[name] = index;
        pos = next;
      }
    }
  }
  return Object.fromEntries(Object.entries(exports).map(([name, index]) => [name, resultCounts[functionTypes[index]]]));
}
