/**
 * Serialises calls and outcomes to the JSON text the core parses; a failure names its top-level
 * field. Value rules: BigInt becomes its decimal string; an Error (anywhere) becomes
 * `{name, message}` (with its `status`, `code` and `Retry-After` header when it has them, see
 * `errorValue`) without the stack; Date and other objects with `toJSON` use it; `undefined`, functions and symbols are dropped as JSON.stringify drops them.
 * Cyclic or otherwise unserialisable values give `invalid_record`, too-deep nesting `too_deep`.
 *
 * Text parts of a result longer than the core's `maxScannedTextBytes()` do not go through
 * JSON.stringify: where the runtime has a fast synchronous SHA-256 (node:crypto) they are sent as
 * `textSha256` digests, elsewhere the first one is passed beside the JSON as side text (hashed in
 * wasm, never escaped or parsed). The core defines that both give the same outcome digest as the
 * text inline, so verdicts do not change. A text holding a lone UTF-16 surrogate always goes inline:
 * JSON.stringify writes the surrogate as an escape that the core reads by its own rule, where
 * hashing or encoding the string here would replace it by U+FFFD and lose it.
 */
import { LoopGuardError } from "./errors.js";

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export type TextHasher = (text: string) => string;

/** Writes the 32-byte SHA-256 of `bytes` into `out` at `at`. */
export type BytesHasher = (bytes: Uint8Array, out: Uint8Array, at: number) => void;

/** How text parts longer than `above` UTF-8 bytes are handed over: hashed by `hash`, else as side text. */
export interface LargeTexts {
  hash: TextHasher | undefined;
  above: number;
}

export function isError(value: object): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === "[object Error]";
}

/** What an HTTP client's or the runtime's error may carry beside its message. */
interface ErrorExtras {
  status?: unknown;
  statusCode?: unknown;
  code?: unknown;
  cause?: unknown;
  headers?: unknown;
}

/**
 * An Error as data: `{name, message}`, plus what says whether waiting cures it where the error
 * carries it: `status` (an HTTP client's `status` or `statusCode`), `code` (its own, else its
 * `cause`'s: `fetch failed` caused by `ECONNRESET`) and a `Retry-After` header from `headers` (a
 * `Headers` or a plain object). Never the stack, so two throws of one failure are one outcome.
 */
export function errorValue(error: Error): Record<string, unknown> {
  const value: Record<string, unknown> = { name: error.name, message: error.message };
  try {
    const extras = error as ErrorExtras;
    const status = typeof extras.status === "number" ? extras.status : extras.statusCode;
    if (typeof status === "number") value.status = status;
    const cause = extras.cause as ErrorExtras | undefined;
    const code = extras.code ?? (typeof cause === "object" && cause !== null ? cause.code : undefined);
    if (typeof code === "string" || typeof code === "number") value.code = code;
    const retryAfter = headerValue(extras.headers, "retry-after");
    if (retryAfter !== undefined) value.headers = { "retry-after": retryAfter };
  } catch {
    // A getter that throws: the error is its name and message.
  }
  return value;
}

/** A header of a `Headers` or a plain object, by its lower-case name, when it is a string. */
function headerValue(headers: unknown, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const found =
    typeof (headers as { get?: unknown }).get === "function"
      ? (headers as { get(name: string): unknown }).get(name)
      : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof found === "string" ? found : undefined;
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "object" && value !== null && isError(value)) return errorValue(value);
  return value;
}

/** Objects visited by `needsReplacer` before it gives up (and the replacer is used). */
const PLAIN_WALK_BUDGET = 2048;
/** Nesting `needsReplacer` walks before it gives up. */
const PLAIN_WALK_DEPTH = 64;
let walkBudget = 0;

/**
 * False when `value` holds only primitives, arrays and plain objects without `toJSON`: then
 * JSON.stringify without the replacer gives the same text, on V8's much faster path (a replacer
 * function costs microseconds per record). An Error, Date or class instance anywhere, or a value
 * too large (or too deep, or cyclic) to walk within the budget, says true. BigInts make the fast
 * stringify throw, which falls back to the replacer.
 */
function needsReplacer(value: unknown): boolean {
  walkBudget = PLAIN_WALK_BUDGET;
  return walkNeedsReplacer(value, 0);
}

function walkNeedsReplacer(item: unknown, depth: number): boolean {
  if (typeof item !== "object" || item === null) return false;
  if (--walkBudget < 0 || depth > PLAIN_WALK_DEPTH) return true;
  if (Array.isArray(item)) {
    for (let i = 0; i < item.length; i++) if (walkNeedsReplacer(item[i], depth + 1)) return true;
    return false;
  }
  const proto: unknown = Object.getPrototypeOf(item);
  if ((proto !== Object.prototype && proto !== null) || "toJSON" in item) return true;
  for (const key in item) if (walkNeedsReplacer((item as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/**
 * True when `text` holds no lone surrogate (every runtime the package supports has isWellFormed;
 * the regular expression only keeps older engines correct).
 */
export function isWellFormed(text: string): boolean {
  const check = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof check === "function" ? check.call(text) : !/[\uD800-\uDFFF]/.test(text);
}

/** An object whose prototype is Object.prototype or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The outcome with its large text parts replaced by digests: a string result becomes the single
 * text part it stands for, long `{type: "text", text}` parts of `content` lose `text` and gain
 * `textSha256`. A UTF-16 length above the limit implies a UTF-8 length above it. Never mutates.
 */
export function hashLargeTexts(outcome: unknown, texts: { hash: TextHasher; above: number }): unknown {
  if (!isPlainObject(outcome)) return outcome;
  const result = outcome.result;
  if (typeof result === "string") {
    if (!isLongText(result, texts.above)) return outcome;
    return { ...outcome, result: { content: [{ type: "text", textSha256: texts.hash(result) }] } };
  }
  if (!isPlainObject(result) || !Array.isArray(result.content)) return outcome;
  if (!result.content.some((part: unknown) => isLargeText(part, texts.above))) return outcome;
  const content = result.content.map((part: unknown) => {
    if (!isLargeText(part, texts.above)) return part;
    const { text, ...rest } = part;
    return { ...rest, textSha256: texts.hash(text) };
  });
  return { ...outcome, result: { ...result, content } };
}

/** A text that goes out of line: longer than `above` UTF-16 units, and without lone surrogates. */
export function isLongText(text: string, above: number): boolean {
  return text.length > above && isWellFormed(text);
}

/** A `{type: "text", text}` part whose text goes out of line (`isLongText`). */
function isLargeText(part: unknown, above: number): part is Record<string, unknown> & { text: string } {
  return isPlainObject(part) && part.type === "text" && typeof part.text === "string" && isLongText(part.text, above);
}

/**
 * The outcome with its first large text part taken out as side text: `[outcome to send, side text]`.
 * A string result becomes `{content: [{type: "text", textSide: true}]}`; a long
 * `{type: "text", text}` part of `content` loses `text` and gains `textSide: true`. Never mutates.
 */
export function sideLargeText(outcome: unknown, above: number): [unknown, string | undefined] {
  if (!isPlainObject(outcome)) return [outcome, undefined];
  const result = outcome.result;
  if (typeof result === "string") {
    if (!isLongText(result, above)) return [outcome, undefined];
    return [{ ...outcome, result: { content: [{ type: "text", textSide: true }] } }, result];
  }
  if (!isPlainObject(result) || !Array.isArray(result.content)) return [outcome, undefined];
  const parts: unknown[] = result.content;
  const index = parts.findIndex((part) => isLargeText(part, above));
  if (index < 0) return [outcome, undefined];
  const { text, ...rest } = parts[index] as Record<string, unknown> & { text: string };
  const content = parts.slice();
  content[index] = { ...rest, textSide: true };
  return [{ ...outcome, result: { ...result, content } }, text];
}

/** JSON text of a record for the core, plus the side text of its large text part (if any). */
export function encodeForCore(record: unknown, texts: LargeTexts | undefined): [string, string | undefined] {
  if (texts === undefined) return [encodeRecord(record), undefined];
  if (texts.hash !== undefined) return [encodeRecord(hashLargeTexts(record, { hash: texts.hash, above: texts.above })), undefined];
  const [sent, side] = sideLargeText(record, texts.above);
  return [encodeRecord(sent), side];
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
    const text = needsReplacer(record) ? JSON.stringify(record, replacer) : JSON.stringify(record);
    return (text as string | undefined) ?? "null";
  } catch {
    if (typeof record === "object" && record !== null && !Array.isArray(record)) {
      for (const key of Object.keys(record)) stringifyField((record as Record<string, unknown>)[key], key);
    }
    return stringifyField(record, null) ?? "null";
  }
}
