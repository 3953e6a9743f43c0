/**
 * The replay engine: drives a LoopGuard over a trajectory the way a gateway would. Before each
 * call `check`; on `block` the call is not run (its real result is kept aside only to judge the
 * refusal), on `stop` the run ends; otherwise `record` the real outcome. Compaction and progress
 * events go to `compacted` and `progress`. It reads verdicts only: no threshold, rule or text
 * lives here.
 *
 * A refusal (a `block`, or the call at which a `stop` ends the run) is costless when the same call
 * (tool and canonical arguments) ran before in the run and the refused call's real result (from
 * the trajectory) is the result that call returned last time: refusing it withheld nothing the
 * agent had not seen. A call never made before asks a new question, so refusing it withheld
 * information even when its answer matches other calls' answers. Calls and results are compared
 * by the core's own fingerprints (`guard.fingerprint`), so volatile keys and ignored fields count
 * as the guard counts them. The same test sorts every call not run (refused, or after a stop):
 * the summary's `saved` counts those that would only have repeated a result, not the others.
 *
 * Time: a call replays at its `at`; a call without one `PACE_MS` after the call before it (the
 * first at 0), the pace of a model's turn, so replays are deterministic and a retry after a
 * transient failure waits as long as a real one would.
 */
import { LEVELS } from "../names.js";
import type { Fingerprints, ToolCall, ToolOutcome, Verdict } from "../types.js";
import { shortArgs } from "./display.js";
import type { CallStep, FormatId, RunHeader, RunMeta, Step } from "./types.js";

/** What the engine uses of a LoopGuard; the class of every entry of the package has it. */
export interface ReplayGuard {
  check(call: ToolCall): Verdict;
  record(outcome: ToolOutcome): Verdict;
  compacted(runId?: string): void;
  progress(runId?: string, reason?: string): void;
  endRun(runId?: string): void;
  fingerprint(record: ToolOutcome): Fingerprints;
}

/** The facts of a verdict a timeline keeps. */
export interface VerdictBrief {
  action: Verdict["action"];
  level: Verdict["level"];
  detector: string | null;
  count: number;
  /** The wait the verdict advises before the next try (a transient failure), when it gives one. */
  retryAfterMs?: number;
}

export type RefusalCost = "withheld" | "costless";

/** One call of the replayed run. */
export interface TimelineRow {
  /** 1-based number of the call in the run. */
  index: number;
  tool: string;
  /** The arguments on one short line. */
  args: string;
  check: VerdictBrief;
  /** The verdict of `record`; null when the call was refused and not run. */
  record: VerdictBrief | null;
  /** The detector and count of the more severe of the two verdicts (check on a tie); null when neither names one. */
  detector: string | null;
  count: number;
  /** Which verdict `detector` and `count` are from: `check` (before the call) or `record` (after its result). */
  from: "check" | "record";
  /** The trajectory recorded an error for this call. */
  failed: boolean;
  /** For a refused call: whether the refusal withheld information or cost nothing. */
  cost?: RefusalCost;
  /** The call id of the earlier call whose identical result this call's result repeats (`sameAs`). */
  sameAs?: string;
}

/** A compaction or progress event between calls. */
export interface TimelineEvent {
  event: "compaction" | "progress";
  /** Calls before it. */
  after: number;
}

export interface Refusal {
  index: number;
  tool: string;
  action: "block" | "stop";
  detector: string | null;
  count: number;
  cost: RefusalCost;
}

export interface RunSummary {
  /** Calls in the trajectory. */
  calls: number;
  /** Calls the guard let run. */
  ran: number;
  /** Calls not run: refused, or after the run was stopped. */
  notRun: number;
  /** Of the calls not run, those that would only have repeated a result (the costless test). */
  saved: number;
  firstWarning: number | null;
  firstRefusal: number | null;
  /** The call at which the guard stopped the run. */
  stoppedAt: number | null;
  refusals: Refusal[];
  withheld: number;
  costless: number;
  compactions: number;
  /** UTF-8 bytes of the results of the calls that ran. */
  resultBytes: number;
  /**
   * Of them, the bytes of results the guard's records said repeat an earlier identical result of
   * the same call still in its window (`sameAs`, when the guard was built with `sameAs: true`): a
   * host that drops such repeats from the model's context would not resend them.
   */
  notResent: number;
  /** The first hint and refusal message the guard wrote for the model (texts of the core). */
  firstHint: string | null;
  firstRefusalMessage: string | null;
}

export interface RunReport {
  runId: string;
  format: FormatId;
  meta: RunMeta;
  summary: RunSummary;
  /** Present when the replay kept a timeline. */
  timeline?: (TimelineRow | TimelineEvent)[];
}

export interface ReplayOptions {
  /** Keep a timeline row per call (default true). */
  timeline?: boolean;
  /** The run id the guard sees (default: the trajectory's). */
  guardRunId?: string;
}

/** The time between two calls of a run that has no timestamps: a model's turn. */
export const PACE_MS = 5000;

/** The UTF-8 bytes of an outcome as a model would read it: a text as it is, anything else as JSON. */
function outcomeBytes(outcome: { result?: unknown; error?: unknown }): number {
  const value = "error" in outcome ? outcome.error : outcome.result;
  return utf8Length(typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
}

/**
 * The length of `text` in UTF-8 (a lone surrogate as U+FFFD, 3 bytes, as an encoder writes it),
 * counted without `TextEncoder`, which the runtime-neutral library does not assume.
 */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function brief(verdict: Verdict): VerdictBrief {
  const shown: VerdictBrief = { action: verdict.action, level: verdict.level, detector: verdict.detector, count: verdict.count };
  if (verdict.retryAfterMs !== undefined) shown.retryAfterMs = verdict.retryAfterMs;
  return shown;
}

/** The outcome keys of a step, as a record carries them. */
function outcomeOf(step: CallStep): { result?: unknown; error?: unknown } {
  const outcome: { result?: unknown; error?: unknown } = {};
  if (step.error !== undefined) outcome.error = step.error;
  else if ("result" in step) outcome.result = step.result;
  return outcome;
}

/** One run being replayed: feed its steps in order, then `finish()`. */
export class RunReplay {
  readonly #guard: ReplayGuard;
  readonly #header: RunHeader;
  readonly #guardRunId: string;
  readonly #timeline: (TimelineRow | TimelineEvent)[] | undefined;
  /** Per call (tool and argument fingerprint), the outcome fingerprint it returned last time it ran. */
  readonly #returned = new Map<string, string>();
  readonly #summary: RunSummary = {
    calls: 0,
    ran: 0,
    notRun: 0,
    saved: 0,
    firstWarning: null,
    firstRefusal: null,
    stoppedAt: null,
    refusals: [],
    withheld: 0,
    costless: 0,
    compactions: 0,
    resultBytes: 0,
    notResent: 0,
    firstHint: null,
    firstRefusalMessage: null,
  };
  /** When the next call without a timestamp is made; the first at 0. */
  #clock = -PACE_MS;
  #finished = false;

  constructor(guard: ReplayGuard, header: RunHeader, options: ReplayOptions = {}) {
    this.#guard = guard;
    this.#header = header;
    this.#guardRunId = options.guardRunId ?? header.runId;
    this.#timeline = options.timeline === false ? undefined : [];
  }

  get stopped(): boolean {
    return this.#summary.stoppedAt !== null;
  }

  /** Replays one step; returns its timeline entry (none after the run was stopped). */
  step(step: Step): TimelineRow | TimelineEvent | undefined {
    if (this.#finished) throw new Error(`run ${this.#header.runId} was already finished`);
    if ("event" in step) return this.#event(step.event, step.event === "progress" ? step.reason : undefined);
    const summary = this.#summary;
    summary.calls++;
    const outcome = outcomeOf(step);
    if (this.stopped) {
      if (this.#vetoCost(step, outcome) === "costless") summary.saved++;
      return undefined;
    }
    const index = summary.calls;
    this.#clock = step.at ?? this.#clock + PACE_MS;
    const call: ToolCall = { runId: this.#guardRunId, tool: step.tool, at: this.#clock };
    if (step.args !== undefined) call.args = step.args;
    // Every call gets an id, so that a record's `sameAs` can name the call it repeats.
    call.callId = step.callId ?? `call-${index}`;
    const checked = this.#guard.check(call);
    this.#note(checked, index);
    let recorded: Verdict | undefined;
    let cost: RefusalCost | undefined;
    if (checked.action === "block" || checked.action === "stop") {
      cost = this.#vetoCost(step, outcome);
      if (cost === "costless") summary.saved++;
      summary.refusals.push({ index, tool: step.tool, action: checked.action, detector: checked.detector, count: checked.count, cost });
      summary[cost]++;
      summary.firstRefusal ??= index;
      summary.firstRefusalMessage ??= checked.refusal?.message ?? checked.message;
      if (checked.action === "stop") summary.stoppedAt = index;
    } else {
      recorded = this.#guard.record({ ...call, ...outcome });
      this.#note(recorded, index);
      summary.ran++;
      const bytes = outcomeBytes(outcome);
      summary.resultBytes += bytes;
      if (recorded.sameAs !== undefined) summary.notResent += bytes;
      const fingerprints = this.#fingerprints(step, outcome);
      if (fingerprints.outcome !== null) this.#returned.set(fingerprints.call, fingerprints.outcome);
    }
    const worst = recorded !== undefined && LEVELS.indexOf(recorded.level) > LEVELS.indexOf(checked.level) ? recorded : checked;
    const row: TimelineRow = {
      index,
      tool: step.tool,
      args: shortArgs(step.args),
      check: brief(checked),
      record: recorded === undefined ? null : brief(recorded),
      detector: worst.detector,
      count: worst.count,
      from: worst === checked ? "check" : "record",
      failed: step.error !== undefined,
      ...(cost === undefined ? {} : { cost }),
      ...(recorded?.sameAs === undefined ? {} : { sameAs: recorded.sameAs }),
    };
    this.#timeline?.push(row);
    return row;
  }

  /** Ends the run in the guard and reports it (with `meta` when the reader's meta came later). */
  finish(meta: RunMeta = this.#header.meta): RunReport {
    if (!this.#finished) {
      this.#finished = true;
      this.#guard.endRun(this.#guardRunId);
      this.#summary.notRun = this.#summary.calls - this.#summary.ran;
    }
    const report: RunReport = { runId: this.#header.runId, format: this.#header.format, meta, summary: this.#summary };
    if (this.#timeline !== undefined) report.timeline = this.#timeline;
    return report;
  }

  #event(event: "compaction" | "progress", reason: string | undefined): TimelineEvent | undefined {
    if (this.stopped) return undefined;
    if (event === "compaction") {
      this.#guard.compacted(this.#guardRunId);
      this.#summary.compactions++;
    } else {
      this.#guard.progress(this.#guardRunId, reason);
    }
    const entry: TimelineEvent = { event, after: this.#summary.calls };
    this.#timeline?.push(entry);
    return entry;
  }

  #note(verdict: Verdict, index: number): void {
    if (verdict.action !== "warn") return;
    this.#summary.firstWarning ??= index;
    this.#summary.firstHint ??= verdict.hint ?? verdict.message;
  }

  /** The core's fingerprints of a call (tool and arguments) and of its real outcome (null when the trajectory recorded none). */
  #fingerprints(step: CallStep, outcome: { result?: unknown; error?: unknown }): { call: string; outcome: string | null } {
    const fingerprints = this.#guard.fingerprint({ tool: step.tool, args: step.args, ...outcome });
    return { call: `${step.tool}\u0000${fingerprints.args}`, outcome: fingerprints.outcome };
  }

  /** Costless when the same call ran before and its real result is the one that call returned last time. */
  #vetoCost(step: CallStep, outcome: { result?: unknown; error?: unknown }): RefusalCost {
    const real = this.#fingerprints(step, outcome);
    return real.outcome !== null && this.#returned.get(real.call) === real.outcome ? "costless" : "withheld";
  }
}

/** Replays a whole trajectory (one run) and reports it. */
export function replayTrajectory(guard: ReplayGuard, trajectory: { runId: string; format: FormatId; meta: RunMeta; steps: Step[] }, options: ReplayOptions = {}): RunReport {
  const run = new RunReplay(guard, trajectory, options);
  for (const step of trajectory.steps) run.step(step);
  return run.finish();
}

/** Sums of run summaries. */
export interface ReplayTotals {
  runs: number;
  calls: number;
  ran: number;
  notRun: number;
  saved: number;
  resultBytes: number;
  notResent: number;
  runsWarned: number;
  runsRefused: number;
  runsStopped: number;
  refusals: number;
  withheld: number;
  costless: number;
}

export function emptyTotals(): ReplayTotals {
  return { runs: 0, calls: 0, ran: 0, notRun: 0, saved: 0, resultBytes: 0, notResent: 0, runsWarned: 0, runsRefused: 0, runsStopped: 0, refusals: 0, withheld: 0, costless: 0 };
}

/** Adds one run's summary to `totals` (and returns it). */
export function addToTotals(totals: ReplayTotals, summary: RunSummary): ReplayTotals {
  totals.runs++;
  totals.calls += summary.calls;
  totals.ran += summary.ran;
  totals.notRun += summary.notRun;
  totals.saved += summary.saved;
  totals.resultBytes += summary.resultBytes;
  totals.notResent += summary.notResent;
  if (summary.firstWarning !== null) totals.runsWarned++;
  if (summary.refusals.length > 0) totals.runsRefused++;
  if (summary.stoppedAt !== null) totals.runsStopped++;
  totals.refusals += summary.refusals.length;
  totals.withheld += summary.withheld;
  totals.costless += summary.costless;
  return totals;
}
