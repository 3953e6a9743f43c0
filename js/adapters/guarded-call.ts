/**
 * The one tool-call protocol every framework adapter follows, free of any framework: `check()`
 * before the tool runs, the tool only when the verdict lets it, `record()` of whatever it returned
 * or threw, and the hint of either verdict handed back for the model; and the one conversation
 * lifecycle (`RunNotes`): a stop ends that run, the next user message on the same run id starts a
 * new turn, `endRun` forgets everything. Adapters translate the outcome into their framework's own
 * veto, stop and message types; the texts they pass on are the core's verdict texts, never their own.
 */
import type { StopVerdict, ToolCall, ToolOutcome, Verdict } from "../types.js";

export type { StopVerdict };

/** What an adapter needs of a guard: any entry's `LoopGuard` (or a wrapper with the same methods). */
export interface CallGuard {
  check(call: ToolCall): Verdict;
  record(outcome: ToolOutcome): Verdict;
  progress(runId?: string, reason?: string): void;
  endRun(runId?: string): void;
}

/** The `progress()` reason an adapter gives when a new user message begins a turn of a run. */
export const USER_TURN = "user_turn";

/**
 * The tool ran: its result (or what it threw), the verdict of its record and the hint for the
 * model, if either verdict warned.
 */
export interface Ran<R> {
  kind: "ran";
  result?: R;
  threw: boolean;
  error?: unknown;
  recorded?: Verdict;
  hint?: string;
}

/** The guard refused the call (`block`) or ended the run (`stop`); the tool did not run. */
export interface Refused {
  kind: "refused";
  verdict: Verdict & { action: "block" | "stop" };
  /** `verdict.refusal`: what the model receives as the tool result. */
  refusal: NonNullable<Verdict["refusal"]>;
}

export type GuardedOutcome<R> = Ran<R> | Refused;

function isRefusal(verdict: Verdict): verdict is Verdict & { action: "block" | "stop" } {
  return verdict.action === "block" || verdict.action === "stop";
}

/**
 * Checks `call`, runs `execute` only when allowed, records its outcome under the same `callId`.
 * Never throws for the tool: a tool's exception comes back as `threw` (after being recorded).
 */
export async function guardedCall<R>(guard: CallGuard, call: ToolCall, execute: () => R | PromiseLike<R>): Promise<GuardedOutcome<R>> {
  const before = guard.check(call);
  // The core sets `refusal` on every `block` and `stop` verdict.
  if (isRefusal(before)) return { kind: "refused", verdict: before, refusal: before.refusal! };
  let outcome: Ran<R>;
  try {
    outcome = { kind: "ran", result: await execute(), threw: false };
  } catch (error) {
    outcome = { kind: "ran", threw: true, error };
  }
  // The args go with the record although the default engine finds the call by its callId: the
  // `openclaw` preset identifies a record's call (and reads its outcome) by its args.
  const after = guard.record(outcome.threw ? { ...call, error: outcome.error } : { ...call, result: outcome.result });
  outcome.recorded = after;
  const hint = after.hint ?? before.hint;
  if (hint !== undefined) outcome.hint = hint;
  return outcome;
}

/** The refusal as the text a framework shows the model where a tool result must be a string. */
export function refusalText(refusal: NonNullable<Verdict["refusal"]>): string {
  return JSON.stringify(refusal);
}

/**
 * Per-run memory an adapter keeps between the tool boundary and the framework's step hooks: the
 * hints waiting for the model's next turn and the verdict that stopped the run. A stop lasts until
 * the next user message on the run (`newTurn`) or `endRun`, never longer.
 */
export class RunNotes {
  readonly #hints = new Map<string, string[]>();
  readonly #stops = new Map<string, StopVerdict>();

  constructor(readonly guard: CallGuard) {}

  addHint(runId: string | undefined, hint: string): void {
    const key = runId ?? "";
    const list = this.#hints.get(key);
    if (list === undefined) this.#hints.set(key, [hint]);
    else if (!list.includes(hint)) list.push(hint);
  }

  /** The hints for the run's next model turn, removed from the notes. */
  takeHints(runId: string | undefined): string[] {
    const key = runId ?? "";
    const list = this.#hints.get(key) ?? [];
    this.#hints.delete(key);
    return list;
  }

  /** Notes a `stop` verdict (the first of the turn is kept); other verdicts are ignored. */
  noteStop(runId: string | undefined, verdict: Verdict): void {
    const key = runId ?? "";
    if (verdict.action === "stop" && !this.#stops.has(key)) this.#stops.set(key, verdict);
  }

  /** The `stop` verdict that ended the run's current turn, if one did. */
  stopped(runId: string | undefined): StopVerdict | undefined {
    return this.#stops.get(runId ?? "");
  }

  /**
   * A new user message on the run: the last turn's stop and pending hints are forgotten, and the
   * guard is told (`progress(runId, "user_turn")`), so the conversation goes on from a clean turn.
   */
  newTurn(runId: string | undefined): void {
    this.#forget(runId);
    this.guard.progress(runId, USER_TURN);
  }

  /** The conversation is over: the notes and the guard's run are forgotten. */
  endRun(runId: string | undefined): void {
    this.#forget(runId);
    this.guard.endRun(runId);
  }

  #forget(runId: string | undefined): void {
    this.#hints.delete(runId ?? "");
    this.#stops.delete(runId ?? "");
  }
}
