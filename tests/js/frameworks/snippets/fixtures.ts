// What the snippet test (../snippets.test.mjs) binds the names a README or docs/adapters.md
// snippet leaves free to: each framework's own scripted model, stuck calling the same `status`
// tool, that tool, a connected MCP client, a Mastra agent. Compiled with the snippets.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Agent as MastraAgent } from "@mastra/core/agent";
import { MockMemory } from "@mastra/core/memory";
import { createTool } from "@mastra/core/tools";
import { tool as agentsTool } from "@openai/agents";
import { functionCall, modelResponder, ScriptedModel } from "@openai/agents/testing";
import { tool as aiTool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { MockLanguageModelV2 } from "ai-v5/test";
import { tool as langchainTool } from "langchain";
import { z } from "zod";

/** The answer of the stuck job: always the same, so the guard sees a loop. */
export const STUCK = "job 42: still running (0 of 10 steps done)";
export const jobStatus = async (job: string): Promise<string> => `job ${job}: still running (0 of 10 steps done)`;
const schema = z.object({ job: z.string() });

/** AI SDK 7: a mock model calling `status({job: "42"})` at every step. */
export function aiSdkModel(): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "tool-call", toolCallId: `call-${(step += 1)}`, toolName: "status", input: JSON.stringify({ job: "42" }) }],
      finishReason: { unified: "tool-calls", raw: undefined },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });
}

/** AI SDK 7: the `status` tool. */
export const aiSdkTools = () => ({ status: aiTool({ description: "Status of a job", inputSchema: schema, execute: async ({ job }) => jobStatus(job) }) });

/** OpenAI Agents: a scripted model calling `status` for 60 turns. */
export const agentsModel = () =>
  new ScriptedModel(Array.from({ length: 60 }, () => modelResponder(({ index }) => [functionCall("status", { job: "42" }, { callId: `call-${index}` })])));

/** OpenAI Agents: the `status` function tool. */
export const agentsStatus = () => agentsTool({ name: "status", description: "Status of a job", parameters: schema, execute: async ({ job }) => jobStatus(job) });

/** LangChain: a fake chat model calling `status` for 60 turns. */
export function langchainModel(): ReturnType<typeof fakeModel> {
  const model = fakeModel();
  for (let i = 0; i < 60; i += 1) model.respond(() => new AIMessage({ content: "", tool_calls: [{ name: "status", args: { job: "42" }, id: `call-${i}`, type: "tool_call" }] }));
  return model;
}

/** LangChain: the `status` tool. */
export const langchainStatus = () => langchainTool(async ({ job }: { job: string }) => jobStatus(job), { name: "status", description: "Status of a job", schema });

/** MCP: a client connected to an in-memory server whose `status` tool answers STUCK; `close()` ends both. */
export async function mcpClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = new McpServer({ name: "jobs", version: "1.0.0" });
  server.registerTool("status", { description: "Status of a job", inputSchema: { job: z.string() } }, async ({ job }) => ({ content: [{ type: "text", text: await jobStatus(job) }] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "host", version: "1.0.0" });
  await client.connect(clientTransport);
  return { client, close: async () => (await client.close(), await server.close()) };
}

/** Mastra: an agent (with a memory) whose mock model calls `status` at every step. */
export function mastraAgent(): MastraAgent {
  let step = 0;
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const model = new MockLanguageModelV2({
    doGenerate: async () => ({
      content: [{ type: "tool-call", toolCallId: `call-${(step += 1)}`, toolName: "status", input: JSON.stringify({ job: "42" }) }],
      finishReason: "tool-calls",
      usage,
      warnings: [],
    }),
  });
  const status = createTool({ id: "status", description: "Status of a job", inputSchema: schema, execute: async ({ job }) => jobStatus(job) });
  return new MastraAgent({ id: "waiter", name: "waiter", instructions: "Wait for the job.", model, tools: { status }, memory: new MockMemory() });
}
