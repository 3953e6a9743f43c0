/**
 * Line-by-line reading of the JSONL formats (ours, Claude Code sessions, Codex rollouts), so a
 * host can stream files of any size: a LineReader takes one line at a time and hands over the
 * steps it completed; `end()` hands over the rest and every run's header with its final meta.
 */
import { parseJson, TrajectoryError } from "./errors.js";
import { StepQueue } from "./queue.js";
import type { FormatId, RunHeader, RunMeta, RunStep, Source, Step, Trajectory } from "./types.js";
import { isObject, type JsonObject } from "./values.js";

export interface LineReader {
  readonly format: FormatId;
  /** One line without its line break; `lineNumber` is 1-based. Returns the steps it completed. */
  line(text: string, lineNumber: number): RunStep[];
  /** End of input: the remaining steps, and the header of every run seen, in first-seen order. */
  end(): { steps: RunStep[]; runs: RunHeader[] };
}

/** A line's JSON object; blank lines give undefined; anything else that is not an object is bad input. */
export function lineObject(text: string, lineNumber: number, source: Source): JsonObject | undefined {
  if (text.trim() === "") return undefined;
  const value = parseJson(text, source.name, lineNumber);
  if (!isObject(value)) throw new TrajectoryError("the line is not a JSON object", source.name, lineNumber);
  return value;
}

/** The runs of one file: their headers in first-seen order and a step queue each. */
export class RunBook {
  readonly #format: FormatId;
  readonly #runs = new Map<string, { header: RunHeader; queue: StepQueue }>();

  constructor(format: FormatId) {
    this.#format = format;
  }

  #entry(runId: string) {
    let entry = this.#runs.get(runId);
    if (entry === undefined) {
      entry = { header: { runId, format: this.#format, meta: {} }, queue: new StepQueue() };
      this.#runs.set(runId, entry);
    }
    return entry;
  }

  /** The run's step queue (the run is created on first use). */
  queue(runId: string): StepQueue {
    return this.#entry(runId).queue;
  }

  /** Adds what the source says about the run; keys already set keep their first value unless `replace`. */
  meta(runId: string, meta: RunMeta, replace = false): void {
    const header = this.#entry(runId).header;
    for (const [key, value] of Object.entries(meta)) {
      if (value !== undefined && (replace || header.meta[key] === undefined)) header.meta[key] = value;
    }
  }

  /** The steps every run has ready. */
  ready(): RunStep[] {
    return this.#drain((queue) => queue.ready());
  }

  /** Every queued step and the run headers. */
  end(): { steps: RunStep[]; runs: RunHeader[] } {
    return { steps: this.#drain((queue) => queue.flush()), runs: [...this.#runs.values()].map((e) => e.header) };
  }

  #drain(take: (queue: StepQueue) => Step[]): RunStep[] {
    const out: RunStep[] = [];
    for (const [runId, { queue }] of this.#runs) for (const step of take(queue)) out.push({ runId, step });
    return out;
  }
}

/** Feeds `text` to `reader` line by line and assembles the runs (for hosts that hold the whole text). */
export function readAllLines(reader: LineReader, text: string): Trajectory[] {
  const steps: RunStep[] = [];
  let lineNumber = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    for (const step of reader.line(line, lineNumber)) steps.push(step);
    start = end + 1;
  }
  return assembleRuns(steps, reader.end());
}

/** The runs of a reader's steps and of what its `end()` handed over, in first-seen order. */
export function assembleRuns(steps: RunStep[], last: { steps: RunStep[]; runs: RunHeader[] }): Trajectory[] {
  const byRun = new Map<string, Trajectory>();
  for (const header of last.runs) byRun.set(header.runId, { ...header, steps: [] });
  for (const { runId, step } of [...steps, ...last.steps]) byRun.get(runId)?.steps.push(step);
  return [...byRun.values()];
}
