// tool-loop-guard/openai-agents inside the real OpenAI Agents SDK (@openai/agents), driven by its
// ScriptedModel from @openai/agents/testing scripted to call the same tool at every turn. Nothing
// leaves the process: the scripted model replaces the Responses API.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Agent, MaxTurnsExceededError, Runner, tool } from "@openai/agents";
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from "@openai/agents/testing";
import { LoopGuard } from "tool-loop-guard";
import { guardOpenAIAgents } from "tool-loop-guard/openai-agents";
import { z } from "zod";
import { adapterContract, ARGS, CONFIG, CYCLE, STUCK_RESULT, stopsByShape } from "./support.mjs";

/** The `maxTurns` docs/adapters.md tells OpenAI Agents users to give `run()`. */
const DOCUMENTED_MAX_TURNS = 25;

/** A scripted model that calls `callOf(i)` (`{tool, args}`, default `status(ARGS)`) for `turns` turns, then answers "done". */
function repeatingModel(turns, callOf = () => ({ tool: "status", args: ARGS })) {
  return new ScriptedModel([
    ...Array.from({ length: turns }, () => modelResponder(({ index }) => [functionCall(callOf(index).tool, callOf(index).args, { callId: `call-${index}` })])),
    [assistantMessage("done")],
  ]);
}

/** The `status` tool, answering `resultOf()`. */
function statusTool(resultOf) {
  return tool({ name: "status", description: "Status of a background job", parameters: z.object({ job: z.string() }), execute: async () => resultOf() });
}

/**
 * One guarded run of the repeating model on thread `runId`; `resultOf()` answers each execution.
 * The adapter is one per process (kept in `session`), as the docs set it up. The framework tests'
 * run() functions and adapterContract options are parallel on purpose: the same scenario written
 * in each framework's own API; what they share is in support.mjs.
 */
async function run(guard, { runId, resultOf, turns, session = {}, maxTurns = turns + 1, sdkDefaultMaxTurns = false, model = repeatingModel(turns), tools = [statusTool(resultOf)] }) {
  const guarded = (session.guarded ??= guardOpenAIAgents(guard));
  const agent = new Agent({
    name: "waiter",
    instructions: "Wait for the job.",
    model,
    tools: guarded.guardTools(tools),
    toolUseBehavior: guarded.toolUseBehavior,
  });
  const runner = new Runner({ tracingDisabled: true, callModelInputFilter: guarded.callModelInputFilter });
  const options = sdkDefaultMaxTurns ? { context: { threadId: runId } } : { context: { threadId: runId }, maxTurns };
  const result = await runner.run(agent, "Wait for job 42 to finish.", options);
  const outputs = result.newItems.filter((item) => item.type === "tool_call_output_item").map((item) => item.output);
  return { result, outputs, model, guarded, stopped: guarded.stopped(runId) };
}

describe("tool-loop-guard/openai-agents with @openai/agents", () => {
  adapterContract({
    run,
    endRun: ({ guarded }, runId) => guarded.endRun(runId),
    turns: 60,
    modelCalls: ({ model }) => model.calls,
    toolOutputs: ({ outputs }) => outputs,
    refusalIn: (output) => JSON.parse(output),
    promptTexts: (call) =>
      (Array.isArray(call.request.input) ? call.request.input : [])
        .filter((item) => item.role === "user")
        .map((item) => (typeof item.content === "string" ? item.content : item.content.map((c) => c.text).join(""))),
    endsStopped: ({ result }, stopped) => assert.equal(result.finalOutput, stopped.userMessage, "the final output tells the user why the run stopped"),
    endsDone: ({ result }) => assert.equal(result.finalOutput, "done", "the model's own answer ends the run"),
  });

  test(`framework limits: the SDK's default maxTurns (10) throws before the default preset's stop; maxTurns ${DOCUMENTED_MAX_TURNS} lets the slowest loop stop cleanly`, async (t) => {
    const stops = stopsByShape({});
    const guard = new LoopGuard();
    await assert.rejects(run(guard, { runId: "default-limit", resultOf: () => STUCK_RESULT, turns: 60, sdkDefaultMaxTurns: true }), MaxTurnsExceededError);
    // The slowest shape for the default preset: three calls going round with the same results.
    const tools = CYCLE.map(({ tool: name, result }) => tool({ name, description: name, parameters: z.object({}), execute: async () => result }));
    const model = repeatingModel(60, (i) => CYCLE[i % 3]);
    const ran = await run(guard, { runId: "documented-limit", turns: 60, model, tools, maxTurns: DOCUMENTED_MAX_TURNS });
    assert.equal(ran.stopped?.action, "stop");
    assert.equal(ran.outputs.length, stops.cycle, "stopped at the bare guard's call");
    assert.equal(Math.max(...Object.values(stops)), stops.cycle, "the cycle is the slowest shape");
    assert.equal(ran.result.finalOutput, ran.stopped.userMessage);
    t.diagnostic(`default preset: stuck loops stop at call ${JSON.stringify(stops)}; the SDK's maxTurns 10 ends the run first`);
    guard.free();
  });

  test("a stop lasts until the next run() only: a next run() that answers without a tool call clears it", async () => {
    const guard = new LoopGuard(CONFIG);
    const session = {};
    const first = await run(guard, { runId: "thread-1", resultOf: () => STUCK_RESULT, turns: 60, session });
    assert.equal(first.stopped?.action, "stop");
    const next = await run(guard, { runId: "thread-1", resultOf: () => STUCK_RESULT, turns: 0, session });
    assert.equal(next.result.finalOutput, "done", "a text-only turn");
    assert.equal(next.outputs.length, 0);
    assert.equal(session.guarded.stopped("thread-1"), undefined, "the next user message cleared the stop");
    guard.free();
  });

  test("guardTools twice (and by a second guardOpenAIAgents) replaces the guardrails instead of stacking them", async () => {
    const guard = new LoopGuard();
    const first = guardOpenAIAgents(guard);
    const second = guardOpenAIAgents(guard);
    const status = statusTool(() => "job 42: done");
    first.guardTools([status]);
    first.guardTools([status]);
    second.guardTools([status]);
    assert.equal(status.inputGuardrails.length, 1);
    assert.equal(status.outputGuardrails.length, 1);
    const ran = await run(guard, { runId: "twice", resultOf: () => "job 42: done", turns: 3, session: { guarded: second } });
    assert.equal(ran.outputs.length, 3);
    assert.equal(guard.stats().checks, 3, "each call checked once");
    assert.equal(guard.stats().records, 3, "each outcome recorded once");
    guard.free();
  });
});
