// Compiled (not run) by types.test.mjs: each adapter's documented use, type-checked against the
// real framework's own declarations. Fails to compile if an adapter's shapes drift from them.
import { generateText, stepCountIs, tool } from "ai";
import { generateText as generateText6, tool as tool6 } from "ai-v6";
import { generateText as generateText5, tool as tool5 } from "ai-v5";
import { Agent, Runner, tool as agentTool } from "@openai/agents";
import { createAgent, tool as lcTool } from "langchain";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LoopGuard } from "tool-loop-guard";
import { guardAiSdk } from "tool-loop-guard/ai-sdk";
import { guardOpenAIAgents } from "tool-loop-guard/openai-agents";
import { guardLangChain } from "tool-loop-guard/langchain";
import { guardMcpClient } from "tool-loop-guard/mcp";
import { guardMastra } from "tool-loop-guard/mastra";
import { fromOpenClawConfig, toolLoopGuardPlugin, type OpenClawPluginEntry } from "tool-loop-guard/openclaw";
import { Agent as MastraAgent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { observeGuardMetrics } from "tool-loop-guard/otel";
import { metrics } from "@opentelemetry/api";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { z } from "zod";

declare const model: Parameters<typeof generateText>[0]["model"];
declare const model6: Parameters<typeof generateText6>[0]["model"];
declare const model5: Parameters<typeof generateText5>[0]["model"];
const guard = new LoopGuard({ preset: "strict" });
const schema = z.object({ job: z.string() });

export async function aiSdk7(): Promise<string> {
  const g = guardAiSdk(guard, { runId: "t", tools: { status: tool({ inputSchema: schema, execute: async ({ job }) => job }) } });
  const r = await generateText({ model, prompt: "p", tools: g.tools, stopWhen: [g.stopWhen, stepCountIs(20)], prepareStep: g.prepareStep });
  return r.text;
}

export async function aiSdk6(): Promise<string> {
  const g = guardAiSdk(guard, { runId: "t", tools: { status: tool6({ inputSchema: schema, execute: async ({ job }) => job }) } });
  const r = await generateText6({ model: model6, prompt: "p", tools: g.tools, stopWhen: g.stopWhen, prepareStep: g.prepareStep });
  return r.text;
}

export async function aiSdk5(): Promise<string> {
  const g = guardAiSdk(guard, { runId: "t", tools: { status: tool5({ inputSchema: schema, execute: async ({ job }) => job }) } });
  const r = await generateText5({ model: model5, prompt: "p", tools: g.tools, stopWhen: g.stopWhen, prepareStep: g.prepareStep });
  return r.text;
}

export async function openaiAgents(): Promise<unknown> {
  const g = guardOpenAIAgents(guard);
  const status = agentTool({ name: "status", description: "d", parameters: schema, execute: async ({ job }) => job });
  const direct = agentTool({ name: "direct", description: "d", parameters: schema, execute: async ({ job }) => job, inputGuardrails: [g.inputGuardrail], outputGuardrails: [g.outputGuardrail] });
  const agent = new Agent({ name: "a", tools: [...g.guardTools([status]), direct], toolUseBehavior: g.toolUseBehavior });
  const runner = new Runner({ callModelInputFilter: g.callModelInputFilter });
  const r = await runner.run(agent, "p", { context: { threadId: "t" } });
  return r.finalOutput;
}

export async function langchain(): Promise<unknown> {
  const g = guardLangChain(guard);
  const status = lcTool(async ({ job }: { job: string }) => job, { name: "status", description: "d", schema });
  const agent = createAgent({ model: "openai:gpt-4o", tools: [status], middleware: [g.middleware] });
  return agent.invoke({ messages: [{ role: "user", content: "p" }] }, { configurable: { thread_id: "t" } });
}

export async function mcp(): Promise<unknown> {
  const g = guardMcpClient(guard, new Client({ name: "host", version: "1.0.0" }));
  return g.client.callTool({ name: "status", arguments: { job: "42" } });
}

export function otel(): () => void {
  const stopGlobal = observeGuardMetrics(guard, metrics.getMeter("app"));
  const stopSdk = observeGuardMetrics(guard, new MeterProvider().getMeter("app"));
  return () => (stopGlobal(), stopSdk());
}

export async function mastra(): Promise<string> {
  const status = createTool({ id: "status", description: "d", inputSchema: schema, execute: async ({ job }) => job });
  const agent = new MastraAgent({ id: "a", name: "a", instructions: "i", model: model5, tools: { status } });
  const g = guardMastra(guard, { runId: "t" });
  const r = await agent.generate("p", { hooks: g.hooks, stopWhen: g.stopWhen, prepareStep: g.prepareStep });
  return r.text;
}

export const openclawPlugin: OpenClawPluginEntry = toolLoopGuardPlugin((agentId, config) => new LoopGuard(fromOpenClawConfig(config, agentId)));
