// tool-loop-guard/langchain inside a real LangChain agent (`createAgent` of langchain 1.x on
// LangGraph), driven by `fakeModel()` from @langchain/core/testing scripted to call the same tool
// at every turn; MemorySaver (from @langchain/langgraph-checkpoint, which langchain installs) saves threads.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { LoopGuard } from "tool-loop-guard";
import { guardLangChain } from "tool-loop-guard/langchain";
import { z } from "zod";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { adapterContract, ARGS, CONFIG, CYCLE, dropRepeatsContract, expectedRun, REPEATING_RESULTS, STUCK_RESULT, stopsByShape } from "./support.mjs";

/** The `recursionLimit` docs/adapters.md tells LangChain users to give `invoke()`. */
const DOCUMENTED_RECURSION_LIMIT = 100;

/** A fake model that calls `callOf(i)` (`{tool, args}`, default `status(ARGS)`) for `turns` turns, then answers "done". */
function repeatingModel(turns, callOf = () => ({ tool: "status", args: ARGS })) {
  const model = fakeModel();
  // Factories, not respondWithTools: that one's message text concatenates the whole history,
  // which doubles at every turn.
  for (let i = 0; i < turns; i += 1) {
    const { tool: name, args } = callOf(i);
    model.respond(() => new AIMessage({ content: "", tool_calls: [{ name, args, id: `call-${i}`, type: "tool_call" }] }));
  }
  return model.respond(new AIMessage("done"));
}

/** The text blocks of a system message. */
function systemTexts(message) {
  if (typeof message.content === "string") return message.content === "" ? [] : [message.content];
  return message.content.filter((block) => block.type === "text").map((block) => block.text);
}

const statusTool = (resultOf) => tool(async () => resultOf(), { name: "status", description: "Status of a background job", schema: z.object({ job: z.string() }) });

/**
 * One guarded run (one `invoke`, one user message) of the repeating model on thread `runId`;
 * `resultOf()` answers each execution. The middleware is one per process (kept in `session`), as
 * the docs set it up. The framework tests' run() functions and adapterContract options are
 * parallel on purpose: the same scenario written in each framework's own API; what they share is
 * in support.mjs.
 */
async function run(guard, { runId, resultOf, turns, session = {}, recursionLimit = 4 * turns + 10, model = repeatingModel(turns), tools = [statusTool(resultOf)], agentOptions = {} }) {
  const guarded = (session.guarded ??= guardLangChain(guard));
  const agent = createAgent({ model, tools, middleware: [guarded.middleware], ...agentOptions });
  const config = { configurable: { thread_id: runId }, ...(recursionLimit === null ? {} : { recursionLimit }) };
  const state = await agent.invoke({ messages: [{ role: "user", content: "Wait for job 42 to finish." }] }, config);
  const toolMessages = state.messages.filter((m) => m.type === "tool");
  return { state, toolMessages, model, agent, guarded, stopped: guarded.stopped(runId) };
}

describe("tool-loop-guard/langchain with langchain createAgent", () => {
  adapterContract({
    run,
    endRun: ({ guarded }, runId) => guarded.endRun(runId),
    turns: 60,
    modelCalls: ({ model }) => model.calls,
    toolOutputs: ({ toolMessages }) => toolMessages.map((m) => m.content),
    refusalIn: (content) => JSON.parse(content),
    promptTexts: (call) => call.messages.filter((m) => m.type === "system").flatMap(systemTexts),
    endsStopped({ state, toolMessages, model }, stopped, plan) {
      assert.equal(model.callCount, plan.stopAt, "no model call after the stop");
      const refused = toolMessages[plan.firstBlock - 1];
      assert.equal(refused.tool_call_id, `call-${plan.firstBlock - 1}`);
      assert.equal(refused.status, "error", "a refusal is an error ToolMessage");
      assert.equal(toolMessages[0].status, "success");
      const last = state.messages.at(-1);
      assert.equal(last.type, "ai");
      assert.equal(last.content, stopped.userMessage, "the last message tells the user why the run stopped");
    },
    endsDone: ({ state }) => assert.equal(state.messages.at(-1).content, "done", "the model's own answer ends the run"),
  });

  test(`framework limits: LangGraph's default recursion limit (25) throws before the default preset's stop; recursionLimit ${DOCUMENTED_RECURSION_LIMIT} lets the slowest loop stop cleanly`, async (t) => {
    const stops = stopsByShape({});
    const guard = new LoopGuard();
    const stuck = () => "job 42: still running";
    await assert.rejects(run(guard, { runId: "default-limit", resultOf: stuck, turns: 60, recursionLimit: null }), { name: "GraphRecursionError" });
    // The slowest shape for the default preset: three calls going round with the same results.
    const tools = CYCLE.map(({ tool: name, result }) => tool(async () => result, { name, description: name, schema: z.object({}) }));
    const model = repeatingModel(80, (i) => CYCLE[i % 3]);
    const ran = await run(guard, { runId: "documented-limit", turns: 80, model, tools, recursionLimit: DOCUMENTED_RECURSION_LIMIT });
    assert.equal(ran.stopped?.action, "stop");
    assert.equal(ran.toolMessages.length, stops.cycle, "stopped at the bare guard's call");
    assert.equal(Math.max(...Object.values(stops)), stops.cycle, "the cycle is the slowest shape");
    t.diagnostic(`default preset: stuck loops stop at call ${JSON.stringify(stops)}; each tool call costs 3 graph steps with the middleware`);
    guard.free();
  });

  test("hints stay out of the thread: after a warning, a checkpointed thread's saved messages hold no guard text, and the model saw the hint in its next call's system message only", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const hint = plan.verdicts[plan.firstWarn - 1].hint;
    assert.ok(plan.firstWarn < plan.firstBlock, "the turn ends after the warning, before any refusal");
    const guard = new LoopGuard(CONFIG);
    const session = {};
    const agentOptions = { checkpointer: new MemorySaver(), systemPrompt: "You wait for jobs." };
    const warned = await run(guard, { runId: "saved", resultOf: () => STUCK_RESULT, turns: plan.firstWarn, session, agentOptions });
    const next = await run(guard, { runId: "saved", resultOf: () => STUCK_RESULT, turns: 0, session, agentOptions });
    const systemOf = (call) => call.messages.filter((m) => m.type === "system").flatMap(systemTexts);
    assert.deepEqual(systemOf(warned.model.calls[plan.firstWarn - 1]), ["You wait for jobs."], "no hint before the warning");
    assert.deepEqual(systemOf(warned.model.calls[plan.firstWarn]), ["You wait for jobs.", hint], "the next model call had the hint after the system prompt");
    assert.deepEqual(systemOf(next.model.calls[0]), ["You wait for jobs."], "the next user message's call did not re-read it");
    const saved = await next.agent.getState({ configurable: { thread_id: "saved" } });
    const texts = saved.values.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    assert.equal(texts.length, plan.firstWarn * 2 + 4, "both turns are saved: question, calls, results, answer");
    assert.ok(!texts.some((text) => text.includes(hint) || text.includes("Loop warning")), "no guard text in the saved thread");
    assert.deepEqual(saved.values.messages.filter((m) => m.type === "human").map((m) => m.content), ["Wait for job 42 to finish.", "Wait for job 42 to finish."], "the user's words only");
    guard.free();
  });

  test("the same middleware twice, or two of them, is refused by LangChain with a clear error", () => {
    const guard = new LoopGuard();
    const first = guardLangChain(guard);
    const second = guardLangChain(guard);
    for (const middleware of [[first.middleware, first.middleware], [first.middleware, second.middleware]]) {
      assert.throws(() => createAgent({ model: fakeModel(), tools: [statusTool(() => "ok")], middleware }), /ToolLoopGuard is defined multiple times/);
    }
    guard.free();
  });
});

describe("tool-loop-guard/langchain: dropRepeatedResults", () => {
  /** The tool results of a list of messages: `[[tool_call_id, content], ...]`. */
  const toolResults = (messages) => messages.filter((m) => m.type === "tool").map((m) => [m.tool_call_id, m.content]);
  dropRepeatsContract({
    ids: REPEATING_RESULTS.map((_, i) => `call-${i}`),
    run: (guard, options) => {
      let n = 0;
      const session = { guarded: guardLangChain(guard, options) };
      return run(guard, { runId: "repeats", resultOf: () => REPEATING_RESULTS[n++], turns: REPEATING_RESULTS.length, session });
    },
    sent: ({ model }) => {
      const { messages } = model.calls.at(-1);
      assert.ok(messages.filter((m) => m.type === "tool").every((m) => ToolMessage.isInstance(m)), "the references are ToolMessages");
      return toolResults(messages);
    },
    kept: ({ state }) => toolResults(state.messages),
    build: (guard) => guardLangChain(guard, { dropRepeatedResults: true }),
  });
});
