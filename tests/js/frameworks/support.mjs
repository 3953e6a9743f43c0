// Shared by the framework adapter tests: what the bare guard decides for a scripted run, so each
// test asserts that the adapter inside a real framework refuses and stops at exactly the calls the
// core itself would (the thresholds live in the core; these tests never restate them), and the
// contract every agent-loop adapter is held to (`adapterContract`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { LoopGuard } from "tool-loop-guard";

/** The guard config every adapter test uses: `strict`, so loops are caught within a few calls. */
export const CONFIG = Object.freeze({ preset: "strict" });

/** The arguments of the `status` tool the scripted models call at every turn. */
export const ARGS = Object.freeze({ job: "42" });

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
      const after = guard.record({ tool, args, callId: `c${n}`, result: resultOf(plan.executed) });
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

/**
 * Registers, inside the caller's `describe`, the tests every agent-loop adapter must pass: a stuck
 * run is refused at the bare guard's first refusal and ends at its stop (with the stop's
 * `userMessage` as what the user reads), the warning's hint reaches the model's next call,
 * changing results are never refused, two interleaved runs on one guard stay independent, and a
 * stop ends only its turn: the next user message on the same thread starts clean and `endRun`
 * forgets the thread. The framework is described by:
 * - `run(guard, { runId, resultOf, turns, session })`: one run (one user message) of a model that
 *   calls `status(ARGS)` for `turns` turns with the adapter in place, `resultOf()` answering each
 *   execution; `session` is an object kept across the runs of one process (where the adapter
 *   object lives when the framework keeps one per process); resolves to an object holding at least
 *   `stopped` (the adapter's stop verdict of that run, or undefined) and `guarded` (the adapter);
 * - `endRun(ran, runId)`: ends the conversation through the adapter;
 * - `turns`: the turns a stuck run is given (more than the core lets it make);
 * - `modelCalls(ran)`: the model calls the framework made, in order;
 * - `toolOutputs(ran)`: what the model got back for each tool call, in order;
 * - `refusalIn(output)`: the refusal object inside one tool output (default: the output itself);
 * - `promptTexts(call)`: the texts of one model call among which an injected hint is found;
 * - `endsStopped(ran, stopped, plan)`, `endsDone(ran)`: the framework's own checks of how a
 *   stopped run (optional) and a run left alone end.
 */
export function adapterContract({ run, endRun, turns, modelCalls, toolOutputs, refusalIn = (output) => output, promptTexts, endsStopped = () => {}, endsDone }) {
  const stuckPlan = () => expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });

  test("an endlessly repeated call is refused at the core's call and the run ends at its stop", async () => {
    const plan = stuckPlan();
    assert.ok(plan.firstBlock !== null && plan.stopAt !== null && plan.firstBlock < plan.stopAt, "the core refuses, then stops");
    const guard = new LoopGuard(CONFIG);
    let executed = 0;
    const ran = await run(guard, { runId: "thread-1", resultOf: () => ((executed += 1), STUCK_RESULT), turns });
    const { stopped } = ran;
    assert.equal(executed, plan.executed, "the tool ran only while the guard allowed it");
    assert.equal(toolOutputs(ran).length, plan.stopAt, "every call up to the stop got an answer");
    assert.equal(modelCalls(ran).length, plan.stopAt, "no model call after the stop");
    assert.deepEqual(refusalIn(toolOutputs(ran)[plan.firstBlock - 1]), plan.verdicts[plan.firstBlock - 1].refusal, "the model got the core's refusal as the tool result");
    assert.equal(stopped.action, "stop");
    assert.equal(stopped.runId, "thread-1", "the run id is the framework's thread");
    assert.ok(stopped.message.length > 0, "the stop explains itself to the model");
    assert.ok(stopped.userMessage.length > 0 && stopped.userMessage !== stopped.message, "and, in other words, to the user");
    assert.deepEqual(refusalIn(toolOutputs(ran).at(-1)), stopped.refusal, "the stop's refusal is the last tool result");
    assert.equal(guard.stats().byAction.stop, 1);
    endsStopped(ran, stopped, plan);
    guard.free();
  });

  test("the warning's hint reaches the model on its next call", async () => {
    const plan = stuckPlan();
    assert.ok(plan.firstWarn !== null);
    const hint = plan.verdicts[plan.firstWarn - 1].hint;
    const guard = new LoopGuard(CONFIG);
    const calls = modelCalls(await run(guard, { runId: "t", resultOf: () => STUCK_RESULT, turns }));
    assert.ok(!promptTexts(calls[plan.firstWarn - 1]).includes(hint), "no hint before the warning");
    assert.ok(promptTexts(calls[plan.firstWarn]).includes(hint), "the hint is in the next call's prompt");
    guard.free();
  });

  test("a repeated call whose result changes is never refused", async () => {
    const guard = new LoopGuard(CONFIG);
    let n = 0;
    const ran = await run(guard, { runId: "progress", resultOf: () => `job 42: ${(n += 1)} of 30 steps done`, turns: 25 });
    assert.equal(n, 25);
    assert.equal(ran.stopped, undefined);
    endsDone(ran);
    assert.equal(guard.stats().byAction.block, 0);
    assert.equal(guard.stats().byAction.stop, 0);
    guard.free();
  });

  test("two interleaved runs on one guard stay independent", async () => {
    const plan = stuckPlan();
    const guard = new LoopGuard(CONFIG);
    const counter = executionCounter();
    const runIds = ["thread-a", "thread-b"];
    const runs = await Promise.all(runIds.map((runId) => run(guard, { runId, resultOf: () => (counter.add(runId), STUCK_RESULT), turns })));
    for (const [i, runId] of runIds.entries()) {
      assert.equal(counter.of(runId), plan.executed, `${runId} ran as long as a run alone`);
      assert.equal(toolOutputs(runs[i]).length, plan.stopAt);
      assert.equal(modelCalls(runs[i]).length, plan.stopAt);
      assert.equal(runs[i].stopped.runId, runId);
      endsStopped(runs[i], runs[i].stopped, plan);
    }
    guard.free();
  });

  test('under preset "openclaw" (which finds a call by its args) too, refused at the bare guard\'s call', async () => {
    const config = { preset: "openclaw" };
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT, config });
    assert.ok(plan.firstBlock !== null && plan.firstBlock < turns);
    const guard = new LoopGuard(config);
    const ran = await run(guard, { runId: "openclaw-preset", resultOf: () => STUCK_RESULT, turns });
    assert.deepEqual(refusalIn(toolOutputs(ran)[plan.firstBlock - 1]), plan.verdicts[plan.firstBlock - 1].refusal);
    assert.equal(guard.stats().byDetector.ping_pong, 0, "no call mistaken for another");
    guard.free();
  });

  test("a stop ends its turn only: the next user message on the thread starts clean, endRun forgets the thread", async () => {
    const guard = new LoopGuard(CONFIG);
    const session = {};
    const first = await run(guard, { runId: "thread-1", resultOf: () => STUCK_RESULT, turns, session });
    assert.equal(first.stopped?.action, "stop", "the first conversation was stopped");
    let n = 0;
    const next = await run(guard, { runId: "thread-1", resultOf: () => `job 42: ${(n += 1)} of 30 steps done`, turns: 3, session });
    assert.equal(n, 3, "the next user message's calls ran");
    assert.equal(next.stopped, undefined, "the old stop did not end the next turn");
    endsDone(next);
    const live = guard.stats().liveRuns;
    endRun(next, "thread-1");
    assert.equal(next.stopped, undefined);
    assert.equal(guard.stats().liveRuns, live - 1, "endRun forgot the thread in the guard");
    guard.free();
  });
}

/** Three calls going round with the same results: the slowest loop the default preset stops. */
export const CYCLE = Object.freeze(["a", "b", "c"].map((tool) => Object.freeze({ tool, args: {}, result: `result of ${tool}` })));

/**
 * The call at which the bare guard stops each loop shape the docs size framework limits by (one
 * tool call per model turn): an identical call, a ping-pong, a cycle of three (the `cycle` entry of
 * CYCLE), a failing call. `{shape: stopAt}`; the largest is the bound. (A search whose varying
 * arguments all find nothing asks new questions: it is warned, never stopped.)
 */
export function stopsByShape(config) {
  const shapes = {
    identical: () => ({ tool: "status", args: ARGS, result: STUCK_RESULT }),
    pingPong: (i) => (i % 2 ? { tool: "a", args: {}, result: "ra" } : { tool: "b", args: {}, result: "rb" }),
    cycle: (i) => CYCLE[i % 3],
    failing: (i) => ({ tool: "fetch", args: { url: i % 2 }, error: "Error: connect ECONNREFUSED 127.0.0.1:9" }),
  };
  const stops = {};
  for (const [name, shape] of Object.entries(shapes)) {
    const guard = new LoopGuard(config);
    for (let i = 0; i < 200 && stops[name] === undefined; i += 1) {
      const { result, error, ...call } = shape(i);
      const verdict = guard.check({ ...call, callId: `c${i}` });
      if (verdict.action === "stop") stops[name] = i + 1;
      else if (verdict.action !== "block") guard.record({ ...call, callId: `c${i}`, ...(error === undefined ? { result } : { error }) });
    }
    guard.free();
  }
  return stops;
}

/**
 * `dropRepeatedResults`: what the scripted tool answers at each call (the 2nd and 4th repeat the
 * 1st, the 3rd is new), and the guard config the option needs.
 */
export const REPEATING_RESULTS = Object.freeze(["job 42: running", "job 42: running", "job 42: done", "job 42: running"]);
export const SAME_AS_CONFIG = Object.freeze({ sameAs: true });

/**
 * Asserts what the model was sent for the REPEATING_RESULTS calls `ids` (`[[callId, text], ...]`
 * in order): with `dropped`, the 1st and 3rd whole and the 2nd and 4th as the core's reference to
 * the 1st; without, every result as the tool returned it.
 */
function assertRepeatsSent(sent, ids, guard, { dropped }) {
  const reference = guard.sameAsReference(ids[0]);
  assert.ok(reference.includes(ids[0]), "the reference names the call whose result stays whole");
  const expected = REPEATING_RESULTS.map((text, i) => [ids[i], dropped && (i === 1 || i === 3) ? reference : text]);
  assert.deepEqual(sent, expected);
}

/**
 * Registers, inside the caller's `describe`, the tests of an adapter's `dropRepeatedResults`:
 * off by default every result reaches the model unchanged; on, the repeats reach it as the core's
 * reference while the framework keeps every result; on with a guard built without `sameAs: true`,
 * the adapter refuses to be built. The framework is described by:
 * - `run(guard, options)`: a run whose tool answers REPEATING_RESULTS (call ids `ids`) with the
 *   adapter built with `options`, resolving to what `sent` and `kept` read;
 * - `sent(ran)`: the tool results the model's last call was sent, `[[callId, text], ...]`;
 * - `kept(ran)`: the tool results the framework keeps (history, state, steps), the same way;
 * - `build(guard)`: builds the adapter with `dropRepeatedResults: true`.
 */
export function dropRepeatsContract({ run, ids, sent, kept, build }) {
  test("off by default: every result reaches the model as the tool returned it", async () => {
    const guard = new LoopGuard(SAME_AS_CONFIG);
    assertRepeatsSent(sent(await run(guard, {})), ids, guard, { dropped: false });
    guard.free();
  });

  test("on: a repeated identical result reaches the model as the core's reference, a different one whole; the framework keeps them all", async () => {
    const guard = new LoopGuard(SAME_AS_CONFIG);
    const ran = await run(guard, { dropRepeatedResults: true });
    assertRepeatsSent(sent(ran), ids, guard, { dropped: true });
    assertRepeatsSent(kept(ran), ids, guard, { dropped: false });
    guard.free();
  });

  test("on, with a guard built without sameAs: true: LoopGuardError invalid_config naming sameAs", () => {
    const guard = new LoopGuard();
    assert.throws(() => build(guard), { name: "LoopGuardError", code: "invalid_config", field: "sameAs" });
    guard.free();
  });
}
