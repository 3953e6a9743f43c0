/**
 * Serialises calls and outcomes to the JSON text the core parses; a failure names its top-level
 * field. Value rules: BigInt becomes its decimal string; an Error (anywhere) becomes
 * `{name, message}` without the stack; Date and other objects with `toJSON` use it; `undefined`, functions and symbols are dropped as JSON.stringify drops them.
 * Cyclic or otherwise unserialisable values give `invalid_record`, too-deep nesting `too_deep`.
 *
 * Where the runtime has a fast synchronous SHA-256 (node:crypto), text parts of a result longer
 * than the core's `maxScannedTextBytes()` are sent as `textSha256` digests instead of the text;
 * the core defines that this gives the same outcome digest, so verdicts do not change.
 */
import { LoopGuardError } from "./errors.js";

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export type TextHasher = (text: string) => string;

/** How large text parts are handed over: hashed by `hash` when longer than `above` UTF-8 bytes. */
export interface LargeTexts {
  hash: TextHasher;
  above: number;
}

function isError(value: object): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === "[object Error]";
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "object" && value !== null && isError(value)) {
    return { name: value.name, message: value.message };
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The outcome with its large text parts replaced by digests: a string result becomes the single
 * text part it stands for, long `{type: "text", text}` parts of `content` lose `text` and gain
 * `textSha256`. A UTF-16 length above the limit implies a UTF-8 length above it. Never mutates.
 */
export function hashLargeTexts(outcome: unknown, texts: LargeTexts): unknown {
  if (!isPlainObject(outcome)) return outcome;
  const result = outcome.result;
  if (typeof result === "string") {
    if (result.length <= texts.above) return outcome;
    return { ...outcome, result: { content: [{ type: "text", textSha256: texts.hash(result) }] } };
  }
  if (!isPlainObject(result) || !Array.isArray(result.content)) return outcome;
  let changed = false;
  const content = result.content.map((part: unknown) => {
    if (!isPlainObject(part) || part.type !== "text" || typeof part.text !== "string" || part.text.length <= texts.above) {
      return part;
    }
    changed = true;
    const { text, ...rest } = part;
    return { ...rest, textSha256: texts.hash(text as string) };
  });
  return changed ? { ...outcome, result: { ...result, content } } : outcome;
}

function stringifyField(value: unknown, field: string | null): string | undefined {
  try {
    return JSON.stringify(value, replacer) as string | undefined;
  } catch (error) {
    const what = field ?? "record";
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof RangeError) {
      // Engines report both exhausted recursion and an oversized output string as RangeError.
      const tooLarge = /string length/i.test(reason);
      return fail(tooLarge ? "too_large" : "too_deep", `${what} cannot be serialised: ${reason}`, field, error);
    }
    return fail("invalid_record", `${what} cannot be serialised to JSON: ${reason}`, field, error);
  }
}

function fail(code: "invalid_record" | "too_deep" | "too_large", message: string, field: string | null, cause: unknown): never {
  throw new LoopGuardError(code, message, field, cause);
}

/**
 * JSON text of a call or outcome record; the core rejects wrong shapes and unknown keys. One
 * stringify for the whole record; only when it fails are the fields stringified one by one to name
 * the failing field.
 */
export function encodeRecord(record: unknown): string {
  try {
    return (JSON.stringify(record, replacer) as string | undefined) ?? "null";
  } catch {
    if (typeof record === "object" && record !== null && !Array.isArray(record)) {
      for (const key of Object.keys(record)) stringifyField((record as Record<string, unknown>)[key], key);
    }
    return stringifyField(record, null) ?? "null";
  }
}
