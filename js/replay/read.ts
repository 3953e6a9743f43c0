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
import { type LineReader, readAllLines } from "./lines.js";
import type { FormatId, Source, Trajectory } from "./types.js";
import { isObject, type JsonObject, messageList } from "./values.js";

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

/** The format of a parsed JSON document, if it is one of the document formats. */
export function detectDocumentFormat(doc: unknown, source: Source = {}): DocumentFormat | undefined {
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

function unknownFormat(source: Source, line?: number): TrajectoryError {
  return new TrajectoryError(`not a trajectory format this reader knows; name the format (one of ${FORMATS.join(", ")})`, source.name, line);
}

/**
 * How to read a file from its head (its first kilobytes, or all of it): a JSONL format, when the
 * first non-blank line is a record of one, else "document" (read the whole text as JSON). A `.jsonl`
 * name whose first line is not a JSONL record is bad input at that line.
 */
export function sniffFormat(head: string, source: Source = {}): LineFormat | "document" {
  const start = head.search(/\S/);
  if (start === -1) throw new TrajectoryError("the input is empty", source.name);
  const lineNumber = head.slice(0, start).split("\n").length;
  const end = head.indexOf("\n", start);
  const firstLine = head.slice(start, end === -1 ? head.length : end);
  const jsonlName = /\.(jsonl|ndjson)$/i.test(source.name ?? "");
  if (head[start] === "{") {
    let line: unknown;
    try {
      line = JSON.parse(firstLine);
    } catch {
      if (jsonlName) parseJson(firstLine, source.name, lineNumber);
      return "document";
    }
    const format = isObject(line) ? detectLineFormat(line) : undefined;
    if (format !== undefined) return format;
    if (jsonlName) throw unknownFormat(source, lineNumber);
  }
  return "document";
}

/** The format of a parsed JSON document, or a TrajectoryError saying it is none this reader knows. */
export function documentFormatOf(doc: unknown, source: Source = {}): DocumentFormat {
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

/** Reads a parsed JSON document of a document format. */
export function readDocument(doc: unknown, format: DocumentFormat, source: Source = {}): Trajectory[] {
  return DOCUMENT_READERS[format](doc, source);
}

/**
 * Every run of a whole text that is not JSONL: a text format, or a JSON document (`format`, or
 * detected when absent).
 */
export function readWhole(text: string, format: TextFormat | DocumentFormat | undefined, source: Source = {}): Trajectory[] {
  const textFormat = format === undefined ? detectTextFormat(text) : isTextFormat(format) ? format : undefined;
  if (textFormat !== undefined) return TEXT_READERS[textFormat](text, source);
  const doc = parseJson(text, source.name);
  return readDocument(doc, (format as DocumentFormat | undefined) ?? documentFormatOf(doc, source), source);
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
  if (format !== undefined && isLineFormat(format)) return readAllLines(lineReader(format, source), text);
  return readWhole(text, format, source);
}
