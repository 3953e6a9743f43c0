// tool-loop-guard/mastra inside a real Mastra agent (@mastra/core 1.x), driven by the AI SDK's
// MockLanguageModelV2 (from ai 5's `ai/test`, a model Mastra accepts) scripted to call the same
// tool at every step. Mastra needs Node >= 22.13: these tests run under the Node 22 setup installs.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Agent } from "@mastra/core/agent";
import { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV2 } from "ai-v5/test";
import { guardMastra } from "tool-loop-guard/mastra";
import { z } from "zod";
import { adapterContract, ARGS } from "./support.mjs";

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
async function run(guard, { runId, resultOf, turns }) {
  const model = repeatingModel(turns);
  const status = createTool({
    id: "status",
    description: "Status of a background job",
    inputSchema: z.object({ job: z.string() }),
    execute: async () => resultOf(),
  });
  const agent = new Agent({ id: "waiter", name: "waiter", instructions: "Wait for the job.", model, tools: { status } });
  const requestContext = new RequestContext([["mastra__threadId", runId]]);
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
  adapterContract({
    run,
    turns: 40,
    modelCalls: ({ model }) => model.doGenerateCalls,
    toolOutputs: ({ outputs }) => outputs,
    promptTexts: (call) => call.prompt.filter((m) => m.role === "system").map((m) => m.content),
    endsDone: ({ result }) => assert.equal(result.text, "done", "the model's own answer ends the run"),
  });
});
