/**
 * The answer frame reader: turns the core's answer to a `check` or `record` that is not a plain
 * allow (`Status.Verdict`) into the verdict object, straight from wasm memory, with no JSON to
 * parse. The layout is defined in src/verdict/answer_frame.rs; the members, their order and their
 * nesting come from the frame, their names from the generated `VERDICT_KEYS`: no verdict field is
 * named here. The frame holds texts of the verdict, so it is zeroed once read.
 */
import type { Codes } from "./frame.js";
import { VERDICT_KEYS } from "./names.js";

/** Keeps a leading U+FEFF: the strings' offsets count every unit of the text. */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The entry tags by name, as plain numbers read once from the glue's `AnswerTag`. */
export type AnswerTags = Readonly<Record<keyof Codes["AnswerTag"], number>>;

export function answerTagsOf(codes: Codes): AnswerTags {
  const tags: Record<string, number> = {};
  for (const [name, code] of Object.entries(codes.AnswerTag)) if (typeof code === "number") tags[name] = code;
  return tags as AnswerTags;
}

type Members = Record<string, unknown>;

/**
 * Views of the wasm memory last read, made again when the buffer changes (the memory grew, or an
 * instance replaced after a trap: its memory is let go at the next read).
 */
let viewed: ArrayBuffer | undefined;
let bytes = new Uint8Array(0);
let data = new DataView(bytes.buffer);

/** The object of the answer frame at `address` in `buffer` (wasm memory); the frame is zeroed. */
export function readAnswer(buffer: ArrayBuffer, address: number, tags: AnswerTags): Members {
  if (buffer !== viewed) {
    viewed = buffer;
    bytes = new Uint8Array(buffer);
    data = new DataView(buffer);
  }
  const entriesStart = address + 8;
  const textStart = entriesStart + data.getUint32(address, true);
  const end = textStart + data.getUint32(address + 4, true);
  try {
    const text = decoder.decode(bytes.subarray(textStart, end));
    const root: Members = {};
    const parents: Members[] = [];
    let object = root;
    let at = entriesStart;
    while (at < textStart) {
      const tag = bytes[at];
      if (tag === tags.End) {
        object = parents.pop() ?? root;
        at += 1;
        continue;
      }
      const key = VERDICT_KEYS[bytes[at + 1]];
      at += 2;
      if (tag === tags.String) {
        const start = data.getUint32(at, true);
        object[key] = text.slice(start, start + data.getUint32(at + 4, true));
        at += 8;
      } else if (tag === tags.Uint) {
        object[key] = data.getUint32(at, true);
        at += 4;
      } else if (tag === tags.Number) {
        object[key] = data.getFloat64(at, true);
        at += 8;
      } else if (tag === tags.Null) {
        object[key] = null;
      } else if (tag === tags.Begin) {
        const child: Members = {};
        object[key] = child;
        parents.push(object);
        object = child;
      } else {
        throw new Error(`answer frame: unknown entry tag ${tag} at byte ${at - 2 - address}`);
      }
    }
    return root;
  } finally {
    bytes.fill(0, address, end);
  }
}
