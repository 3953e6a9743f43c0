// tool-loop-guard/mastra inside a real Mastra agent (@mastra/core 1.x), driven by the AI SDK's
// MockLanguageModelV2 (from ai 5's `ai/test`, a model Mastra accepts) scripted to call the same
// tool at every step. Mastra needs Node >= 22.13: these tests run under the Node 22 setup installs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Agent } from "@mastra/core/agent";
import { MockMemory } from "@mastra/core/memory";
import { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";
import { MockLanguageModelV2 } from "ai-v5/test";
import { LoopGuard } from "tool-loop-guard";
import { guardMastra } from "tool-loop-guard/mastra";
import { z } from "zod";
import { adapterContract, ARGS, CONFIG, CYCLE, dropRepeatsContract, REPEATING_RESULTS, STUCK_RESULT, stopsByShape } from "./support.mjs";

const USAGE = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A mock model that calls `callOf(i)` (`{tool, args}`, default `status(ARGS)`) for `turns` steps, then answers "done". */
function repeatingModel(turns, callOf = () => ({ tool: "status", args: ARGS })) {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: async () => {
      step += 1;
      if (step > turns) return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage: USAGE, warnings: [] };
      const { tool, args } = callOf(step - 1);
      const call = { type: "tool-call", toolCallId: `call-${step}`, toolName: tool, input: JSON.stringify(args) };
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
  test("guarded.stopWhen keeps a bound of its own (a stopWhen replaces Mastra's 5 steps): 25 steps by default, or maxSteps", async () => {
    for (const [maxSteps, steps] of [[null, 25], [8, 8]]) {
      const guard = new LoopGuard(CONFIG);
      let n = 0;
      const ran = await run(guard, { runId: "bounded", resultOf: () => `job 42: ${(n += 1)} of 99 steps done`, turns: 40, maxSteps });
      assert.equal(ran.model.doGenerateCalls.length, steps, `a run whose results keep changing ends after ${steps} steps`);
      assert.equal(ran.stopped, undefined, "the guard did not stop it: the bound did");
      guard.free();
    }
  });

  test("the default bound lets the default and strict presets stop every loop shape: the user reads the stop's userMessage, never an empty answer", async (t) => {
    for (const config of [{}, { preset: "strict" }]) {
      const stops = stopsByShape(config);
      const slowest = Math.max(...Object.values(stops));
      assert.equal(slowest, stops.cycle, "the cycle is the slowest shape");
      const guard = new LoopGuard(config);
      const model = repeatingModel(60, (i) => CYCLE[i % 3]);
      const tools = Object.fromEntries(
        CYCLE.map(({ tool, result }) => [tool, createTool({ id: tool, description: tool, inputSchema: z.object({}), execute: async () => result })]),
      );
      const agent = new Agent({ id: "cycler", name: "cycler", instructions: "Go round.", model, tools });
      const guarded = guardMastra(guard);
      const result = await agent.generate("Go.", {
        requestContext: new RequestContext([["mastra__threadId", "cycle"]]),
        hooks: guarded.hooks,
        stopWhen: guarded.stopWhen,
        prepareStep: guarded.prepareStep,
      });
      assert.equal(guarded.stopped()?.action, "stop", `${config.preset ?? "default"}: the guard's stop ended the loop, not the bound`);
      assert.equal(model.doGenerateCalls.length, slowest, "at the bare guard's call");
      const answer = guarded.stopped()?.userMessage ?? result.text;
      assert.ok(answer.length > 0, "the user reads the guard's words");
      t.diagnostic(`${config.preset ?? "default"} preset: loops stop at call ${JSON.stringify(stops)}; guardMastra's default bound is 25 steps`);
      guard.free();
    }
  });
});

/** A model that calls `status(ARGS)` `calls` times, then answers "done": one user message's turn. */
async function ask(guard, memory, { thread, resource, calls, executions, bindings, requestContext }) {
  const status = createTool({
    id: "status",
    description: "Status of a background job",
    inputSchema: z.object({ job: z.string() }),
    execute: async () => (executions.set(thread, (executions.get(thread) ?? 0) + 1), STUCK_RESULT),
  });
  const agent = new Agent({ id: "waiter", name: "waiter", instructions: "Wait for the job.", model: repeatingModel(calls), tools: { status }, memory });
  const guarded = guardMastra(guard, { onWarning: (message) => bindings.warnings.push(message) });
  bindings.list.push(guarded);
  const result = await agent.generate("Is job 42 done?", {
    memory: { thread, resource },
    ...(requestContext && { requestContext }),
    hooks: guarded.hooks,
    stopWhen: guarded.stopWhen,
    prepareStep: guarded.prepareStep,
  });
  return { result, guarded };
}

describe("tool-loop-guard/mastra: conversations on memory threads", () => {
  const users = [
    { thread: "thread-alice", resource: "alice" },
    { thread: "thread-bob", resource: "bob" },
  ];

  /** Each user asks 3 times (2 status calls each); `together`: the users' asks interleaved on one guard. */
  async function conversations(together) {
    const executions = new Map();
    const bindings = { list: [], warnings: [] };
    const guards = [];
    const memory = new MockMemory();
    const guardOf = (i) => (together ? (guards[0] ??= new LoopGuard(CONFIG)) : (guards[i] ??= new LoopGuard(CONFIG)));
    for (let round = 0; round < 3; round += 1) {
      await Promise.all(users.map((user, i) => ask(guardOf(i), memory, { ...user, calls: 2, executions, bindings })));
    }
    return { executions, bindings, guards };
  }

  test("two users on two memory threads, interleaved, each asking 3 times, get two runs: each runs as it would alone", async () => {
    const alone = await conversations(false);
    const together = await conversations(true);
    const [guard] = together.guards;
    assert.equal(guard.stats().liveRuns, 2, "one run per memory thread");
    for (const { thread } of users) {
      assert.ok(alone.executions.get(thread) > 0);
      assert.equal(together.executions.get(thread), alone.executions.get(thread), `${thread}: no call refused because of the other user's`);
    }
    assert.deepEqual(together.bindings.warnings, [], "the memory thread names each conversation: no warning");
    for (const g of [...alone.guards, ...together.guards]) g.free();
  });

  test("guarded.endRun() on a binding whose turn made no tool call ends that thread's run, not the default run", async () => {
    const guard = new LoopGuard(CONFIG);
    const memory = new MockMemory();
    const executions = new Map();
    const bindings = { list: [], warnings: [] };
    // Named as Mastra's server names it too, so that the thread's run exists however it is found.
    const requestContext = () => new RequestContext([["mastra__threadId", users[0].thread]]);
    await ask(guard, memory, { ...users[0], calls: 1, executions, bindings, requestContext: requestContext() });
    assert.equal(guard.stats().liveRuns, 1);
    const { guarded, result } = await ask(guard, memory, { ...users[0], calls: 0, executions, bindings, requestContext: requestContext() });
    assert.equal(result.text, "done", "a text-only turn");
    guarded.endRun();
    assert.equal(guard.stats().liveRuns, 0, "the thread's run is gone");
    guard.free();
  });

  test("when nothing names the conversation, the adapter says so once per guard (onWarning) and the calls share the default run", async () => {
    const guard = new LoopGuard(CONFIG);
    const warnings = [];
    for (let i = 0; i < 2; i += 1) {
      const guarded = guardMastra(guard, { onWarning: (message) => warnings.push(message) });
      const agent = new Agent({ id: "waiter", name: "waiter", instructions: "Wait.", model: repeatingModel(1), tools: { status: createTool({ id: "status", description: "s", inputSchema: z.object({ job: z.string() }), execute: async () => "ok" }) } });
      await agent.generate("Is job 42 done?", { hooks: guarded.hooks, stopWhen: guarded.stopWhen, prepareStep: guarded.prepareStep });
    }
    assert.equal(warnings.length, 1, "said once");
    assert.match(warnings[0], /default run/);
    assert.match(warnings[0], /memory/);
    guard.free();
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
