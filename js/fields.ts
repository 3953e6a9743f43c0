/**
 * The fast way in: an ordinary call or outcome is handed to the core field by field (the strings as
 * they are, `args` and `details` as JSON text, result texts unescaped) instead of as one JSON
 * record, so nothing but the arguments and details is stringified or parsed. "Ordinary" is only a
 * question of shape (plain objects, string fields, text-only content); anything else, and anything
 * the core declines (status 2), goes the JSON way, which gives the same verdicts and the exact
 * errors. The core defines both ways in Rust; no rule lives here.
 */
import type { LargeTexts } from "./encode.js";
import { encodeRecord, isLongText, isPlainObject, isWellFormed } from "./encode.js";
import type { RawGuard } from "./runtime.js";

/** The core's answer when it cannot decide from the fields: send the JSON record. */
export const SEND_JSON = 2;
/** `sendCall`/`sendOutcome`: the record is not ordinary. */
export const NOT_ORDINARY = -1;

/** Where the pieces are written: a view of at least `length` bytes of the guard's input buffer. */
export type InputView = (length: number) => Uint8Array;

const encoder = new TextEncoder();

/** JSON text of a value JSON.stringify keeps (null when it would drop the key); false if it throws. */
function jsonOf(value: unknown): string | null | false {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return null;
  try {
    return encodeRecord(value);
  } catch {
    return false;
  }
}

/** True when every key is a call field (`result` and `error` too when `outcome`). */
function hasRecordKeys(record: Record<string, unknown>, outcome: boolean): boolean {
  for (const key in record) {
    switch (key) {
      case "runId":
      case "tool":
      case "args":
      case "callId":
      case "at":
        continue;
      case "result":
      case "error":
        if (outcome) continue;
        return false;
      default:
        return false;
    }
  }
  return true;
}

/** True when every key of a result is `content`, `details` or `isError`. */
function hasResultKeys(result: Record<string, unknown>): boolean {
  for (const key in result) if (key !== "content" && key !== "details" && key !== "isError") return false;
  return true;
}

/** A `{type: "text", text}` part and nothing else. */
function isTextPart(part: unknown): part is { type: "text"; text: string } {
  if (!isPlainObject(part) || part.type !== "text" || typeof part.text !== "string") return false;
  for (const key in part) if (key !== "type" && key !== "text") return false;
  return true;
}

/** Writes pieces one after another into the input buffer. */
class PieceWriter {
  pos = 0;
  view: Uint8Array = EMPTY;

  /**
   * Writes `text` and returns its UTF-8 length (-1 for null: absent), or NOT_WELL_FORMED for a
   * string with lone surrogates.
   */
  text(text: string | null): number {
    if (text === null) return -1;
    const start = this.pos;
    const length = text.length;
    const view = this.view;
    let i = 0;
    // Short ASCII strings: a plain loop beats encodeInto's call overhead.
    if (length <= 64) {
      for (; i < length; i++) {
        const code = text.charCodeAt(i);
        if (code > 0x7f) break;
        view[start + i] = code;
      }
      if (i === length) {
        this.pos = start + length;
        return length;
      }
    }
    // UTF-8 cannot carry a lone surrogate: such a string goes the JSON way (escaped).
    if (!isWellFormed(text)) return NOT_WELL_FORMED;
    const { written } = encoder.encodeInto(text, view.subarray(start));
    this.pos = start + written;
    return written;
  }

  /** Clears what was written (raw content must not stay behind) and says NOT_ORDINARY. */
  abandon(): typeof NOT_ORDINARY {
    this.view.fill(0, 0, this.pos);
    this.view = EMPTY;
    return NOT_ORDINARY;
  }

  /** A text entry of the result (kind byte, u32 length, bytes); false when not well-formed. */
  entry(kind: number, text: string): boolean {
    const head = this.pos;
    this.pos += 5;
    const length = this.text(text);
    const view = this.view;
    view[head] = kind;
    view[head + 1] = length & 0xff;
    view[head + 2] = (length >>> 8) & 0xff;
    view[head + 3] = (length >>> 16) & 0xff;
    view[head + 4] = (length >>> 24) & 0xff;
    return length !== NOT_WELL_FORMED;
  }
}

const EMPTY = new Uint8Array(0);
const NOT_WELL_FORMED = -2;
/** One writer, reused: calls into one wasm instance never overlap. */
const writer = new PieceWriter();

/** Upper bound of a string's UTF-8 bytes (0 when absent). */
function bound(text: string | null): number {
  return text === null ? 0 : 3 * text.length;
}

/** A call field that must be a string if present: the string, null when absent, false otherwise. */
function optionalText(value: unknown): string | null | false {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : false;
}

/**
 * Runs `write`, which reads the record and writes its pieces; a getter, `toJSON` or Proxy trap of
 * the record that throws makes the record not ordinary (the JSON way then names the error), and
 * what was written is cleared.
 */
function written<T>(write: () => T | typeof NOT_ORDINARY): T | typeof NOT_ORDINARY {
  try {
    return write();
  } catch {
    return writer.abandon();
  }
}

/** `checkFields` of an ordinary call: the core's status, or NOT_ORDINARY. */
export function sendCall(raw: RawGuard, input: InputView, call: unknown, nowMs: number): number {
  const fields = written(() => writeCall(input, call));
  if (fields === NOT_ORDINARY) return NOT_ORDINARY;
  return raw.checkFields(fields[0], fields[1], fields[2], fields[3], fields[4], nowMs);
}

/** Writes an ordinary call's pieces: the lengths and time for `checkFields`, or NOT_ORDINARY. */
function writeCall(input: InputView, call: unknown): number[] | typeof NOT_ORDINARY {
  if (!isPlainObject(call) || !hasRecordKeys(call, false)) return NOT_ORDINARY;
  const { runId, tool, callId, args, at } = call;
  const run = optionalText(runId);
  const id = optionalText(callId);
  if (typeof tool !== "string" || run === false || id === false) return NOT_ORDINARY;
  if (at !== undefined && at !== null && typeof at !== "number") return NOT_ORDINARY;
  const argsJson = jsonOf(args);
  if (argsJson === false) return NOT_ORDINARY;
  writer.pos = 0;
  writer.view = input(bound(run) + bound(tool) + bound(id) + bound(argsJson));
  const runLength = writer.text(run);
  const toolLength = writer.text(tool);
  const idLength = writer.text(id);
  const argsLength = writer.text(argsJson);
  if (runLength === NOT_WELL_FORMED || toolLength === NOT_WELL_FORMED || idLength === NOT_WELL_FORMED) return writer.abandon();
  writer.view = EMPTY;
  return [runLength, toolLength, idLength, argsLength, typeof at === "number" ? at : NaN];
}

/** Result modes of `recordFields`. */
const NO_RESULT = 0;
const STRING_RESULT = 1;
const PARTS_RESULT = 2;
/** `recordFields` args length: the outcome has arguments, not passed. */
const ARGS_WITHHELD = -2;
/** Text entry kinds of `recordFields`. */
const RAW_TEXT = 0;
const HEX_DIGEST = 1;

/** `recordFields` of an ordinary outcome: the core's status, or NOT_ORDINARY. */
export function sendOutcome(raw: RawGuard, input: InputView, outcome: unknown, nowMs: number, largeTexts: LargeTexts | undefined): number {
  const f = written(() => writeOutcome(input, outcome, largeTexts));
  if (f === NOT_ORDINARY) return NOT_ORDINARY;
  return raw.recordFields(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], nowMs);
}

/** Writes an ordinary outcome's pieces: the lengths, flags and time for `recordFields`, or NOT_ORDINARY. */
function writeOutcome(input: InputView, outcome: unknown, largeTexts: LargeTexts | undefined): number[] | typeof NOT_ORDINARY {
  if (!isPlainObject(outcome) || !hasRecordKeys(outcome, true)) return NOT_ORDINARY;
  const { runId, tool, callId, args, at, result, error } = outcome;
  const run = optionalText(runId);
  const id = optionalText(callId);
  if (typeof tool !== "string" || run === false || id === false) return NOT_ORDINARY;
  if (at !== undefined && at !== null && typeof at !== "number") return NOT_ORDINARY;
  if (error !== undefined && error !== null) return NOT_ORDINARY;
  let mode = NO_RESULT;
  let content: { type: "text"; text: string }[] | undefined;
  let details: string | null = null;
  let isError = 0;
  let size = 0;
  if (typeof result === "string") {
    mode = STRING_RESULT;
    size = 5 + 3 * result.length;
  } else if (result !== undefined && result !== null) {
    if (!isPlainObject(result) || !hasResultKeys(result) || !Array.isArray(result.content)) return NOT_ORDINARY;
    content = result.content as { type: "text"; text: string }[];
    for (let i = 0; i < content.length; i++) {
      const part = content[i];
      if (!isTextPart(part)) return NOT_ORDINARY;
      size += 5 + 3 * part.text.length;
    }
    const flag = result.isError;
    if (flag !== undefined && typeof flag !== "boolean") return NOT_ORDINARY;
    isError = flag === undefined ? 0 : flag ? 2 : 1;
    const json = jsonOf(result.details);
    if (json === false) return NOT_ORDINARY;
    details = json;
    mode = PARTS_RESULT;
  }
  // With a call id the core finds the checked call without the arguments; it asks for the JSON
  // record (status 2) when it cannot.
  const withheld = id !== null && args !== undefined;
  const argsJson = withheld ? null : jsonOf(args);
  if (argsJson === false) return NOT_ORDINARY;
  const hash = largeTexts?.hash;
  const above = largeTexts?.above ?? Infinity;
  writer.pos = 0;
  writer.view = input(size + bound(run) + bound(tool) + bound(id) + bound(argsJson) + bound(details));
  const runLength = writer.text(run);
  const toolLength = writer.text(tool);
  const idLength = writer.text(id);
  const argsLength = withheld ? ARGS_WITHHELD : writer.text(argsJson);
  const detailsLength = writer.text(details);
  const textsStart = writer.pos;
  let wellFormedTexts = true;
  const put = (text: string) => {
    wellFormedTexts &&= hash !== undefined && isLongText(text, above) ? writer.entry(HEX_DIGEST, hash(text)) : writer.entry(RAW_TEXT, text);
  };
  if (typeof result === "string") put(result);
  else if (content !== undefined) for (let i = 0; i < content.length; i++) put(content[i].text);
  const textsLength = writer.pos - textsStart;
  if (!wellFormedTexts || runLength === NOT_WELL_FORMED || toolLength === NOT_WELL_FORMED || idLength === NOT_WELL_FORMED) return writer.abandon();
  writer.view = EMPTY;
  return [runLength, toolLength, idLength, argsLength, mode, detailsLength, isError, textsLength, typeof at === "number" ? at : NaN];
}
