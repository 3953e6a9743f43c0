// Rows (l) and (m) of the bench (issue 35): costs that must not grow with what a run holds.
// (l) per call on 2,000-call runs of real records at historySize 30, 1,000 and 10,000: the calls of
//     a real workload (bench/real/) laid end to end in runs of 2,000, each side a guard with that
//     historySize, timed interleaved (bench/timing.mjs);
// (m) an outcome recorded as a thrown `error` against the same text as a `result`, at 1, 4 and
//     16 KB: a failing test's output, each call its own arguments so no detector fires.
import { compareSides } from "./timing.mjs";

export const HISTORY_SIZES = [30, 1000, 10_000];
const RUN_CALLS = 2000;

/** A workload's steps as runs of `RUN_CALLS` calls (ids and times renumbered, one run at a time). */
export function longRuns(steps, runs) {
  const out = [];
  for (let i = 0; i < runs * RUN_CALLS; i++) {
    const { call, outcome } = steps[i % steps.length];
    const runId = `long-${Math.floor(i / RUN_CALLS)}`;
    const renumbered = { runId, callId: `c${i}`, at: 1_800_000_000_000 + i * 1000 };
    out.push({
      call: { ...call, ...renumbered },
      outcome: { ...outcome, ...renumbered },
      endRun: i % RUN_CALLS === RUN_CALLS - 1,
    });
  }
  return out;
}

/** ns per call at each of `HISTORY_SIZES` over `steps`: {historySize: ns}. */
export function costByHistorySize(LoopGuard, steps, rounds) {
  const sides = HISTORY_SIZES.map((historySize) => ({
    name: String(historySize),
    create: () => new LoopGuard({ historySize }),
    dispose: (guard) => guard.free(),
  }));
  const results = compareSides(sides, steps, rounds);
  return Object.fromEntries(HISTORY_SIZES.map((h) => [h, results[String(h)].ns]));
}

/** A failing test run's output of about `bytes` bytes (numbers differ from call to call). */
function failureText(bytes, i) {
  const line = (n) => `  File "/testbed/tests/test_module_${n % 7}.py", line ${100 + n}, in test_case_${n}\n    assert result == expected, f"got {result!r}"\n`;
  let text = "Traceback (most recent call last):\n";
  for (let n = 0; text.length < bytes - 64; n++) text += line(n + i);
  return `${text}AssertionError: got 4${i} expected 42\n`.slice(0, bytes);
}

/**
 * ns per call with the outcome as `error` and as `result`, per size: {kb: {error, result}}. Both
 * sides replay the same steps in one interleaved comparison; each side looks its outcome up in a
 * map (the error form, or the result form itself), so both pay the same lookup.
 */
export function errorAgainstResult(LoopGuard, rounds, sizesKb = [1, 4, 16], calls = 2000) {
  const out = {};
  for (const kb of sizesKb) {
    const texts = Array.from({ length: 50 }, (_, i) => failureText(kb * 1024, i));
    const steps = Array.from({ length: calls }, (_, i) => {
      const call = { runId: `r${i % 20}`, tool: "run_tests", args: { test: `case_${i}` }, callId: `c${i}`, at: 1_800_000_000_000 + i * 1000 };
      return { call, outcome: { ...call, result: texts[i % texts.length] }, endRun: false };
    });
    const forms = {
      result: new Map(steps.map(({ outcome }) => [outcome, outcome])),
      error: new Map(steps.map(({ outcome }) => {
        const { result, ...call } = outcome;
        return [outcome, { ...call, error: result }];
      })),
    };
    const side = (name) => ({
      name,
      create: () => {
        const guard = new LoopGuard();
        return {
          check: (call) => guard.check(call),
          record: (outcome) => guard.record(forms[name].get(outcome)),
          endRun: (runId) => guard.endRun(runId),
          free: () => guard.free(),
        };
      },
      dispose: (guard) => guard.free(),
    });
    const timed = compareSides([side("error"), side("result")], steps, rounds);
    out[kb] = { error: timed.error.ns, result: timed.result.ns };
  }
  return out;
}
