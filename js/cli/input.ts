/**
 * Reading the CLI's inputs (files, or `-` for stdin) through the replay readers: JSONL formats are
 * streamed line by line, so a file's text is never held whole; a JSON document or a text format is
 * read whole. The format is the one named, else detected from the head of the input. Every step goes to
 * a RunSink as soon as the reader completes it; `end` gets every run's header with its final meta.
 */
import fs from "node:fs";
import { type FormatId, isLineFormat, lineReader, readWhole, type RunHeader, sniffFormat, startsArray, type Step } from "../replay/index.js";
import { TrajectoryError } from "../replay/errors.js";

export interface RunSink {
  step(runId: string, format: FormatId, step: Step): void;
  end(runs: RunHeader[]): void;
}

/** A named input: a path, or `-` for stdin (named `<stdin>` in messages). */
export interface Input {
  path: string;
  name: string;
  /** Size in bytes when known (regular files). */
  size: number | undefined;
}

export function inputOf(path: string): Input {
  if (path === "-") return { path, name: "<stdin>", size: undefined };
  let stat: fs.Stats;
  try {
    stat = fs.statSync(path);
  } catch (error) {
    throw new TrajectoryError(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, path);
  }
  if (!stat.isFile()) throw new TrajectoryError("not a regular file", path);
  return { path, name: path, size: stat.size };
}

/** Chunks of an input as text (UTF-8), reporting bytes read to `progress`. */
async function* textChunks(input: Input, progress: (bytes: number) => void): AsyncGenerator<string> {
  const stream = input.path === "-" ? process.stdin : fs.createReadStream(input.path, { highWaterMark: 1 << 20 });
  const decoder = new TextDecoder("utf-8");
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    progress(chunk.length);
    yield decoder.decode(chunk, { stream: true });
  }
  const rest = decoder.decode();
  if (rest !== "") yield rest;
}

/** Reads one input into `sink`; throws TrajectoryError (file, line, reason) for bad input. */
export async function readInput(input: Input, format: FormatId | undefined, sink: RunSink, progress: (bytes: number) => void): Promise<void> {
  const source = { name: input.name };
  const chunks = textChunks(input, progress);
  let head = "";
  let done = false;
  // Enough of the head to tell how to read it: its first lines (sniffFormat), or its first character
  // when the format is named (a JSONL format may come as one JSON array of its records).
  let kind: FormatId | "document" | "more" = "more";
  while (kind === "more") {
    if (format !== undefined && head.search(/\S/) !== -1) kind = format;
    else if (format === undefined) kind = sniffFormat(head, source, done);
    if (kind !== "more" || done) break;
    const next = await chunks.next();
    if (next.done === true) done = true;
    else head += next.value;
  }
  if (kind === "more") kind = format ?? "document";
  if (kind !== "document" && isLineFormat(kind) && !startsArray(head)) {
    const reader = lineReader(kind, source);
    const send = (steps: { runId: string; step: Step }[]) => {
      for (const { runId, step } of steps) sink.step(runId, reader.format, step);
    };
    let pending = head;
    let lineNumber = 0;
    const flushLines = (final: boolean) => {
      let start = 0;
      for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n", start)) {
        const line = pending.charCodeAt(end - 1) === 13 ? pending.slice(start, end - 1) : pending.slice(start, end);
        send(reader.line(line, ++lineNumber));
        start = end + 1;
      }
      pending = pending.slice(start);
      if (final && pending !== "") {
        send(reader.line(pending.endsWith("\r") ? pending.slice(0, -1) : pending, ++lineNumber));
        pending = "";
      }
    };
    flushLines(false);
    if (!done) {
      for await (const chunk of chunks) {
        pending += chunk;
        flushLines(false);
      }
    }
    flushLines(true);
    const last = reader.end();
    send(last.steps);
    sink.end(last.runs);
    return;
  }
  let text = head;
  if (!done) for await (const chunk of chunks) text += chunk;
  const trajectories = readWhole(text, kind === "document" ? undefined : kind, source);
  for (const trajectory of trajectories) for (const step of trajectory.steps) sink.step(trajectory.runId, trajectory.format, step);
  sink.end(trajectories.map(({ runId, format: f, meta }) => ({ runId, format: f, meta })));
}
