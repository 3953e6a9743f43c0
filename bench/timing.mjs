// Timing helpers for bench/run.mjs: drive a guard through workload steps the way a gateway does,
// interleave rounds of several sides, and report medians in nanoseconds per step.
import { performance } from "node:perf_hooks";

/** check before each call; record after it unless the call was refused; endRun where the step says so. */
function drive(guard, steps) {
  for (const { call, outcome, endRun } of steps) {
    const verdict = guard.check(call);
    if (verdict.action !== "block" && verdict.action !== "stop") guard.record(outcome);
    if (endRun) guard.endRun(call.runId);
  }
}

/** Like drive, untimed, counting the actions of check and record verdicts. */
function tally(guard, steps) {
  const counts = { check: {}, record: {} };
  const count = (op, action) => (counts[op][action] = (counts[op][action] ?? 0) + 1);
  for (const { call, outcome, endRun } of steps) {
    const verdict = guard.check(call);
    count("check", verdict.action);
    if (verdict.action !== "block" && verdict.action !== "stop") count("record", guard.record(outcome).action);
    if (endRun) guard.endRun(call.runId);
  }
  return counts;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The process's CPU time (user + system) in milliseconds: what a busy machine disturbs less. */
export function cpuClock() {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/**
 * Nanoseconds per step for each side ({name, create, dispose}): a warm-up pass per side (which
 * also tallies the verdicts), then `rounds` interleaved timed passes, each on a fresh guard, the
 * order alternating between rounds; `clock` (milliseconds) is wall time unless given (`cpuClock`).
 * Returns {name: {ns, tally}}.
 */
export function compareSides(sides, steps, rounds, clock = () => performance.now()) {
  const results = {};
  const samples = {};
  for (const side of sides) {
    const guard = side.create();
    results[side.name] = { tally: tally(guard, steps) };
    side.dispose(guard);
    samples[side.name] = [];
  }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const guard = side.create();
      const start = clock();
      drive(guard, steps);
      const elapsed = clock() - start;
      side.dispose(guard);
      samples[side.name].push((elapsed * 1e6) / steps.length);
    }
  }
  for (const side of sides) results[side.name].ns = median(samples[side.name]);
  return results;
}

/** Median nanoseconds of `fn()` over `reps` calls, after one warm-up call. */
export function medianNs(fn, reps) {
  fn();
  const samples = [];
  for (let i = 0; i < reps; i++) {
    const start = performance.now();
    fn();
    samples.push((performance.now() - start) * 1e6);
  }
  return median(samples);
}
