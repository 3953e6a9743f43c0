// tool-loop-guard/openai-agents inside the real OpenAI Agents SDK (@openai/agents), driven by its
// ScriptedModel from @openai/agents/testing scripted to call the same tool at every turn. Nothing
// leaves the process: the scripted model replaces the Responses API.
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Agent, Runner, tool } from "@openai/agents";
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from "@openai/agents/testing";
import { guardOpenAIAgents } from "tool-loop-guard/openai-agents";
import { z } from "zod";
import { adapterContract, ARGS } from "./support.mjs";

/** A scripted model that calls `status(ARGS)` for `turns` turns, then answers "done". */
function repeatingModel(turns) {
  return new ScriptedModel([
    ...Array.from({ length: turns }, () => modelResponder(({ index }) => [functionCall("status", ARGS, { callId: `call-${index}` })])),
    [assistantMessage("done")],
  ]);
}

/**
 * One guarded run of the repeating model on thread `runId`; `resultOf()` answers each execution.
 * The framework tests' run() functions and adapterContract options are parallel on purpose: the
 * same scenario written in each framework's own API; what they share is in support.mjs.
 */
async function run(guard, { runId, resultOf, turns }) {
  const guarded = guardOpenAIAgents(guard);
  const status = tool({
    name: "status",
    description: "Status of a background job",
    parameters: z.object({ job: z.string() }),
    execute: async () => resultOf(),
  });
  const model = repeatingModel(turns);
  const agent = new Agent({
    name: "waiter",
    instructions: "Wait for the job.",
    model,
    tools: guarded.guardTools([status]),
    toolUseBehavior: guarded.toolUseBehavior,
  });
  const runner = new Runner({ tracingDisabled: true, callModelInputFilter: guarded.callModelInputFilter });
  const result = await runner.run(agent, "Wait for job 42 to finish.", { context: { threadId: runId }, maxTurns: turns + 1 });
  const outputs = result.newItems.filter((item) => item.type === "tool_call_output_item").map((item) => item.output);
  return { result, outputs, model, stopped: guarded.stopped(runId) };
}

describe("tool-loop-guard/openai-agents with @openai/agents", () => {
  adapterContract({
    run,
    turns: 60,
    modelCalls: ({ model }) => model.calls,
    toolOutputs: ({ outputs }) => outputs,
    refusalIn: (output) => JSON.parse(output),
    promptTexts: (call) =>
      (Array.isArray(call.request.input) ? call.request.input : [])
        .filter((item) => item.role === "user")
        .map((item) => (typeof item.content === "string" ? item.content : item.content.map((c) => c.text).join(""))),
    endsStopped: ({ result }, stopped) => assert.equal(result.finalOutput, stopped.message, "the final output says why the run stopped"),
    endsDone: ({ result }) => assert.equal(result.finalOutput, "done", "the model's own answer ends the run"),
  });
});
