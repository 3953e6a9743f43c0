/**
 * This project's JSONL: one JSON object per line. A call with its outcome:
 * `{runId?, tool, args?, result? | error?, at?, callId?}`; events: `{runId?, event: "compaction"}`,
 * `{runId?, event: "progress", reason?}`; and `{event: "run", runId, meta}`, which says what the
 * source knows about a run (written by `convert`). Lines without a runId belong to one run named
 * after the file.
 */
import { TrajectoryError } from "../errors.js";
import { type LineReader, lineObject, RunBook } from "../lines.js";
import type { CallStep, RunMeta, RunStep, Source } from "../types.js";
import { isObject, type JsonObject, nameAt, stemOf } from "../values.js";

/** A line of this format (a call with a tool name, or an event). */
export function isJsonlRecord(line: JsonObject): boolean {
  return typeof line.tool === "string" || line.event === "compaction" || line.event === "progress" || line.event === "run";
}

export class JsonlReader implements LineReader {
  readonly format = "jsonl";
  readonly #source: Source;
  readonly #book = new RunBook("jsonl");
  readonly #defaultRun: string;

  constructor(source: Source) {
    this.#source = source;
    this.#defaultRun = stemOf(source.name);
  }

  line(text: string, lineNumber: number): RunStep[] {
    const line = lineObject(text, lineNumber, this.#source);
    if (line === undefined) return [];
    const file = this.#source.name;
    const fail = (reason: string): never => {
      throw new TrajectoryError(reason, file, lineNumber);
    };
    if (line.runId !== undefined && typeof line.runId !== "string") fail("runId is not a string");
    const runId = (line.runId as string | undefined) ?? this.#defaultRun;
    const queue = this.#book.queue(runId);
    if (line.event !== undefined) {
      if (line.event === "run") {
        if (line.meta !== undefined && !isObject(line.meta)) fail("the meta of a run line is not an object");
        this.#book.meta(runId, (line.meta ?? {}) as RunMeta, true);
      } else if (line.event === "compaction") {
        queue.event({ event: "compaction" });
      } else if (line.event === "progress") {
        if (line.reason !== undefined && typeof line.reason !== "string") fail("the reason of a progress event is not a string");
        queue.event(line.reason === undefined ? { event: "progress" } : { event: "progress", reason: line.reason as string });
      } else {
        fail(`unknown event ${JSON.stringify(line.event)} (expected "compaction", "progress" or "run")`);
      }
      return this.#book.ready();
    }
    if (line.tool === undefined) fail("the line is neither a call (no tool) nor an event");
    const step: CallStep = { tool: nameAt(line.tool, "tool", file, lineNumber) };
    if (line.args !== undefined) step.args = line.args;
    if (line.result !== undefined) step.result = line.result;
    if (line.error !== undefined) step.error = line.error;
    if (line.at !== undefined) {
      if (typeof line.at !== "number" || !Number.isFinite(line.at)) fail("at is not a number of milliseconds");
      step.at = line.at as number;
    }
    if (line.callId !== undefined) {
      if (typeof line.callId !== "string") fail("callId is not a string");
      step.callId = line.callId as string;
    }
    queue.done(step);
    return this.#book.ready();
  }

  end() {
    return this.#book.end();
  }
}
