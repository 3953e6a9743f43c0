// tool-loop-guard/mastra inside a real Mastra agent (@mastra/core 1.x), driven by the AI SDK's
// MockLanguageModelV2 (from ai 5's `ai/test`, a model Mastra accepts) scripted to call the same
// tool at every step. Mastra needs Node >= 22.13: these tests run under the Node 22 setup installs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Agent } from "@mastra/core/agent";
import { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV2 } from "ai-v5/test";
import { LoopGuard } from "tool-loop-guard";
import { guardMastra } from "tool-loop-guard/mastra";
import { z } from "zod";
import { CONFIG, executionCounter, expectedRun, STUCK_RESULT } from "./support.mjs";

const ARGS = { job: "42" };
const USAGE = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A mock model that calls `status(ARGS)` for `turns` steps, then answers "done". */
function repeatingModel(turns) {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: async () => {
      step += 1;
      if (step > turns) return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage: USAGE, warnings: [] };
      const call = { type: "tool-call", toolCallId: `call-${step}`, toolName: "status", input: JSON.stringify(ARGS) };
      return { content: [call], finishReason: "tool-calls", usage: USAGE, warnings: [] };
    },
  });
}

async function run(guard, { threadId, resultOf, turns }) {
  const model = repeatingModel(turns);
  const status = createTool({
    id: "status",
    description: "Status of a background job",
    inputSchema: z.object({ job: z.string() }),
    execute: async () => resultOf(),
  });
  const agent = new Agent({ id: "waiter", name: "waiter", instructions: "Wait for the job.", model, tools: { status } });
  const requestContext = new RequestContext([["mastra__threadId", threadId]]);
  const guarded = guardMastra(guard);
  const result = await agent.generate("Wait for job 42 to finish.", {
    requestContext,
    hooks: guarded.hooks,
    stopWhen: guarded.stopWhen,
    prepareStep: guarded.prepareStep,
    maxSteps: turns + 5,
  });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.payload?.result ?? r.output ?? r.result));
  return { result, outputs, model, stopped: guarded.stopped() };
}

describe("tool-loop-guard/mastra with @mastra/core", () => {
  test("an endlessly repeated call is refused at the core's call and the run ends cleanly", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const guard = new LoopGuard(CONFIG);
    let executed = 0;
    const { outputs, model, stopped } = await run(guard, {
      threadId: "thread-1",
      resultOf: () => ((executed += 1), STUCK_RESULT),
      turns: 40,
    });
    assert.equal(executed, plan.executed, "the tool ran only while the guard allowed it");
    assert.equal(model.doGenerateCalls.length, plan.stopAt, "stopWhen ended the loop at the stop");
    assert.deepEqual(outputs[plan.firstBlock - 1], plan.verdicts[plan.firstBlock - 1].refusal);
    assert.equal(stopped.action, "stop");
    assert.equal(stopped.runId, "thread-1", "the run id is the request context's thread");
    assert.deepEqual(outputs.at(-1), stopped.refusal);
    guard.free();
  });

  test("the warning's hint reaches the model on the next step", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const hint = plan.verdicts[plan.firstWarn - 1].hint;
    const guard = new LoopGuard(CONFIG);
    const { model } = await run(guard, { threadId: "t", resultOf: () => STUCK_RESULT, turns: 40 });
    const systemTexts = (call) => call.prompt.filter((m) => m.role === "system").map((m) => m.content);
    assert.ok(!systemTexts(model.doGenerateCalls[plan.firstWarn - 1]).includes(hint), "no hint before the warning");
    assert.ok(systemTexts(model.doGenerateCalls[plan.firstWarn]).includes(hint), "the hint is in the next step's prompt");
    guard.free();
  });

  test("a repeated call whose result changes is never refused", async () => {
    const guard = new LoopGuard(CONFIG);
    let n = 0;
    const { result, stopped } = await run(guard, { threadId: "progress", resultOf: () => `job 42: ${(n += 1)} of 30 steps done`, turns: 25 });
    assert.equal(n, 25);
    assert.equal(stopped, undefined);
    assert.equal(result.text, "done", "the model's own answer ends the run");
    assert.equal(guard.stats().byAction.block, 0);
    guard.free();
  });

  test("two interleaved runs on one guard stay independent", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const guard = new LoopGuard(CONFIG);
    const counter = executionCounter();
    const runs = await Promise.all(
      ["thread-a", "thread-b"].map((threadId) => run(guard, { threadId, resultOf: () => (counter.add(threadId), STUCK_RESULT), turns: 40 })),
    );
    for (const [i, threadId] of ["thread-a", "thread-b"].entries()) {
      assert.equal(counter.of(threadId), plan.executed);
      assert.equal(runs[i].model.doGenerateCalls.length, plan.stopAt);
      assert.equal(runs[i].stopped.runId, threadId);
    }
    guard.free();
  });
});
