/**
 * Small value helpers shared by the format readers: shapes, tool-call argument text, result
 * content, timestamps and run ids from file names. No format knowledge lives here.
 */
import { TrajectoryError } from "./errors.js";

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value as an array, or a TrajectoryError naming `path`. */
export function arrayAt(value: unknown, path: string, file: string | undefined): unknown[] {
  if (!Array.isArray(value)) throw new TrajectoryError(`${path} is not an array`, file);
  return value;
}

/** A document's message list: the document itself when it is an array, else its `messages` array. */
export function messageList(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  if (isObject(doc) && Array.isArray(doc.messages)) return doc.messages;
  return undefined;
}

/** The value as a non-empty string, or a TrajectoryError naming `path` (and `line`, if any). */
export function nameAt(value: unknown, path: string, file: string | undefined, line?: number): string {
  if (typeof value !== "string" || value === "") throw new TrajectoryError(`${path} is not a non-empty string`, file, line);
  return value;
}

/** A string when the value is one, else undefined. */
export function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Tool-call arguments as the model wrote them: JSON text is parsed; text that is not JSON stays
 * the string it is (the call was made with it); a value that is already parsed is kept.
 */
export function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value ?? undefined;
  if (value.trim() === "") return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const TEXT_PARTS = new Set(["text", "input_text", "output_text"]);

/** A content part that carries text (`text`, `input_text`, `output_text`). */
function textOfPart(part: unknown): string | undefined {
  return isObject(part) && typeof part.type === "string" && TEXT_PARTS.has(part.type) && typeof part.text === "string" ? part.text : undefined;
}

/**
 * A tool observation as the guard's result: a string stays a string; a list of content parts with
 * one text part is that text, otherwise `{content: parts}` with text parts as `{type: "text",
 * text}` and other parts as they are; null is the empty text; any other value is kept.
 */
export function resultOf(content: unknown): unknown {
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) return content;
  const parts = content.map((part) => {
    const text = textOfPart(part);
    return text === undefined ? part : { type: "text", text };
  });
  const [only] = parts;
  if (parts.length === 1 && isObject(only) && only.type === "text" && typeof only.text === "string") return only.text;
  return { content: parts };
}

/** The text of a content value: a string, or its text parts joined by newlines, or JSON. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (Array.isArray(content)) {
    const texts = content.map(textOfPart);
    if (texts.every((t) => t !== undefined)) return texts.join("\n");
  }
  return JSON.stringify(content);
}

/**
 * Milliseconds since the epoch from an ISO 8601 string or a number (a number below 1e11 is taken
 * as seconds, as Python's time.time() writes them); undefined for anything else.
 */
export function timeOf(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? (value < 1e11 ? Math.round(value * 1000) : value) : undefined;
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

const EXTENSIONS = [".traj.json", ".traj", ".jsonl", ".json", ".ndjson", ".txt"];

/** A file name without its directories and trajectory extension: the run id of a one-run file. */
export function stemOf(name: string | undefined, fallback = "run"): string {
  if (name === undefined || name === "") return fallback;
  const base = name.split(/[\\/]/).pop() ?? name;
  const extension = EXTENSIONS.find((e) => base.toLowerCase().endsWith(e));
  const stem = extension === undefined ? base : base.slice(0, base.length - extension.length);
  return stem === "" ? fallback : stem;
}
