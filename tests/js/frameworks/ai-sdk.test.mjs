// tool-loop-guard/ai-sdk inside the real AI SDK, majors 5, 6 and 7 (installed side by side in this
// package as `ai-v5`, `ai-v6` and `ai`), driven by each major's own mock model from `ai/test`
// scripted to call the same tool again and again. Runs under Node 22 (ai 7 needs it).
import assert from "node:assert/strict";
import { describe } from "node:test";
import { guardAiSdk } from "tool-loop-guard/ai-sdk";
import { z } from "zod";
import { adapterContract, ARGS } from "./support.mjs";

const MAJORS = [
  { name: "ai 5", ai: await import("ai-v5"), test: await import("ai-v5/test"), mock: "MockLanguageModelV2" },
  { name: "ai 6", ai: await import("ai-v6"), test: await import("ai-v6/test"), mock: "MockLanguageModelV3" },
  { name: "ai 7", ai: await import("ai"), test: await import("ai/test"), mock: "MockLanguageModelV4" },
];

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

/** One guarded `generateText` run of the repeating model; `resultOf()` answers each execution, `turns` caps the steps. */
async function run(major, guard, { runId, resultOf, turns }) {
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
    stopWhen: [guarded.stopWhen, major.ai.stepCountIs(turns)],
    prepareStep: guarded.prepareStep,
  });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output));
  return { result, outputs, model, stopped: guarded.stopped() };
}

for (const major of MAJORS) {
  describe(`tool-loop-guard/ai-sdk with ${major.name}`, () => {
    adapterContract({
      run: (guard, options) => run(major, guard, options),
      turns: 100,
      modelCalls: ({ model }) => model.doGenerateCalls,
      toolOutputs: ({ outputs }) => outputs,
      promptTexts: (call) => call.prompt.filter((m) => m.role === "user").flatMap((m) => m.content.map((part) => part.text)),
      endsStopped({ result, outputs }, stopped, plan) {
        assert.equal(result.steps.length, plan.stopAt, "stopWhen ended the loop at the stop");
        assert.equal(outputs[plan.firstBlock - 1].error, "tool_loop_detected");
      },
      endsDone: ({ outputs }) => assert.ok(outputs.every((o) => typeof o === "string"), "every output is the tool's own"),
    });
  });
}
