/**
 * Reading trajectories of any supported format: detection from content (the file name as a hint),
 * the reader of each format, and one entry point for hosts that hold the whole text. Hosts that
 * stream (the CLI) sniff the head of a file and feed a LineReader line by line.
 */
import { parseJson, TrajectoryError } from "./errors.js";
import { looksLikeAgentDojo, readAgentDojo } from "./formats/agentdojo.js";
import { aiSdkSteps, looksLikeAiSdk, readAiSdk } from "./formats/ai-sdk.js";
import { looksLikeAnthropic, readAnthropic } from "./formats/anthropic.js";
import { ClaudeCodeReader, isClaudeCodeEntry } from "./formats/claude-code.js";
import { CodexReader, isCodexLine } from "./formats/codex.js";
import { isJsonlRecord, JsonlReader } from "./formats/jsonl.js";
import { looksLikeMiniSweAgent, readMiniSweAgent } from "./formats/mini-swe-agent.js";
import { looksLikeChat, readChat } from "./formats/openai-chat.js";
import { isOpenHandsLine, OpenHandsReader } from "./formats/openhands.js";
import { isResponseItem, readResponses, responseItems } from "./formats/openai-responses.js";
import { looksLikeReactText, readReactText } from "./formats/react-text.js";
import { looksLikeSweAgent, readSweAgent } from "./formats/swe-agent.js";
import { looksLikeTauBench, readTauBench } from "./formats/tau-bench.js";
import { assembleRuns, type LineReader, readAllLines } from "./lines.js";
import type { FormatId, RunStep, Source, Trajectory } from "./types.js";
import { arrayAt, isObject, type JsonObject, messageList } from "./values.js";

/** Formats read line by line (JSONL), formats of plain text, and the others: one JSON document. */
export type LineFormat = "jsonl" | "claude-code" | "codex" | "openhands";
export type TextFormat = "react-text";
export type DocumentFormat = Exclude<FormatId, LineFormat | TextFormat>;

const LINE_READERS: Record<LineFormat, new (source: Source) => LineReader> = {
  jsonl: JsonlReader,
  "claude-code": ClaudeCodeReader,
  codex: CodexReader,
  openhands: OpenHandsReader,
};

const TEXT_READERS: Record<TextFormat, (text: string, source: Source) => Trajectory[]> = {
  "react-text": readReactText,
};

const DOCUMENT_READERS: Record<DocumentFormat, (doc: unknown, source: Source) => Trajectory[]> = {
  "openai-chat": readChat,
  "openai-responses": readResponses,
  anthropic: readAnthropic,
  "ai-sdk": readAiSdk,
  "swe-agent": readSweAgent,
  "mini-swe-agent": readMiniSweAgent,
  "tau-bench": readTauBench,
  agentdojo: readAgentDojo,
};

/** Every format id: JSONL formats, then document formats, then text formats. */
export const FORMATS: readonly FormatId[] = [
  ...(Object.keys(LINE_READERS) as LineFormat[]),
  ...(Object.keys(DOCUMENT_READERS) as DocumentFormat[]),
  ...(Object.keys(TEXT_READERS) as TextFormat[]),
];

export function isFormat(value: string): value is FormatId {
  return (FORMATS as readonly string[]).includes(value);
}

export function isLineFormat(format: FormatId): format is LineFormat {
  return Object.prototype.hasOwnProperty.call(LINE_READERS, format);
}

export function isTextFormat(format: FormatId): format is TextFormat {
  return Object.prototype.hasOwnProperty.call(TEXT_READERS, format);
}

/** A reader that takes a JSONL file of `format` line by line. */
export function lineReader(format: LineFormat, source: Source = {}): LineReader {
  return new LINE_READERS[format](source);
}

/** The JSONL format one line (a parsed object) belongs to, if any. */
export function detectLineFormat(line: JsonObject): LineFormat | undefined {
  if (isJsonlRecord(line)) return "jsonl";
  if (isCodexLine(line)) return "codex";
  if (isClaudeCodeEntry(line)) return "claude-code";
  if (isOpenHandsLine(line)) return "openhands";
  return undefined;
}

/**
 * The JSONL format of a JSON array whose items are that format's records (a Claude Code transcript
 * saved as one array, as Stop hooks copy it), judged like a JSONL file's first lines.
 */
function lineFormatOfArray(doc: unknown): LineFormat | undefined {
  if (!Array.isArray(doc)) return undefined;
  for (const item of doc.slice(0, SNIFF_LINES)) {
    if (!isObject(item)) return undefined;
    const format = detectLineFormat(item);
    if (format !== undefined) return format;
  }
  return undefined;
}

/**
 * The format of a parsed JSON document: one of the document formats, or a JSONL format when the
 * document is an array of its records.
 */
export function detectDocumentFormat(doc: unknown, source: Source = {}): DocumentFormat | LineFormat | undefined {
  const lineFormat = lineFormatOfArray(doc);
  if (lineFormat !== undefined) return lineFormat;
  if (looksLikeSweAgent(doc)) return "swe-agent";
  if (looksLikeTauBench(doc)) return "tau-bench";
  if (looksLikeMiniSweAgent(doc)) return "mini-swe-agent";
  if (looksLikeAgentDojo(doc)) return "agentdojo";
  const steps = aiSdkSteps(doc);
  if (steps !== undefined && looksLikeAiSdk(steps)) return "ai-sdk";
  if (responseItems(doc)?.some(isResponseItem) === true) return "openai-responses";
  const messages = messageList(doc);
  if (messages !== undefined && looksLikeAnthropic(messages)) return "anthropic";
  if (messages !== undefined && looksLikeChat(messages)) return "openai-chat";
  if (messages !== undefined && source.name?.endsWith(".traj.json") === true) return "mini-swe-agent";
  return undefined;
}

/** The text is a JSON array (a JSONL format's records saved as one array). */
export function startsArray(text: string): boolean {
  return text[text.search(/\S/)] === "[";
}

function unknownFormat(source: Source, line?: number): TrajectoryError {
  return new TrajectoryError(`not a trajectory format this reader knows; name the format (one of ${FORMATS.join(", ")})`, source.name, line);
}

/** How many lines of a head sniffFormat reads before it settles for the first line's verdict. */
export const SNIFF_LINES = 32;

/**
 * What the head's first non-blank lines say: the format of the first line one claims, "document"
 * at a line that is not a JSON object, or "undecided" (JSON objects no format claims, so far).
 */
function sniffLines(head: string, complete: boolean): { kind: LineFormat | "document" | "undecided"; lines: number } {
  let lines = 0;
  let start = 0;
  while (start < head.length && lines < SNIFF_LINES) {
    let end = head.indexOf("\n", start);
    if (end === -1) {
      if (!complete) break;
      end = head.length;
    }
    const text = head.slice(start, end).trim();
    start = end + 1;
    if (text === "") continue;
    lines++;
    if (!text.startsWith("{")) return { kind: "document", lines };
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      return { kind: "document", lines };
    }
    const format = isObject(line) ? detectLineFormat(line) : undefined;
    if (format !== undefined) return { kind: format, lines };
  }
  return { kind: "undecided", lines };
}

/**
 * How to read a file from its head (its first kilobytes, or all of it): a JSONL format, when one
 * of its first non-blank lines (up to SNIFF_LINES of them) is a record of one and the lines before
 * are JSON objects too (a Claude Code transcript may open with title or snapshot lines), else
 * "document" (read the whole text as JSON). A `.jsonl` name whose first line is not a JSONL record
 * is bad input at that line. With `complete` false the head may end inside the input: "more" asks
 * for more of it when its lines do not decide yet.
 */
export function sniffFormat(head: string, source?: Source): LineFormat | "document";
export function sniffFormat(head: string, source: Source, complete: boolean): LineFormat | "document" | "more";
export function sniffFormat(head: string, source: Source = {}, complete = true): LineFormat | "document" | "more" {
  const start = head.search(/\S/);
  if (start === -1) {
    if (!complete) return "more";
    throw new TrajectoryError("the input is empty", source.name);
  }
  if (head[start] !== "{") return "document";
  const sniffed = sniffLines(head, complete);
  if (sniffed.kind !== "undecided" && sniffed.kind !== "document") return sniffed.kind;
  if (sniffed.kind === "undecided" && !complete && sniffed.lines < SNIFF_LINES) return "more";
  // The first line decides: a JSON object of no known format, or a line that is not JSON.
  const lineNumber = head.slice(0, start).split("\n").length;
  const end = head.indexOf("\n", start);
  const firstLine = head.slice(start, end === -1 ? head.length : end);
  const jsonlName = /\.(jsonl|ndjson)$/i.test(source.name ?? "");
  if (jsonlName) {
    parseJson(firstLine, source.name, lineNumber);
    throw unknownFormat(source, lineNumber);
  }
  return "document";
}

/** The format of a parsed JSON document, or a TrajectoryError saying it is none this reader knows. */
export function documentFormatOf(doc: unknown, source: Source = {}): DocumentFormat | LineFormat {
  const format = detectDocumentFormat(doc, source);
  if (format === undefined) throw unknownFormat(source);
  return format;
}

/** The text format of a text that is not JSON, if it is one of the text formats. */
export function detectTextFormat(text: string): TextFormat | undefined {
  return looksLikeReactText(text) ? "react-text" : undefined;
}

/** The format of a whole text (see sniffFormat, detectTextFormat and detectDocumentFormat). */
export function detectFormat(text: string, source: Source = {}): FormatId {
  const kind = sniffFormat(text, source);
  if (kind !== "document") return kind;
  return detectTextFormat(text) ?? documentFormatOf(parseJson(text, source.name), source);
}

/**
 * Reads a parsed JSON document of a document format, or an array of a JSONL format's records (item
 * n is read as line n).
 */
export function readDocument(doc: unknown, format: DocumentFormat | LineFormat, source: Source = {}): Trajectory[] {
  if (!isLineFormat(format)) return DOCUMENT_READERS[format](doc, source);
  const items = arrayAt(doc, `the document (an array of ${format} records)`, source.name);
  const reader = lineReader(format, source);
  const steps: RunStep[] = [];
  items.forEach((item, i) => {
    if (!isObject(item)) throw new TrajectoryError(`item ${i + 1} is not a JSON object`, source.name);
    for (const step of reader.line(JSON.stringify(item), i + 1)) steps.push(step);
  });
  return assembleRuns(steps, reader.end());
}

/**
 * Every run of a whole text that is not JSONL: a text format, or a JSON document (`format`, or
 * detected when absent; a JSONL format names an array of its records).
 */
export function readWhole(text: string, format: FormatId | undefined, source: Source = {}): Trajectory[] {
  const textFormat = format === undefined ? detectTextFormat(text) : isTextFormat(format) ? format : undefined;
  if (textFormat !== undefined) return TEXT_READERS[textFormat](text, source);
  const doc = parseJson(text, source.name);
  return readDocument(doc, (format as DocumentFormat | LineFormat | undefined) ?? documentFormatOf(doc, source), source);
}

/**
 * Every run in `text`, read as `format` (detected when absent). Throws TrajectoryError naming the
 * file, the line where there is one, and the reason.
 */
export function readTrajectories(text: string, options: Source & { format?: FormatId } = {}): Trajectory[] {
  const source: Source = options.name === undefined ? {} : { name: options.name };
  let format = options.format;
  if (format === undefined) {
    const kind = sniffFormat(text, source);
    if (kind !== "document") format = kind;
  }
  if (format !== undefined && isLineFormat(format) && !startsArray(text)) return readAllLines(lineReader(format, source), text);
  return readWhole(text, format, source);
}
