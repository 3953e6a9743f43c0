/**
 * Baseline guard: the detectors of docs/semantics.md in their straightforward form. Each detector
 * scans the run's window on its own; `decide` keeps the most severe finding (ties go to table
 * order) and, among warnings, the first one that is due again.
 */
import type { CallRecord, Proposal, Run } from "./window.js";

export type DetectorId =
  | "global_circuit_breaker"
  | "unknown_tool_repeat"
  | "known_poll_no_progress"
  | "ping_pong"
  | "cycle"
  | "error_repeat"
  | "stall"
  | "generic_repeat";

export type Level = "ok" | "warning" | "critical" | "circuit_break";

export interface Finding {
  detector: DetectorId;
  level: Level;
  count: number;
  threshold: number;
}

export interface Thresholds {
  warningThreshold: number;
  criticalThreshold: number;
  globalCircuitBreakerThreshold: number;
  unknownToolThreshold: number;
  maxCyclePeriod: number;
  patientPollMs: number;
  pollBudgetMs: number;
}

export const RANK: Record<Level, number> = { ok: 0, warning: 1, critical: 2, circuit_break: 3 };

type Detector = (run: Run, call: Proposal, t: Thresholds) => Finding | null;

/** Records of the proposed call, newest first. */
function sameCall(run: Run, call: Proposal): CallRecord[] {
  return run.records.filter((r) => r.key === call.key).reverse();
}

function lastDone(run: Run, call: Proposal): CallRecord | undefined {
  return run.records.findLast((r) => r.key === call.key && r.state === "done");
}

function thresholdFinding(detector: DetectorId, count: number, warning: number, critical: number): Finding | null {
  if (count >= critical) return { detector, level: "critical", count, threshold: critical };
  if (count >= warning) return { detector, level: "warning", count, threshold: warning };
  return null;
}

/** The newest completed records of the proposed tool (any args) sharing the newest one's outcome. */
function toolOutcomeStreak(run: Run, call: Proposal): CallRecord[] {
  const done = run.records.filter((r) => r.tool === call.tool && r.state === "done").reverse();
  const streak: CallRecord[] = [];
  for (const record of done) {
    if (streak.length > 0 && record.outcome !== streak[0]!.outcome) break;
    streak.push(record);
  }
  return streak;
}

/** Patient polling: intervals of at least 1 s that are slow or back off, within the poll budget. */
function pollingPatiently(run: Run, call: Proposal, t: Thresholds): boolean {
  const newest = lastDone(run, call);
  if (newest === undefined) return false;
  const times: number[] = [];
  for (const record of sameCall(run, call)) {
    if (record.state !== "done") continue;
    if (record.outcome !== newest.outcome) break;
    times.unshift(record.at);
  }
  times.push(call.at);
  if (call.at - times[0]! >= t.pollBudgetMs) return false;
  for (let i = 2; i < times.length; i++) {
    const previous = times[i - 1]! - times[i - 2]!;
    const current = times[i]! - times[i - 1]!;
    if (current < 1000 || (current < t.patientPollMs && current < previous * 1.5)) return false;
  }
  return true;
}

interface Pattern {
  period: number;
  tail: CallRecord[];
  count: number;
}

/** The smallest period whose repeating window tail the proposed call continues for two laps. */
function shortestPattern(run: Run, call: Proposal, maxPeriod: number): Pattern | null {
  const records = run.records;
  const n = records.length;
  for (let period = 1; period <= Math.min(maxPeriod, n); period++) {
    if (records[n - period]!.key !== call.key) continue;
    let start = n - period;
    while (start > 0 && records[start - 1]!.key === records[start - 1 + period]!.key) start--;
    const count = n - start + 1;
    if (count >= 2 * period) return { period, tail: records.slice(start), count };
  }
  return null;
}

/** Every position of the pattern has completed records and they share one outcome. */
function lapsAreStable(tail: CallRecord[], period: number): boolean {
  for (let position = 0; position < period; position++) {
    const outcomes = new Set<string | null>();
    for (let i = position; i < tail.length; i += period) if (tail[i]!.state === "done") outcomes.add(tail[i]!.outcome);
    if (outcomes.size !== 1) return false;
  }
  return true;
}

function periodicFinding(detector: DetectorId, pattern: Pattern, t: Thresholds): Finding | null {
  const { period, tail, count } = pattern;
  const warning = Math.max(t.warningThreshold, 2 * period);
  if (count >= t.criticalThreshold && lapsAreStable(tail, period)) {
    return { detector, level: "critical", count, threshold: t.criticalThreshold };
  }
  return count >= warning ? { detector, level: "warning", count, threshold: warning } : null;
}

const globalCircuitBreaker: Detector = (run, call, t) => {
  const previous = sameCall(run, call).find((r) => r.state !== "pending");
  const count = Math.max(previous?.noProgress ?? 0, run.trailingVetoes);
  const threshold = t.globalCircuitBreakerThreshold;
  if (count < threshold) return null;
  const patient = call.kind === "poll" && run.trailingVetoes < threshold && pollingPatiently(run, call, t);
  return patient ? null : { detector: "global_circuit_breaker", level: "circuit_break", count, threshold };
};

const unknownToolRepeat: Detector = (run, call, t) => {
  let count = 0;
  let reported = false;
  for (const record of run.records) {
    if (record.tool !== call.tool) continue;
    if (record.missingTool) {
      reported = true;
      count++;
    } else if (reported && record.state === "vetoed") {
      count++;
    }
  }
  const threshold = t.unknownToolThreshold;
  return reported && count >= threshold ? { detector: "unknown_tool_repeat", level: "critical", count, threshold } : null;
};

const knownPollNoProgress: Detector = (run, call, t) => {
  if (call.kind !== "poll") return null;
  const done = lastDone(run, call);
  if (done === undefined) return null;
  const patient = done.sameOutcomeRun >= t.criticalThreshold && pollingPatiently(run, call, t);
  const critical = patient ? Infinity : t.criticalThreshold;
  return thresholdFinding("known_poll_no_progress", done.sameOutcomeRun, t.warningThreshold, critical);
};

const pingPong: Detector = (run, call, t) => {
  const pattern = shortestPattern(run, call, 2);
  return pattern?.period === 2 ? periodicFinding("ping_pong", pattern, t) : null;
};

const cycle: Detector = (run, call, t) => {
  const pattern = shortestPattern(run, call, t.maxCyclePeriod);
  return pattern !== null && pattern.period >= 3 ? periodicFinding("cycle", pattern, t) : null;
};

const errorRepeat: Detector = (run, call, t) => {
  const streak = toolOutcomeStreak(run, call);
  if (streak.length === 0 || !streak[0]!.isError) return null;
  return thresholdFinding("error_repeat", streak.length, t.warningThreshold, t.criticalThreshold);
};

const stall: Detector = (run, call, t) => {
  if (call.kind !== "read") return null;
  const streak = toolOutcomeStreak(run, call);
  if (streak.every((r) => r.argsDigest === streak[0]!.argsDigest)) return null;
  return thresholdFinding("stall", streak.length, t.warningThreshold, t.criticalThreshold);
};

const genericRepeat: Detector = (run, call, t) => {
  if (call.kind === "poll") return null;
  const sameOutcomeRun = lastDone(run, call)?.sameOutcomeRun ?? 0;
  if (sameOutcomeRun >= t.criticalThreshold) {
    return { detector: "generic_repeat", level: "critical", count: sameOutcomeRun, threshold: t.criticalThreshold };
  }
  const occurrences = sameCall(run, call).length + 1;
  return occurrences >= t.warningThreshold
    ? { detector: "generic_repeat", level: "warning", count: occurrences, threshold: t.warningThreshold }
    : null;
};

/** In table order: on equal levels the earlier detector wins. */
const DETECTORS: Detector[] = [
  globalCircuitBreaker,
  unknownToolRepeat,
  knownPollNoProgress,
  pingPong,
  cycle,
  errorRepeat,
  stall,
  genericRepeat,
];

/** A warning is due when first crossed and again after `threshold` further calls of its pattern. */
function warningDue(run: Run, call: Proposal, finding: Finding): boolean {
  let scope: CallRecord[];
  if (finding.detector === "ping_pong" || finding.detector === "cycle") {
    scope = run.records.slice(-(finding.count - 1)).reverse();
  } else if (finding.detector === "error_repeat" || finding.detector === "stall") {
    scope = run.records.filter((r) => r.tool === call.tool).reverse();
  } else {
    scope = sameCall(run, call);
  }
  const since = scope.findIndex((r) => r.warned === finding.detector);
  return since === -1 || since + 1 >= finding.threshold;
}

/** The finding that decides the verdict for the proposed call, or null when nothing is due. */
export function decide(run: Run, call: Proposal, t: Thresholds): Finding | null {
  const findings = DETECTORS.map((detect) => detect(run, call, t)).filter((f): f is Finding => f !== null);
  if (findings.length === 0) return null;
  const top = Math.max(...findings.map((f) => RANK[f.level]));
  if (top === RANK.warning) return findings.find((f) => warningDue(run, call, f)) ?? null;
  return findings.find((f) => RANK[f.level] === top) ?? null;
}
