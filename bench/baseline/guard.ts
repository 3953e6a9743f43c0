/**
 * BaselineGuard: the plain-TypeScript implementation of the guard that bench/run.mjs measures the
 * wasm package against. Same API shape (check before a call, record after it), the defaults of
 * docs/semantics.md, SHA-256 from node:crypto. Not shipped; post-compaction, host progress, caps,
 * max turns, presets, policies and snapshots are left out because the benchmark workloads never
 * use them.
 */
import { sha256Hex, stableStringify } from "./canonical.js";
import { decide, type Finding, type Level, RANK, type Thresholds } from "./detectors.js";
import { digestOutcome } from "./outcome.js";
import { toolKind } from "./tools.js";
import { type Proposal, Run } from "./window.js";

export interface BaselineConfig extends Thresholds {
  historySize: number;
  maxRuns: number;
}

// ToolCall, ToolOutcome and Verdict restate the package's types (js/types.ts) on purpose: the
// baseline stands alone (its tsconfig compiles this folder only) as the guard a user could write
// without the package, and the bench feeds both guards the same calls and compares their verdicts.
export interface ToolCall {
  runId?: string;
  tool: string;
  args?: unknown;
  callId?: string;
  at?: number;
}

export interface ToolOutcome extends ToolCall {
  result?: unknown;
  error?: unknown;
}

export interface Verdict {
  action: "allow" | "warn" | "block" | "stop";
  level: Level;
  detector: string | null;
  count: number;
  threshold: number | null;
  tool: string;
  runId: string | null;
  message: string | null;
  hint?: string;
  refusal?: { error: "tool_loop_detected"; mode: string; message: string; observed: object };
}

const DEFAULTS: BaselineConfig = {
  historySize: 30,
  warningThreshold: 10,
  criticalThreshold: 20,
  globalCircuitBreakerThreshold: 30,
  unknownToolThreshold: 10,
  maxCyclePeriod: 8,
  patientPollMs: 30_000,
  pollBudgetMs: 7_200_000,
  maxRuns: 100_000,
};

const ACTIONS: Record<Level, Verdict["action"]> = { ok: "allow", warning: "warn", critical: "block", circuit_break: "stop" };

function message(finding: Finding, tool: string): string {
  return (
    `Tool loop detected (${finding.detector}): ${tool} was called ${finding.count} times ` +
    `without progress (threshold ${finding.threshold}). Change the arguments or the approach.`
  );
}

export class BaselineGuard {
  readonly #config: BaselineConfig;
  readonly #runs = new Map<string | null, Run>();

  constructor(config: Partial<BaselineConfig> = {}) {
    this.#config = { ...DEFAULTS, ...config };
  }

  /** Before dispatch: may the call run? */
  check(call: ToolCall): Verdict {
    const run = this.#run(call.runId);
    const proposal = this.#proposal(call);
    const finding = decide(run, proposal, this.#config);
    const verdict = this.#verdict(finding, call.tool, run.id);
    const refused = verdict.action === "block" || verdict.action === "stop";
    const record = run.append(proposal, call.callId, refused ? "vetoed" : "pending");
    if (verdict.action === "warn") record.warned = finding!.detector;
    return verdict;
  }

  /** After the tool returned or threw: attaches the outcome and forecasts an identical next call. */
  record(outcome: ToolOutcome): Verdict {
    const run = this.#run(outcome.runId);
    let record = outcome.callId === undefined ? undefined : run.pendingById(outcome.callId);
    if (record === undefined) {
      const proposal = this.#proposal(outcome);
      record = run.newestPending(proposal.key) ?? run.append(proposal, outcome.callId, "pending");
    }
    run.complete(record, digestOutcome(outcome.tool, outcome.args, outcome.result, outcome.error));
    const identical = { tool: record.tool, argsDigest: record.argsDigest, key: record.key, kind: record.kind, at: outcome.at ?? Date.now() };
    const next = decide(run, identical, this.#config);
    if (next === null || RANK[next.level] < RANK.critical) return this.#verdict(null, outcome.tool, run.id);
    const hint = `${message(next, outcome.tool)} The identical call will be refused.`;
    return { ...this.#verdict({ ...next, level: "warning" }, outcome.tool, run.id), hint };
  }

  /** Forgets the run. */
  endRun(runId?: string): void {
    this.#runs.delete(runId ?? null);
  }

  #run(runId: string | undefined): Run {
    const id = runId ?? null;
    let run = this.#runs.get(id);
    if (run === undefined) {
      run = new Run(id, this.#config.historySize);
      this.#runs.set(id, run);
      if (this.#runs.size > this.#config.maxRuns) this.#runs.delete(this.#runs.keys().next().value!);
    }
    return run;
  }

  #proposal(call: ToolCall): Proposal {
    const argsDigest = sha256Hex(stableStringify(call.args ?? {}));
    return { tool: call.tool, argsDigest, key: call.tool + "\u0000" + argsDigest, kind: toolKind(call.tool, call.args), at: call.at ?? Date.now() };
  }

  #verdict(finding: Finding | null, tool: string, runId: string | null): Verdict {
    if (finding === null) {
      return { action: "allow", level: "ok", detector: null, count: 0, threshold: null, tool, runId, message: null };
    }
    const action = ACTIONS[finding.level];
    const text = message(finding, tool);
    const verdict: Verdict = { action, level: finding.level, detector: finding.detector, count: finding.count, threshold: finding.threshold, tool, runId, message: text };
    if (action === "warn") verdict.hint = text;
    if (action === "block" || action === "stop") {
      verdict.refusal = { error: "tool_loop_detected", mode: finding.detector, message: text, observed: { count: finding.count, threshold: finding.threshold } };
    }
    return verdict;
  }
}
