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
import { adapterContract, ARGS, CONFIG, dropRepeatsContract, REPEATING_RESULTS } from "./support.mjs";

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

/**
 * One guarded run of the repeating model on thread `runId`; `resultOf()` answers each execution.
 * The framework tests' run() functions and adapterContract options are parallel on purpose: the
 * same scenario written in each framework's own API; what they share is in support.mjs.
 */
async function run(guard, { runId, resultOf, turns, maxSteps = turns + 5, options = {} }) {
  const model = repeatingModel(turns);
  const status = createTool({
    id: "status",
    description: "Status of a background job",
    inputSchema: z.object({ job: z.string() }),
    execute: async () => resultOf(),
  });
  const agent = new Agent({ id: "waiter", name: "waiter", instructions: "Wait for the job.", model, tools: { status } });
  const requestContext = new RequestContext([["mastra__threadId", runId]]);
  // One binding per call (per user message), as the docs say; its stopWhen keeps the step bound.
  const guarded = guardMastra(guard, { ...(maxSteps === null ? {} : { maxSteps }), ...options });
  const result = await agent.generate("Wait for job 42 to finish.", {
    requestContext,
    hooks: guarded.hooks,
    stopWhen: guarded.stopWhen,
    prepareStep: guarded.prepareStep,
    ...(guarded.processor && { inputProcessors: [guarded.processor] }),
  });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.payload?.result ?? r.output ?? r.result));
  return { result, outputs, model, guarded, stopped: guarded.stopped() };
}

describe("tool-loop-guard/mastra with @mastra/core", () => {
  adapterContract({
    run,
    endRun: ({ guarded }) => guarded.endRun(),
    turns: 40,
    modelCalls: ({ model }) => model.doGenerateCalls,
    toolOutputs: ({ outputs }) => outputs,
    promptTexts: (call) => call.prompt.filter((m) => m.role === "system").map((m) => m.content),
    endsDone: ({ result }) => assert.equal(result.text, "done", "the model's own answer ends the run"),
  });
});

describe("tool-loop-guard/mastra: the step bound", () => {
  test("guarded.stopWhen keeps Mastra's default bound of 5 steps (a stopWhen replaces Mastra's own), or maxSteps", async () => {
    for (const [maxSteps, steps] of [[null, 5], [8, 8]]) {
      const guard = new LoopGuard(CONFIG);
      let n = 0;
      const ran = await run(guard, { runId: "bounded", resultOf: () => `job 42: ${(n += 1)} of 99 steps done`, turns: 40, maxSteps });
      assert.equal(ran.model.doGenerateCalls.length, steps, `a run whose results keep changing ends after ${steps} steps`);
      assert.equal(ran.stopped, undefined, "the guard did not stop it: the bound did");
      guard.free();
    }
  });
});

describe("tool-loop-guard/mastra: dropRepeatedResults", () => {
  const ids = REPEATING_RESULTS.map((_, i) => `call-${i + 1}`);
  dropRepeatsContract({
    ids,
    run: async (guard, options) => {
      let n = 0;
      const ran = await run(guard, { runId: "repeats", resultOf: () => REPEATING_RESULTS[n++], turns: REPEATING_RESULTS.length, options });
      assert.equal(ran.guarded.processor !== undefined, options.dropRepeatedResults === true, "a processor only with the option");
      return ran;
    },
    sent: ({ model }) => model.doGenerateCalls.at(-1).prompt.filter((m) => m.role === "tool").flatMap((m) => m.content.map((p) => [p.toolCallId, p.output.value])),
    kept: ({ outputs }) => outputs.map((output, i) => [ids[i], output]),
    build: (guard) => guardMastra(guard, { dropRepeatedResults: true }),
  });
});
