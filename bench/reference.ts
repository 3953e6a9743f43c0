/**
 * A straightforward plain-TypeScript loop guard, for the benchmark only (never shipped): the
 * reference detectors of docs/semantics.md (global_circuit_breaker, known_poll_no_progress,
 * ping_pong, generic_repeat, and the record-time forecast) over a bounded window per run, with
 * sorted-key JSON and node:crypto SHA-256 for the fingerprints, volatile keys dropped from outcomes
 * and text parts hashed on their own. It does the same work per call as the wasm core does for
 * the benchmark's workloads, so `npm run bench` can print a like-for-like speed ratio.
 */
import { createHash } from "node:crypto";

type Action = "allow" | "warn" | "block" | "stop";
type Level = "ok" | "warning" | "critical" | "circuit_break";

export interface RefVerdict {
  action: Action;
  level: Level;
  detector: string | null;
  count: number;
  tool: string;
  runId: string | null;
}

interface Call {
  runId?: string;
  tool: string;
  args?: unknown;
  callId?: string;
  result?: unknown;
  error?: unknown;
}

interface Entry {
  fp: string;
  callId: string | undefined;
  state: "pending" | "done" | "vetoed";
  outcome: string;
  sameOutcomeRun: number;
  noProgress: number;
  warnedAt: number;
}

interface Run {
  window: Entry[];
  seq: number;
  trailingVetoes: number;
}

interface Finding {
  detector: string;
  level: Level;
  count: number;
}

const VOLATILE = new Set([
  "durationMs", "duration", "elapsedMs", "tookMs", "pid", "startedAt", "endedAt", "createdAt",
  "updatedAt", "sentAt", "deliveredAt", "timestamp", "ts", "requestId", "traceId", "spanId",
  "messageId", "message_id", "receipt", "idempotencyKey", "runId", "sessionId", "cwd",
]);
const RANK: Record<Level, number> = { ok: 0, warning: 1, critical: 2, circuit_break: 3 };
const ACTION: Record<Level, Action> = { ok: "allow", warning: "warn", critical: "block", circuit_break: "stop" };

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}

/** JSON with object keys sorted; volatile keys dropped when `normalise`. */
function canonical(value: unknown, normalise: boolean): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, normalise)).join(",")}]`;
  const keys = Object.keys(value).filter((k) => !(normalise && VOLATILE.has(k))).sort();
  const obj = value as Record<string, unknown>;
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(obj[k], normalise)}`).join(",")}}`;
}

function outcomeDigest(result: unknown, error: unknown): string {
  if (error !== undefined) {
    const e = error as { name?: unknown; message?: unknown };
    return sha256(`error:${typeof error === "string" ? error : canonical({ name: e.name, message: e.message }, true)}`);
  }
  if (typeof result === "string") return sha256(`text:${sha256(result)}`);
  const content = (result as { content?: unknown } | null)?.content;
  if (Array.isArray(content)) {
    const parts = content.map((part: { type?: unknown; text?: unknown }) =>
      part.type === "text" && typeof part.text === "string" ? sha256(part.text) : sha256(canonical(part, true)),
    );
    parts.push(sha256(canonical((result as { details?: unknown }).details ?? null, true)));
    return sha256(`parts:${parts.join(",")}`);
  }
  return sha256(`json:${sha256(canonical(result ?? null, true))}`);
}

export class ReferenceGuard {
  readonly #runs = new Map<string | null, Run>();
  readonly #historySize = 30;
  readonly #warning = 10;
  readonly #critical = 20;
  readonly #global = 30;
  readonly #maxRuns: number;

  constructor(maxRuns = 100_000) {
    this.#maxRuns = maxRuns;
  }

  check(call: Call): RefVerdict {
    const run = this.#run(call.runId ?? null);
    const fp = this.#fingerprint(call);
    const found = this.#evaluate(run, fp, call.tool);
    let verdict = this.#verdict(found, call);
    const entry: Entry = { fp, callId: call.callId, state: "pending", outcome: "", sameOutcomeRun: 0, noProgress: 0, warnedAt: 0 };
    if (found?.level === "warning") {
      const last = this.#lastWarned(run, fp);
      if (last !== undefined && run.seq - last < this.#warning) verdict = this.#verdict(undefined, call);
      else entry.warnedAt = run.seq;
    }
    this.#push(run, entry);
    if (verdict.action === "block" || verdict.action === "stop") this.#settle(run, entry, "vetoed", "");
    return verdict;
  }

  record(outcome: Call): RefVerdict {
    const run = this.#run(outcome.runId ?? null);
    const fp = this.#fingerprint(outcome);
    const digest = outcomeDigest(outcome.result, outcome.error);
    let entry = run.window.findLast((e) => e.state === "pending" && e.fp === fp && (outcome.callId === undefined || e.callId === outcome.callId));
    if (entry === undefined) {
      entry = { fp, callId: outcome.callId, state: "pending", outcome: "", sameOutcomeRun: 0, noProgress: 0, warnedAt: 0 };
      this.#push(run, entry);
    }
    this.#settle(run, entry, "done", digest);
    const next = this.#evaluate(run, fp, outcome.tool);
    if (next !== undefined && RANK[next.level] >= RANK.critical) {
      return { ...this.#verdict(next, outcome), action: "warn", level: "warning" };
    }
    return this.#verdict(undefined, outcome);
  }

  #run(id: string | null): Run {
    let run = this.#runs.get(id);
    if (run === undefined) {
      run = { window: [], seq: 0, trailingVetoes: 0 };
      if (this.#runs.size >= this.#maxRuns) this.#runs.delete(this.#runs.keys().next().value as string | null);
    } else {
      this.#runs.delete(id);
    }
    this.#runs.set(id, run);
    return run;
  }

  #fingerprint(call: Call): string {
    return `${call.tool}\u0000${sha256(canonical(call.args ?? {}, false))}`;
  }

  #push(run: Run, entry: Entry): void {
    run.seq += 1;
    run.window.push(entry);
    if (run.window.length > this.#historySize) run.window.shift();
  }

  #settle(run: Run, entry: Entry, state: "done" | "vetoed", outcome: string): void {
    const index = run.window.indexOf(entry);
    let prev: Entry | undefined;
    let lastDone: Entry | undefined;
    for (let i = index - 1; i >= 0; i--) {
      const e = run.window[i]!;
      if (e.fp !== entry.fp || e.state === "pending") continue;
      prev ??= e;
      if (e.state === "done") {
        lastDone = e;
        break;
      }
    }
    entry.state = state;
    entry.outcome = outcome;
    if (state === "done") {
      entry.sameOutcomeRun = lastDone !== undefined && lastDone.outcome === outcome ? lastDone.sameOutcomeRun + 1 : 1;
      entry.noProgress = entry.sameOutcomeRun > 1 ? (prev?.noProgress ?? 0) + 1 : 1;
      run.trailingVetoes = 0;
    } else {
      entry.noProgress = (prev?.noProgress ?? 0) + 1;
      run.trailingVetoes += 1;
    }
  }

  #lastWarned(run: Run, fp: string): number | undefined {
    return run.window.findLast((e) => e.fp === fp && e.warnedAt > 0)?.warnedAt;
  }

  #evaluate(run: Run, fp: string, tool: string): Finding | undefined {
    const window = run.window;
    const prev = window.findLast((e) => e.fp === fp && e.state !== "pending");
    const lastDone = window.findLast((e) => e.fp === fp && e.state === "done");
    const findings: Finding[] = [];
    const noProgress = Math.max(prev?.noProgress ?? 0, run.trailingVetoes);
    if (noProgress >= this.#global) findings.push({ detector: "global_circuit_breaker", level: "circuit_break", count: noProgress });
    const same = lastDone?.sameOutcomeRun ?? 0;
    if (tool === "command_status") {
      if (same >= this.#warning) {
        findings.push({ detector: "known_poll_no_progress", level: same >= this.#critical ? "critical" : "warning", count: same });
      }
    } else {
      const seen = window.reduce((n, e) => n + (e.fp === fp ? 1 : 0), 0) + 1;
      if (same >= this.#critical) findings.push({ detector: "generic_repeat", level: "critical", count: same });
      else if (seen >= this.#warning) findings.push({ detector: "generic_repeat", level: "warning", count: seen });
    }
    const pingPong = this.#pingPong(window, fp);
    if (pingPong !== undefined) findings.push(pingPong);
    return findings.reduce<Finding | undefined>((best, f) => (best === undefined || RANK[f.level] > RANK[best.level] ? f : best), undefined);
  }

  #pingPong(window: Entry[], fp: string): Finding | undefined {
    const n = window.length;
    if (n < 3 || window[n - 2]!.fp !== fp || window[n - 1]!.fp === fp) return undefined;
    let tail = 2;
    while (tail < n && window[n - 1 - tail]!.fp === window[n - 1 - tail + 2]!.fp) tail += 1;
    const count = tail + 1;
    if (count < Math.max(this.#warning, 4)) return undefined;
    const sides = new Map<string, Set<string>>();
    for (const e of window.slice(n - tail)) {
      if (e.state !== "done") continue;
      const outcomes = sides.get(e.fp) ?? new Set<string>();
      outcomes.add(e.outcome);
      sides.set(e.fp, outcomes);
    }
    const stable = [...sides.values()].every((s) => s.size <= 1);
    return { detector: "ping_pong", level: count >= this.#critical && stable ? "critical" : "warning", count };
  }

  #verdict(found: Finding | undefined, call: Call): RefVerdict {
    const level = found?.level ?? "ok";
    return { action: ACTION[level], level, detector: found?.detector ?? null, count: found?.count ?? 0, tool: call.tool, runId: call.runId ?? null };
  }
}
