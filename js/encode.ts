/**
 * Serialises calls and outcomes to the JSON text the core parses; a failure names its top-level
 * field. Value rules: BigInt becomes its decimal string; an Error (anywhere) becomes
 * `{name, message}` without the stack; Date and other objects with `toJSON` use it; `undefined`, functions and symbols are dropped as JSON.stringify drops them.
 * Cyclic or otherwise unserialisable values give `invalid_record`, too-deep nesting `too_deep`.
 */
import { LoopGuardError } from "./errors.js";

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
