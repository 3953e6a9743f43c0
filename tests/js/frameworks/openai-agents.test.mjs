// tool-loop-guard/openai-agents inside the real OpenAI Agents SDK (@openai/agents), driven by its
// ScriptedModel from @openai/agents/testing scripted to call the same tool at every turn. Nothing
// leaves the process: the scripted model replaces the Responses API.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Agent, Runner, tool } from "@openai/agents";
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from "@openai/agents/testing";
import { LoopGuard } from "tool-loop-guard";
import { guardOpenAIAgents } from "tool-loop-guard/openai-agents";
import { z } from "zod";
import { CONFIG, executionCounter, expectedRun, STUCK_RESULT } from "./support.mjs";

const ARGS = { job: "42" };

/** A scripted model that calls `status(ARGS)` for `turns` turns, then answers "done". */
function repeatingModel(turns) {
  return new ScriptedModel([
    ...Array.from({ length: turns }, () => modelResponder(({ index }) => [functionCall("status", ARGS, { callId: `call-${index}` })])),
    [assistantMessage("done")],
  ]);
}

/** One guarded run of the repeating model; `resultOf()` answers each execution. */
async function run(guard, { threadId, resultOf, turns }) {
  const guarded = guardOpenAIAgents(guard);
  const status = tool({
    name: "status",
    description: "Status of a background job",
    parameters: z.object({ job: z.string() }),
    execute: async () => resultOf(),
  });
  const model = repeatingModel(turns);
  const agent = new Agent({
    name: "waiter",
    instructions: "Wait for the job.",
    model,
    tools: guarded.guardTools([status]),
    toolUseBehavior: guarded.toolUseBehavior,
  });
  const runner = new Runner({ tracingDisabled: true, callModelInputFilter: guarded.callModelInputFilter });
  const result = await runner.run(agent, "Wait for job 42 to finish.", { context: { threadId }, maxTurns: turns + 1 });
  const outputs = result.newItems.filter((item) => item.type === "tool_call_output_item").map((item) => item.output);
  return { result, outputs, model, stopped: guarded.stopped(threadId) };
}

describe("tool-loop-guard/openai-agents with @openai/agents", () => {
  test("an endlessly repeated call is refused at the core's call and the run ends with a final output", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    assert.ok(plan.firstBlock !== null && plan.stopAt !== null && plan.firstBlock < plan.stopAt);
    const guard = new LoopGuard(CONFIG);
    let executed = 0;
    const { result, outputs, stopped, model } = await run(guard, {
      threadId: "thread-1",
      resultOf: () => ((executed += 1), STUCK_RESULT),
      turns: 60,
    });
    assert.equal(executed, plan.executed, "the tool ran only while the guard allowed it");
    assert.equal(outputs.length, plan.stopAt, "the run ended at the stop");
    assert.equal(model.calls.length, plan.stopAt, "no model turn after the stop");
    assert.deepEqual(JSON.parse(outputs[plan.firstBlock - 1]), plan.verdicts[plan.firstBlock - 1].refusal);
    assert.equal(stopped.action, "stop");
    assert.equal(stopped.runId, "thread-1");
    assert.equal(result.finalOutput, stopped.message, "the final output says why the run stopped");
    guard.free();
  });

  test("the warning's hint reaches the model on its next turn", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const hint = plan.verdicts[plan.firstWarn - 1].hint;
    const guard = new LoopGuard(CONFIG);
    const { model } = await run(guard, { threadId: "t", resultOf: () => STUCK_RESULT, turns: 60 });
    const userTexts = (call) =>
      (Array.isArray(call.request.input) ? call.request.input : [])
        .filter((item) => item.role === "user")
        .map((item) => (typeof item.content === "string" ? item.content : item.content.map((c) => c.text).join("")));
    assert.ok(!userTexts(model.calls[plan.firstWarn - 1]).includes(hint), "no hint before the warning");
    assert.ok(userTexts(model.calls[plan.firstWarn]).includes(hint), "the hint is in the next turn's input");
    guard.free();
  });

  test("a repeated call whose result changes is never refused", async () => {
    const guard = new LoopGuard(CONFIG);
    let n = 0;
    const { result, stopped } = await run(guard, {
      threadId: "progress",
      resultOf: () => `job 42: ${(n += 1)} of 30 steps done`,
      turns: 25,
    });
    assert.equal(n, 25);
    assert.equal(stopped, undefined);
    assert.equal(result.finalOutput, "done", "the model's own answer ends the run");
    assert.equal(guard.stats().byAction.block, 0);
    assert.equal(guard.stats().byAction.stop, 0);
    guard.free();
  });

  test("two interleaved runs on one guard stay independent", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const guard = new LoopGuard(CONFIG);
    const counter = executionCounter();
    const runs = await Promise.all(
      ["thread-a", "thread-b"].map((threadId) =>
        run(guard, { threadId, resultOf: () => (counter.add(threadId), STUCK_RESULT), turns: 60 }),
      ),
    );
    for (const [i, threadId] of ["thread-a", "thread-b"].entries()) {
      assert.equal(counter.of(threadId), plan.executed);
      assert.equal(runs[i].outputs.length, plan.stopAt);
      assert.equal(runs[i].stopped.runId, threadId);
    }
    guard.free();
  });
});
