// Shared by the framework adapter tests: what the bare guard decides for a scripted run, so each
// test asserts that the adapter inside a real framework refuses and stops at exactly the calls the
// core itself would (the thresholds live in the core; these tests never restate them).
import { LoopGuard } from "tool-loop-guard";

/** The guard config every adapter test uses: `strict`, so loops are caught within a few calls. */
export const CONFIG = Object.freeze({ preset: "strict" });

/** A tool that always answers the same: the endless loop every adapter must catch. */
export const STUCK_RESULT = "job 42: still running (0 of 10 steps done)";

/**
 * Plays `tool(args)` → `resultOf(n)` (n = 1, 2, …) through a fresh bare guard, as the README's
 * gateway does, until the guard stops the run or `limit` calls were made. Returns the 1-based call
 * numbers of the first warning, the first refusal and the stop, the number of calls the tool ran,
 * and the verdicts (hints and refusals are the core's texts, to compare with what the model got).
 */
export function expectedRun({ tool, args, resultOf, limit = 100, config = CONFIG }) {
  const guard = new LoopGuard(config);
  const plan = { firstWarn: null, firstBlock: null, stopAt: null, executed: 0, calls: 0, verdicts: [] };
  try {
    for (let n = 1; n <= limit; n += 1) {
      plan.calls = n;
      const before = guard.check({ tool, args, callId: `c${n}` });
      if (before.action === "stop") {
        plan.stopAt = n;
        plan.verdicts.push(before);
        break;
      }
      if (before.action === "block") {
        plan.firstBlock ??= n;
        plan.verdicts.push(before);
        continue;
      }
      plan.executed += 1;
      const after = guard.record({ tool, callId: `c${n}`, result: resultOf(plan.executed) });
      if ((before.hint ?? after.hint) !== undefined) plan.firstWarn ??= n;
      plan.verdicts.push(after.hint !== undefined ? after : before);
    }
  } finally {
    guard.free();
  }
  return plan;
}

/** A counter of tool executions per run id. */
export function executionCounter() {
  const counts = new Map();
  return {
    add(runId) {
      counts.set(runId, (counts.get(runId) ?? 0) + 1);
      return counts.get(runId);
    },
    of(runId) {
      return counts.get(runId) ?? 0;
    },
  };
}
