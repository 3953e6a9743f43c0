// tool-loop-guard/ai-sdk inside the real AI SDK, majors 5, 6 and 7 (installed side by side in this
// package as `ai-v5`, `ai-v6` and `ai`), driven by each major's own mock model from `ai/test`
// scripted to call the same tool again and again. Runs under Node 22 (ai 7 needs it).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { guardAiSdk } from "tool-loop-guard/ai-sdk";
import { z } from "zod";
import { CONFIG, executionCounter, expectedRun, STUCK_RESULT } from "./support.mjs";

const MAJORS = [
  { name: "ai 5", ai: await import("ai-v5"), test: await import("ai-v5/test"), mock: "MockLanguageModelV2" },
  { name: "ai 6", ai: await import("ai-v6"), test: await import("ai-v6/test"), mock: "MockLanguageModelV3" },
  { name: "ai 7", ai: await import("ai"), test: await import("ai/test"), mock: "MockLanguageModelV4" },
];

const ARGS = { job: "42" };

/** A mock model of the given major that calls `status(ARGS)` at every step. */
function repeatingModel(major) {
  let step = 0;
  const v2 = major.mock === "MockLanguageModelV2";
  return new major.test[major.mock]({
    doGenerate: async () => {
      step += 1;
      return {
        content: [{ type: "tool-call", toolCallId: `call-${step}`, toolName: "status", input: JSON.stringify(ARGS) }],
        finishReason: v2 ? "tool-calls" : { unified: "tool-calls", raw: undefined },
        usage: v2
          ? { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
          : {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 1, text: 1, reasoning: 0 },
            },
        warnings: [],
      };
    },
  });
}

/** One guarded `generateText` run of the repeating model; `resultOf(n)` answers the nth execution. */
async function run(major, guard, { runId, resultOf, maxSteps }) {
  const model = repeatingModel(major);
  const guarded = guardAiSdk(guard, {
    runId,
    tools: {
      status: major.ai.tool({
        description: "Status of a background job",
        inputSchema: z.object({ job: z.string() }),
        execute: async () => resultOf(),
      }),
    },
  });
  const result = await major.ai.generateText({
    model,
    prompt: "Wait for job 42 to finish.",
    tools: guarded.tools,
    stopWhen: [guarded.stopWhen, major.ai.stepCountIs(maxSteps)],
    prepareStep: guarded.prepareStep,
  });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output));
  return { result, outputs, model, stopped: guarded.stopped() };
}

for (const major of MAJORS) {
  describe(`tool-loop-guard/ai-sdk with ${major.name}`, () => {
    test("an endlessly repeated call is refused at the core's call and the run ends cleanly", async () => {
      const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
      assert.ok(plan.firstBlock !== null && plan.stopAt !== null && plan.firstBlock < plan.stopAt, "the core refuses, then stops");
      const guard = new LoopGuard(CONFIG);
      let executed = 0;
      const { result, outputs, stopped } = await run(major, guard, {
        runId: "thread-1",
        resultOf: () => {
          executed += 1;
          return STUCK_RESULT;
        },
        maxSteps: 100,
      });
      assert.equal(executed, plan.executed, "the tool ran only while the guard allowed it");
      assert.equal(result.steps.length, plan.stopAt, "stopWhen ended the loop at the stop");
      const refusal = outputs[plan.firstBlock - 1];
      assert.equal(refusal.error, "tool_loop_detected");
      assert.deepEqual(refusal, plan.verdicts[plan.firstBlock - 1].refusal, "the model got the core's refusal as the tool result");
      assert.equal(stopped.action, "stop");
      assert.equal(stopped.runId, "thread-1");
      assert.deepEqual(outputs.at(-1), stopped.refusal);
      assert.ok(stopped.message.length > 0, "the stop explains itself");
      assert.equal(guard.stats().byAction.stop, 1);
      guard.free();
    });

    test("the warning's hint reaches the model on the next step", async () => {
      const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
      assert.ok(plan.firstWarn !== null);
      const hint = plan.verdicts[plan.firstWarn - 1].hint;
      const guard = new LoopGuard(CONFIG);
      const { model } = await run(major, guard, { runId: "t", resultOf: () => STUCK_RESULT, maxSteps: plan.firstWarn + 1 });
      const promptTexts = (call) =>
        call.prompt.filter((m) => m.role === "user").flatMap((m) => m.content.map((part) => part.text));
      assert.ok(!promptTexts(model.doGenerateCalls[plan.firstWarn - 1]).includes(hint), "no hint before the warning");
      assert.ok(promptTexts(model.doGenerateCalls[plan.firstWarn]).includes(hint), "the hint is in the next step's prompt");
      guard.free();
    });

    test("a repeated call whose result changes is never refused", async () => {
      const guard = new LoopGuard(CONFIG);
      let n = 0;
      const { outputs, stopped } = await run(major, guard, {
        runId: "progress",
        resultOf: () => `job 42: ${(n += 1)} of 30 steps done`,
        maxSteps: 25,
      });
      assert.equal(n, 25);
      assert.equal(stopped, undefined);
      assert.ok(outputs.every((o) => typeof o === "string"), "every output is the tool's own");
      assert.equal(guard.stats().byAction.block, 0);
      guard.free();
    });

    test("two interleaved runs on one guard stay independent", async () => {
      const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
      const guard = new LoopGuard(CONFIG);
      const counter = executionCounter();
      const [a, b] = await Promise.all(
        ["thread-a", "thread-b"].map((runId) =>
          run(major, guard, {
            runId,
            resultOf: () => (counter.add(runId), STUCK_RESULT),
            maxSteps: 100,
          }),
        ),
      );
      for (const [runId, r] of [["thread-a", a], ["thread-b", b]]) {
        assert.equal(counter.of(runId), plan.executed, `${runId} ran as long as a run alone`);
        assert.equal(r.result.steps.length, plan.stopAt);
        assert.equal(r.stopped.runId, runId);
      }
      guard.free();
    });
  });
}
