// tool-loop-guard/ai-sdk inside the real AI SDK, majors 5, 6 and 7 (installed side by side in this
// package as `ai-v5`, `ai-v6` and `ai`), driven by each major's own mock model from `ai/test`
// scripted to call the same tool again and again. Runs under Node 22 (ai 7 needs it).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { guardAiSdk } from "tool-loop-guard/ai-sdk";
import { z } from "zod";
import { adapterContract, ARGS, CONFIG, CYCLE, dropRepeatsContract, REPEATING_RESULTS, stopsByShape } from "./support.mjs";

const MAJORS = [
  { name: "ai 5", ai: await import("ai-v5"), test: await import("ai-v5/test"), mock: "MockLanguageModelV2" },
  { name: "ai 6", ai: await import("ai-v6"), test: await import("ai-v6/test"), mock: "MockLanguageModelV3" },
  { name: "ai 7", ai: await import("ai"), test: await import("ai/test"), mock: "MockLanguageModelV4" },
];

/** The step bound docs/adapters.md tells AI SDK users to keep beside the guard's stopWhen. */
const DOCUMENTED_STEP_COUNT = 25;

/** A mock model of the given major that calls `callOf(i)` (`{tool, args}`, default `status(ARGS)`) at every step. */
function repeatingModel(major, callOf = () => ({ tool: "status", args: ARGS })) {
  let step = 0;
  const v2 = major.mock === "MockLanguageModelV2";
  return new major.test[major.mock]({
    doGenerate: async () => {
      const { tool, args } = callOf(step);
      step += 1;
      return {
        content: [{ type: "tool-call", toolCallId: `call-${step}`, toolName: tool, input: JSON.stringify(args) }],
        finishReason: v2 ? "tool-calls" : { unified: "tool-calls", raw: undefined },
        usage: v2
          ? { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
          : {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 1, text: 1, reasoning: 0 },
            },
        warnings: [],
      };
    },
  });
}

/** The `status` tool of the given major, answering `resultOf()`. */
function statusTool(major, resultOf) {
  return major.ai.tool({ description: "Status of a background job", inputSchema: z.object({ job: z.string() }), execute: async () => resultOf() });
}

/**
 * One guarded `generateText` run (one request, one user message) of the repeating model;
 * `resultOf()` answers each execution, `turns` caps the steps. The tools are wrapped per request,
 * as the docs say; `tools` may be given already wrapped; `options` are more of guardAiSdk's.
 */
async function run(major, guard, { runId, resultOf, turns, tools = { status: statusTool(major, resultOf) }, options = {}, model = repeatingModel(major) }) {
  const guarded = guardAiSdk(guard, { runId, tools, ...options });
  const result = await major.ai.generateText({
    model,
    prompt: "Wait for job 42 to finish.",
    tools: guarded.tools,
    stopWhen: [guarded.stopWhen, major.ai.stepCountIs(turns)],
    prepareStep: guarded.prepareStep,
  });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output));
  return { result, outputs, model, guarded, stopped: guarded.stopped() };
}

for (const major of MAJORS) {
  describe(`tool-loop-guard/ai-sdk with ${major.name}`, () => {
    adapterContract({
      run: (guard, options) => run(major, guard, options),
      endRun: ({ guarded }) => guarded.endRun(),
      turns: 100,
      modelCalls: ({ model }) => model.doGenerateCalls,
      toolOutputs: ({ outputs }) => outputs,
      promptTexts: (call) => call.prompt.filter((m) => m.role === "user").flatMap((m) => m.content.map((part) => part.text)),
      endsStopped({ result, outputs }, stopped, plan) {
        assert.equal(result.steps.length, plan.stopAt, "stopWhen ended the loop at the stop");
        assert.equal(outputs[plan.firstBlock - 1].error, "tool_loop_detected");
      },
      endsDone: ({ outputs }) => assert.ok(outputs.every((o) => typeof o === "string"), "every output is the tool's own"),
    });
  });
}

describe("tool-loop-guard/ai-sdk: the step bound", () => {
  test(`stepCountIs(${DOCUMENTED_STEP_COUNT}) beside guarded.stopWhen lets the default and strict presets stop the slowest loop: the user reads the stop's userMessage`, async (t) => {
    const [major] = MAJORS.slice(-1);
    for (const config of [{}, { preset: "strict" }]) {
      const stops = stopsByShape(config);
      assert.equal(Math.max(...Object.values(stops)), stops.cycle, "the cycle is the slowest shape");
      assert.ok(stops.cycle <= DOCUMENTED_STEP_COUNT);
      const guard = new LoopGuard(config);
      const tools = Object.fromEntries(CYCLE.map(({ tool, result }) => [tool, major.ai.tool({ description: tool, inputSchema: z.object({}), execute: async () => result })]));
      const ran = await run(major, guard, { runId: "cycle", turns: DOCUMENTED_STEP_COUNT, tools, model: repeatingModel(major, (i) => CYCLE[i % 3]) });
      assert.equal(ran.stopped?.action, "stop", `${config.preset ?? "default"}: the guard's stop ended the loop`);
      assert.equal(ran.result.steps.length, stops.cycle, "at the bare guard's call");
      assert.ok((ran.stopped?.userMessage ?? ran.result.text).length > 0, "the user reads the guard's words");
      t.diagnostic(`${config.preset ?? "default"} preset: loops stop at call ${JSON.stringify(stops)}`);
      guard.free();
    }
  });
});

describe("tool-loop-guard/ai-sdk: wrapping twice", () => {
  test("wrapping tools that are already guarded wraps their original execute: each call is checked and recorded once", async () => {
    const [major] = MAJORS.slice(-1);
    const guard = new LoopGuard(CONFIG);
    let executed = 0;
    const once = guardAiSdk(guard, { runId: "twice", tools: { status: statusTool(major, () => `job 42: ${(executed += 1)} of 30 steps done`) } });
    const twice = guardAiSdk(guard, { runId: "twice", tools: once.tools });
    const ran = await run(major, guard, { runId: "twice", turns: 4, tools: twice.tools });
    assert.equal(executed, 4);
    assert.equal(ran.outputs.length, 4);
    assert.equal(guard.stats().checks, 4, "each call checked once");
    assert.equal(guard.stats().records, 4, "each outcome recorded once");
    guard.free();
  });
});

/** The tool results of one model call's prompt: `[[toolCallId, text], ...]`. */
const toolResultsSent = (call) => call.prompt.filter((m) => m.role === "tool").flatMap((m) => m.content.map((p) => [p.toolCallId, p.output.value]));

for (const major of MAJORS) {
  describe(`tool-loop-guard/ai-sdk with ${major.name}: dropRepeatedResults`, () => {
    const ids = REPEATING_RESULTS.map((_, i) => `call-${i + 1}`);
    dropRepeatsContract({
      ids,
      run: (guard, options) => {
        let n = 0;
        return run(major, guard, { runId: "repeats", resultOf: () => REPEATING_RESULTS[n++], turns: REPEATING_RESULTS.length + 1, options });
      },
      sent: ({ model }) => toolResultsSent(model.doGenerateCalls.at(-1)),
      kept: ({ result }) => result.steps.flatMap((step) => step.toolResults.map((r) => [r.toolCallId, r.output])).slice(0, ids.length),
      build: (guard) => guardAiSdk(guard, { tools: {}, dropRepeatedResults: true }),
    });
  });
}
