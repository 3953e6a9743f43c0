/**
 * The input frame (its layout and codes are defined in src/record/frame.rs and come from the
 * generated glue): the one way a record reaches the core. The wrapper writes the record into the
 * guard's input buffer in wasm memory, with `TextEncoder.encodeInto` (much faster than
 * wasm-bindgen's string copy for long or many texts), and calls `check` or `record`; the core
 * zeroes what was written once it has read it.
 *
 * An ordinary call or outcome is written field by field (the strings as they are, `args` and
 * `details` as JSON text, result texts unescaped), so nothing but the arguments and details is
 * stringified or parsed. "Ordinary" is only a question of shape (plain objects, string fields,
 * text-only content); anything else, and anything the core declines (`Status.SendJson`), is
 * written as JSON text, which gives the same verdicts and the exact errors. No rule lives here.
 */
import type { LargeTexts } from "./encode.js";
import { encodeRecord, errorValue, isError, isLongText, isPlainObject, isWellFormed } from "./encode.js";
import type { RawGuard, WasmBindings, WasmMemory } from "./runtime.js";
import type * as Glue from "./tool_loop_guard.js";

/**
 * The frames' layouts and codes as the generated declarations type them (kept out of the package's
 * public types, which compile without DOM or WebAssembly types).
 */
export type Codes = Pick<typeof Glue, "frameHeaderBytes" | "Status" | "Form" | "Slot" | "ResultShape" | "Flag" | "TextKind" | "AnswerTag">;

/** The runtime's glue, typed by its generated declarations. */
export function codesOf(bindings: WasmBindings): Codes {
  return bindings as unknown as Codes;
}

export type Op = "check" | "record";

/** `sendFields`: the record is not ordinary. */
export const NOT_ORDINARY = -1;
/** `text`: the string holds a lone surrogate. */
const NOT_WELL_FORMED = -2;
const EMPTY = new Uint8Array(0);
/** The longest string `#text` writes with a loop rather than encodeInto. */
const SHORT_TEXT = 40;
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

/**
 * A plain object without enumerable keys or `toJSON`: JSON.stringify writes it `{}`. The keys are
 * looked at first: they end the test at once for any other object.
 */
function isEmptyObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  for (const _ in value) return false;
  return isPlainObject(value) && !("toJSON" in value);
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
 * The codes a frame is written with, as plain numbers read once from the glue (its enums are
 * properties of a module namespace, slower to read on every record); slots as byte offsets.
 */
function numbersOf(codes: Codes) {
  const { Slot, Form, Flag, ResultShape, TextKind } = codes;
  return {
    header: codes.frameHeaderBytes(),
    json: Form.Json as number,
    fields: Form.Fields as number,
    runId: 4 * Slot.RunId,
    tool: 4 * Slot.Tool,
    callId: 4 * Slot.CallId,
    args: 4 * Slot.Args,
    details: 4 * Slot.Details,
    texts: 4 * Slot.Texts,
    result: 4 * Slot.Result,
    isError: 4 * Slot.IsError,
    at: 4 * Slot.At,
    argsWithheld: 4 * Slot.ArgsWithheld,
    hashedChars: 4 * Slot.HashedChars,
    jsonText: 4 * Slot.Json,
    sideText: 4 * Slot.Side,
    absent: Flag.Absent as number,
    false: Flag.False as number,
    true: Flag.True as number,
    noResult: ResultShape.Absent as number,
    textResult: ResultShape.Text as number,
    partsResult: ResultShape.Parts as number,
    errorText: ResultShape.ErrorText as number,
    errorObject: ResultShape.ErrorObject as number,
    text: TextKind.Text as number,
    sha256Hex: TextKind.Sha256Hex as number,
  };
}

/** A guard's input buffer, and the writer of the frames that go through it. */
export class InputFrame {
  #view = EMPTY;
  #data = new DataView(EMPTY.buffer);
  #length = 0;
  /** Where the next piece goes. */
  #pos = 0;
  readonly #n: ReturnType<typeof numbersOf>;
  /**
   * The call fields of the record being written (`#takeCall`), kept here rather than in an object
   * per record: `runId`, `tool`, `callId` (null when absent) and whether `at` is a number.
   */
  #run: string | null = null;
  #tool = "";
  #id: string | null = null;
  #timed = false;

  constructor(
    readonly raw: RawGuard,
    readonly memory: WasmMemory,
    readonly codes: Codes,
  ) {
    this.#n = numbersOf(codes);
  }

  /** Sends the record as JSON text (and the side text after it): the core's `Status`. */
  sendJson(op: Op, json: string, side: string | undefined, nowMs: number): number {
    this.#writeJson(json, side);
    const form = this.#n.json;
    return op === "check" ? this.raw.check(form, nowMs) : this.raw.record(form, nowMs);
  }

  /** The core's fingerprints of a record as JSON text (and side text): `RawGuard.fingerprint`'s JSON. */
  fingerprint(json: string, side: string | undefined): string {
    this.#writeJson(json, side);
    return this.raw.fingerprint();
  }

  /**
   * Sends an ordinary record field by field: the core's `Status`, or NOT_ORDINARY (nothing sent).
   * A getter, `toJSON` or Proxy trap of the record that throws makes the record not ordinary (the
   * JSON form then names the error), and what was written is cleared.
   */
  sendFields(op: Op, record: unknown, nowMs: number, largeTexts: LargeTexts | undefined): number {
    let written: boolean;
    try {
      written = op === "check" ? this.#writeCall(record) : this.#writeOutcome(record, largeTexts);
    } catch {
      written = this.#abandon();
    }
    this.#run = this.#id = null; // the record's strings are not kept past the call
    this.#tool = "";
    if (!written) return NOT_ORDINARY;
    const form = this.#n.fields;
    return op === "check" ? this.raw.check(form, nowMs) : this.raw.record(form, nowMs);
  }

  /**
   * Makes room for `length` bytes of pieces after the header (reserving more, or re-viewing grown
   * memory: growing detaches the old buffer, which empties every view of it; an empty view is
   * cheaper to notice than reading `memory.buffer`, a call into the engine, on every record).
   */
  #room(length: number): void {
    const total = this.#n.header + length;
    if (total > this.#length || this.#view.length === 0) {
      this.#length = Math.max(total, this.#length, 1024);
      const address = this.raw.reserve(this.#length); // may grow the memory: read its buffer after
      this.#view = new Uint8Array(this.memory.buffer, address, this.#length);
      this.#data = new DataView(this.memory.buffer, address, this.#length);
    }
  }

  /** Writes a `Form.Json` frame. */
  #writeJson(json: string, side: string | undefined): void {
    const n = this.#n;
    const jsonLength = this.#put(json, n.header);
    const sideLength = side === undefined ? -1 : this.#put(side, n.header + jsonLength);
    this.#word(n.jsonText, jsonLength);
    this.#word(n.sideText, sideLength);
  }

  /** Writes a header word at its byte offset. */
  #word(offset: number, value: number): void {
    this.#data.setInt32(offset, value, true);
  }

  /** Writes a well-formed `text` at `offset`; returns its UTF-8 length. */
  #put(text: string, offset: number): number {
    const header = this.#n.header;
    this.#room(offset - header + text.length);
    let { read, written } = encoder.encodeInto(text, this.#view.subarray(offset));
    if (read < text.length) {
      this.#room(offset - header + 3 * text.length);
      ({ read, written } = encoder.encodeInto(text, this.#view.subarray(offset)));
    }
    return written;
  }

  /**
   * Writes the next piece and returns its UTF-8 length (-1 for null: absent), or NOT_WELL_FORMED
   * for a string with lone surrogates. `json`: the text is JSON.stringify's, which escapes lone
   * surrogates, so it is not checked for them.
   */
  #text(text: string | null, json = false): number {
    if (text === null) return -1;
    const start = this.#pos;
    const length = text.length;
    const view = this.#view;
    let i = 0;
    // Short ASCII strings: a plain loop beats encodeInto's call overhead (and its view), up to
    // 32-40 units in Node 20 and 24 (CPU time per string: 8 units 41-50 ns against 187-208,
    // 48 units 200-233 against 152-180).
    if (length <= SHORT_TEXT) {
      for (; i < length; i++) {
        const code = text.charCodeAt(i);
        if (code > 0x7f) break;
        view[start + i] = code;
      }
      if (i === length) {
        this.#pos = start + length;
        return length;
      }
    }
    // UTF-8 cannot carry a lone surrogate: such a string goes the JSON way (escaped). The position
    // covers the ASCII prefix already written, so that abandoning the frame clears it.
    if (!json && !isWellFormed(text)) {
      this.#pos = start + i;
      return NOT_WELL_FORMED;
    }
    const { written } = encoder.encodeInto(text, view.subarray(start));
    this.#pos = start + written;
    return written;
  }

  /** A text entry of the result (kind byte, u32 length, bytes); false when not well-formed. */
  #entry(kind: number, text: string): boolean {
    const head = this.#pos;
    this.#pos += 5;
    const length = this.#text(text);
    this.#view[head] = kind;
    this.#data.setUint32(head + 1, length, true);
    return length !== NOT_WELL_FORMED;
  }

  /** Clears what was written (raw content must not stay behind); false. */
  #abandon(): false {
    this.#view.fill(0, 0, this.#pos);
    return false;
  }

  /**
   * Takes the record's call fields (`#run`, `#tool`, `#id`, `#timed`); false when they are not
   * ordinary (the JSON form decides).
   */
  #takeCall(record: Record<string, unknown>): boolean {
    const { runId, tool, callId, at } = record;
    const run = optionalText(runId);
    const id = optionalText(callId);
    if (typeof tool !== "string" || run === false || id === false) return false;
    if (at !== undefined && at !== null && typeof at !== "number") return false;
    this.#run = run;
    this.#tool = tool;
    this.#id = id;
    this.#timed = typeof at === "number";
    return true;
  }

  /**
   * JSON text of `args` (null when JSON.stringify would drop it; false if it throws). An empty
   * object (a tool without parameters) is not stringified.
   */
  #argsOf(args: unknown): string | null | false {
    return isEmptyObject(args) ? "{}" : jsonOf(args);
  }

  /** Upper bound of the UTF-8 bytes of the call's pieces (`#takeCall`) and `argsJson`. */
  #callBound(argsJson: string | null): number {
    return bound(this.#run) + 3 * this.#tool.length + bound(this.#id) + bound(argsJson);
  }

  /**
   * Writes the call's pieces (the first after the header) and their words; false when a string
   * holds a lone surrogate (the caller abandons the frame).
   */
  #writeCallPieces(argsJson: string | null): boolean {
    const n = this.#n;
    this.#pos = n.header;
    const runLength = this.#text(this.#run);
    const toolLength = this.#text(this.#tool);
    const idLength = this.#text(this.#id);
    this.#word(n.runId, runLength);
    this.#word(n.tool, toolLength);
    this.#word(n.callId, idLength);
    this.#word(n.args, this.#text(argsJson, true));
    this.#word(n.at, this.#timed ? n.true : n.absent);
    return runLength !== NOT_WELL_FORMED && toolLength !== NOT_WELL_FORMED && idLength !== NOT_WELL_FORMED;
  }

  /** Writes an ordinary call's frame; false (nothing written) when the call is not ordinary. */
  #writeCall(record: unknown): boolean {
    if (!isPlainObject(record) || !hasRecordKeys(record, false) || !this.#takeCall(record)) return false;
    const argsJson = this.#argsOf(record.args);
    if (argsJson === false) return false;
    this.#room(this.#callBound(argsJson));
    return this.#writeCallPieces(argsJson) || this.#abandon();
  }

  /** Writes an ordinary outcome's frame; false (nothing written) when the outcome is not ordinary. */
  #writeOutcome(outcome: unknown, largeTexts: LargeTexts | undefined): boolean {
    if (!isPlainObject(outcome) || !hasRecordKeys(outcome, true) || !this.#takeCall(outcome)) return false;
    const { args, result, error } = outcome;
    if (error !== undefined && error !== null) return result === undefined && this.#writeError(args, error, largeTexts);
    // A null result goes the JSON way: the openclaw preset hashes it, unlike a missing one.
    if (result === null) return false;
    const n = this.#n;
    let shape = n.noResult;
    let content: { type: "text"; text: string }[] | undefined;
    let details: string | null = null;
    let isError = n.absent;
    let size = 0;
    if (typeof result === "string") {
      shape = n.textResult;
      size = 5 + 3 * result.length;
    } else if (result !== undefined) {
      if (!isPlainObject(result) || !hasResultKeys(result) || !Array.isArray(result.content)) return false;
      content = result.content as { type: "text"; text: string }[];
      for (let i = 0; i < content.length; i++) {
        const part = content[i];
        if (!isTextPart(part)) return false;
        size += 5 + 3 * part.text.length;
      }
      const flag = result.isError;
      if (flag !== undefined && typeof flag !== "boolean") return false;
      if (flag !== undefined) isError = flag ? n.true : n.false;
      const json = jsonOf(result.details);
      if (json === false) return false;
      details = json;
      shape = n.partsResult;
    }
    // With a call id the core finds the checked call without the arguments; it asks for the JSON
    // record (Status.SendJson) when it cannot.
    const withheld = this.#id !== null && args !== undefined;
    const argsJson = withheld ? null : this.#argsOf(args);
    if (argsJson === false) return false;
    this.#room(size + this.#callBound(argsJson) + bound(details));
    if (!this.#writeCallPieces(argsJson)) return this.#abandon();
    const detailsLength = this.#text(details, true);
    const textsStart = this.#pos;
    const wellFormed =
      typeof result === "string"
        ? this.#resultText(result, largeTexts)
        : content === undefined || this.#resultTexts(content, largeTexts);
    if (!wellFormed) return this.#abandon();
    this.#word(n.details, detailsLength);
    this.#word(n.texts, this.#pos - textsStart);
    this.#word(n.result, shape);
    this.#word(n.isError, isError);
    this.#word(n.argsWithheld, withheld ? n.true : n.false);
    return true;
  }

  /**
   * Writes an outcome that threw: a string, or an Error that is only its name and message (as the
   * JSON form would give it, `errorValue`), a long message as its SHA-256 where the entry has a
   * native hasher; false (nothing written) for any other error, which goes the JSON way.
   */
  #writeError(args: unknown, error: unknown, largeTexts: LargeTexts | undefined): boolean {
    const n = this.#n;
    let name: string | null = null;
    let message: string;
    if (typeof error === "string") message = error;
    else if (typeof error === "object" && error !== null && isError(error)) {
      const value = errorValue(error);
      const { name: errorName, message: errorMessage } = value;
      if (Object.keys(value).length !== 2 || typeof errorName !== "string" || typeof errorMessage !== "string") return false;
      name = errorName;
      message = errorMessage;
    } else return false;
    const withheld = this.#id !== null && args !== undefined;
    const argsJson = withheld ? null : this.#argsOf(args);
    if (argsJson === false) return false;
    this.#room(5 + 3 * message.length + (name === null ? 0 : 5 + 3 * name.length) + this.#callBound(argsJson));
    if (!this.#writeCallPieces(argsJson)) return this.#abandon();
    this.#word(n.details, -1);
    const textsStart = this.#pos;
    if (name !== null && !this.#entry(n.text, name)) return this.#abandon();
    if (!this.#resultText(message, largeTexts)) return this.#abandon();
    const hashed = largeTexts?.hash !== undefined && isLongText(message, largeTexts.above);
    this.#word(n.hashedChars, hashed ? message.length : 0);
    this.#word(n.texts, this.#pos - textsStart);
    this.#word(n.result, name === null ? n.errorText : n.errorObject);
    this.#word(n.isError, n.absent);
    this.#word(n.argsWithheld, withheld ? n.true : n.false);
    return true;
  }

  /** The text entries of `content`'s parts; false when one is not well-formed. */
  #resultTexts(content: { type: "text"; text: string }[], largeTexts: LargeTexts | undefined): boolean {
    for (let i = 0; i < content.length; i++) if (!this.#resultText(content[i].text, largeTexts)) return false;
    return true;
  }

  /** One text entry: the text, or its SHA-256 where the host hashes long texts; false when not well-formed. */
  #resultText(text: string, largeTexts: LargeTexts | undefined): boolean {
    const hash = largeTexts?.hash;
    if (hash !== undefined && isLongText(text, largeTexts?.above ?? Infinity)) return this.#entry(this.#n.sha256Hex, hash(text));
    return this.#entry(this.#n.text, text);
  }
}
