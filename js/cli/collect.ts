/**
 * RunSinks of the CLI. ReplaySink replays every run of one input as its steps arrive (a RunReplay
 * per run; the guard's run id is made unique per input so equal run ids in two files never meet)
 * and, at the end of the input, holds the reports in the order the runs first appeared.
 * TrajectorySink keeps the runs themselves (for sweeps and conversion).
 */
import { LoopGuardError } from "../errors.js";
import type { FormatId, ReplayGuard, RunHeader, RunReport, Step, Trajectory } from "../replay/index.js";
import { RunReplay, TrajectoryError } from "../replay/index.js";
import type { RunSink } from "./input.js";

/** A record the guard refuses as input (too large, too deep) is bad input of the file. */
export function guardInputError(error: unknown, file: string, runId: string): unknown {
  if (!(error instanceof LoopGuardError) || error.code === "internal") return error;
  return new TrajectoryError(`run ${runId}: the guard refused the record (${error.code}): ${error.message}`, file);
}

export class ReplaySink implements RunSink {
  readonly #guard: ReplayGuard;
  readonly #file: string;
  readonly #inputIndex: number;
  readonly #timeline: boolean;
  readonly #runs = new Map<string, RunReplay>();
  reports: RunReport[] = [];

  constructor(guard: ReplayGuard, file: string, inputIndex: number, timeline: boolean) {
    this.#guard = guard;
    this.#file = file;
    this.#inputIndex = inputIndex;
    this.#timeline = timeline;
  }

  #replay(header: RunHeader): RunReplay {
    let run = this.#runs.get(header.runId);
    if (run === undefined) {
      run = new RunReplay(this.#guard, header, { timeline: this.#timeline, guardRunId: `${this.#inputIndex}:${header.runId}` });
      this.#runs.set(header.runId, run);
    }
    return run;
  }

  step(runId: string, format: FormatId, step: Step): void {
    try {
      this.#replay({ runId, format, meta: {} }).step(step);
    } catch (error) {
      throw guardInputError(error, this.#file, runId);
    }
  }

  end(runs: RunHeader[]): void {
    this.reports = runs.map((header) => this.#replay(header).finish(header.meta));
  }

  /** Ends every run in the guard (after bad input, so a failed input leaves nothing behind). */
  abandon(): void {
    for (const run of this.#runs.values()) run.finish();
  }
}

export class TrajectorySink implements RunSink {
  readonly #steps = new Map<string, Step[]>();
  trajectories: Trajectory[] = [];

  step(runId: string, _format: FormatId, step: Step): void {
    const steps = this.#steps.get(runId) ?? [];
    steps.push(step);
    this.#steps.set(runId, steps);
  }

  end(runs: RunHeader[]): void {
    this.trajectories = runs.map((header) => ({ ...header, steps: this.#steps.get(header.runId) ?? [] }));
  }
}
