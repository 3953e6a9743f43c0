// tool-loop-guard/langchain inside a real LangChain agent (`createAgent` of langchain 1.x on
// LangGraph), driven by `fakeModel()` from @langchain/core/testing scripted to call the same tool
// at every turn.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { guardLangChain } from "tool-loop-guard/langchain";
import { z } from "zod";
import { adapterContract, ARGS } from "./support.mjs";

/** A fake model that calls `status(ARGS)` for `turns` turns, then answers "done". */
function repeatingModel(turns) {
  const model = fakeModel();
  // Factories, not respondWithTools: that one's message text concatenates the whole history,
  // which doubles at every turn.
  for (let i = 0; i < turns; i += 1) {
    model.respond(() => new AIMessage({ content: "", tool_calls: [{ name: "status", args: ARGS, id: `call-${i}`, type: "tool_call" }] }));
  }
  return model.respond(new AIMessage("done"));
}

/**
 * One guarded run of the repeating model on thread `runId`; `resultOf()` answers each execution.
 * The framework tests' run() functions and adapterContract options are parallel on purpose: the
 * same scenario written in each framework's own API; what they share is in support.mjs.
 */
async function run(guard, { runId, resultOf, turns }) {
  const guarded = guardLangChain(guard);
  const status = tool(async () => resultOf(), {
    name: "status",
    description: "Status of a background job",
    schema: z.object({ job: z.string() }),
  });
  const model = repeatingModel(turns);
  const agent = createAgent({ model, tools: [status], middleware: [guarded.middleware] });
  const state = await agent.invoke(
    { messages: [{ role: "user", content: "Wait for job 42 to finish." }] },
    { configurable: { thread_id: runId }, recursionLimit: 4 * turns + 10 },
  );
  const toolMessages = state.messages.filter((m) => m.type === "tool");
  return { state, toolMessages, model, stopped: guarded.stopped(runId) };
}

describe("tool-loop-guard/langchain with langchain createAgent", () => {
  adapterContract({
    run,
    turns: 60,
    modelCalls: ({ model }) => model.calls,
    toolOutputs: ({ toolMessages }) => toolMessages.map((m) => m.content),
    refusalIn: (content) => JSON.parse(content),
    promptTexts: (call) => call.messages.filter((m) => m.type === "human").map((m) => m.content),
    endsStopped({ state, toolMessages, model }, stopped, plan) {
      assert.equal(model.callCount, plan.stopAt, "no model call after the stop");
      assert.equal(toolMessages[plan.firstBlock - 1].tool_call_id, `call-${plan.firstBlock - 1}`);
      const last = state.messages.at(-1);
      assert.equal(last.type, "ai");
      assert.equal(last.content, stopped.message, "the last message says why the run stopped");
    },
    endsDone: ({ state }) => assert.equal(state.messages.at(-1).content, "done", "the model's own answer ends the run"),
  });
});
