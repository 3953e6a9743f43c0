// `npm run bench` (last part): what each framework adapter adds per tool call over the bare guard.
// Each side runs the same calls (a mixed workload: several runs, tools and argument sets, results
// that change, so nothing is refused) through an async dispatch: the bare side does check, await
// the tool, record, as the README's gateway does; the adapter side goes through the adapter's own
// entry point (AI SDK wrapped execute, OpenAI Agents input and output guardrails, LangChain
// wrapToolCall with a handler, Mastra tool hooks, MCP guarded callTool on a client object), without the framework
// around it. Interleaved rounds on fresh guards; medians. Figures only: nothing is asserted.
import { performance } from "node:perf_hooks";
import { guardAiSdk } from "../pkg/adapters/ai-sdk.js";
import { guardLangChain } from "../pkg/adapters/langchain.js";
import { guardMastra } from "../pkg/adapters/mastra.js";
import { guardMcpClient } from "../pkg/adapters/mcp.js";
import { guardOpenAIAgents } from "../pkg/adapters/openai-agents.js";
import { LoopGuard } from "../pkg/entries/node.js";
import { duration, met, printTable } from "./format.mjs";
import { median } from "./timing.mjs";

const CALLS = 4000;
const ROUNDS = 9;
const TARGET_NS = 10_000;

/** The calls: 8 runs, 3 tools, 5 argument sets, a result that changes with every call. */
const calls = Array.from({ length: CALLS }, (_, i) => ({
  runId: `run-${i % 8}`,
  tool: ["read_file", "search", "status"][i % 3],
  args: { path: `src/file-${i % 5}.ts`, line: i % 5 },
  callId: `call-${i}`,
  result: `line ${i}: const value = ${i};`,
}));

/** The bare guard in an async dispatch; `shape` makes the result what the framework returns. */
function bareSide(name, shape) {
  return {
    name,
    prepare: (guard) => async (c) => {
      const verdict = guard.check({ runId: c.runId, tool: c.tool, args: c.args, callId: c.callId });
      if (verdict.action === "block" || verdict.action === "stop") return verdict.refusal;
      const result = await shape(c.result);
      guard.record({ runId: c.runId, tool: c.tool, callId: c.callId, result });
      return result;
    },
  };
}

/**
 * Each side: a name, `prepare(guard)` returning `dispatch(call)` (a promise of the tool's answer),
 * and the bare side it is compared with (the one recording the same result shape).
 */
const sides = [
  bareSide("bare guard", (text) => text),
  // An MCP tool result is an object with a content array, which costs the guard more to fingerprint
  // than a string whatever calls it; the MCP adapter is compared with the bare guard recording it.
  bareSide("bare guard, MCP-shaped result", (text) => ({ content: [{ type: "text", text }] })),
  {
    name: "ai-sdk (wrapped execute)",
    prepare: (guard) => {
      // One wrap per run, as a server does per request.
      const wrapped = new Map();
      const execute = async (input, options) => options.result;
      const toolsOf = (runId) => {
        if (!wrapped.has(runId)) {
          const tools = Object.fromEntries(["read_file", "search", "status"].map((name) => [name, { execute }]));
          wrapped.set(runId, guardAiSdk(guard, { runId, tools }).tools);
        }
        return wrapped.get(runId);
      };
      return (c) => toolsOf(c.runId)[c.tool].execute(c.args, { toolCallId: c.callId, result: c.result });
    },
  },
  {
    name: "openai-agents (input + output guardrail)",
    prepare: (guard) => {
      const g = guardOpenAIAgents(guard);
      return async (c) => {
        const toolCall = { name: c.tool, callId: c.callId, arguments: JSON.stringify(c.args) };
        const context = { context: { runId: c.runId } };
        const decision = await g.inputGuardrail.run({ context, toolCall });
        if (decision.behavior.type !== "allow") return decision.behavior.message;
        const output = await c.result;
        await g.outputGuardrail.run({ context, toolCall, output });
        return output;
      };
    },
  },
  {
    name: "langchain (wrapToolCall)",
    prepare: (guard) => {
      const { middleware } = guardLangChain(guard);
      return (c) =>
        middleware.wrapToolCall(
          { toolCall: { name: c.tool, args: c.args, id: c.callId }, tool: undefined, runtime: { configurable: { thread_id: c.runId } } },
          async () => ({ content: c.result, tool_call_id: c.callId }),
        );
    },
  },
  {
    name: "mastra (tool hooks)",
    prepare: (guard) => {
      // One binding per run, as per agent call.
      const bindings = new Map();
      const hooksOf = (runId) => {
        if (!bindings.has(runId)) bindings.set(runId, guardMastra(guard, { runId }).hooks);
        return bindings.get(runId);
      };
      return async (c) => {
        const hooks = hooksOf(c.runId);
        const hook = { toolName: c.tool, input: c.args, context: { toolCallId: c.callId } };
        const before = hooks.beforeToolCall(hook);
        if (before !== undefined) return before.output;
        const output = await c.result;
        hooks.afterToolCall({ ...hook, output });
        return output;
      };
    },
  },
  {
    name: "mcp (guarded callTool)",
    baseline: "bare guard, MCP-shaped result",
    prepare: (guard) => {
      let next;
      const client = { callTool: async () => next };
      const g = guardMcpClient(guard, client);
      return (c) => {
        next = { content: [{ type: "text", text: c.result }] };
        return g.client.callTool({ name: c.tool, arguments: c.args, _meta: { runId: c.runId } });
      };
    },
  },
];

async function timeSide(side) {
  const guard = new LoopGuard();
  const dispatch = side.prepare(guard);
  const start = performance.now();
  for (const call of calls) await dispatch(call);
  const elapsed = performance.now() - start;
  const { byAction } = guard.stats();
  guard.free();
  if (byAction.block + byAction.stop > 0) throw new Error(`${side.name}: the workload was refused; the comparison would be unfair`);
  return (elapsed * 1e6) / calls.length;
}

const samples = new Map(sides.map((s) => [s.name, []]));
for (const side of sides) await timeSide(side); // warm-up
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? sides : [...sides].reverse();
  for (const side of order) samples.get(side.name).push(await timeSide(side));
}

console.log(`\nAdapter overhead per tool call over the bare guard (${CALLS} calls, median of ${ROUNDS} interleaved rounds, node ${process.version})\n`);
printTable(
  ["path", "per call", "over the bare guard", `target < ${duration(TARGET_NS)}`],
  sides.map((side) => {
    const ns = median(samples.get(side.name));
    if (side.name.startsWith("bare guard")) return [side.name, duration(ns), "—", ""];
    const over = ns - median(samples.get(side.baseline ?? "bare guard"));
    return [side.name, duration(ns), duration(Math.max(0, over)), met(over < TARGET_NS)];
  }),
);
