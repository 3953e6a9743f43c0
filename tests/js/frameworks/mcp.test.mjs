// tool-loop-guard/mcp in front of a real MCP client talking to a real McpServer over the SDK's
// in-memory transport pair, for both SDK generations: @modelcontextprotocol/sdk 1.x and the 2.x
// split packages (@modelcontextprotocol/client and /server); the server counts its executions, so a
// refused call provably never reached it. The "agent" is a host loop that calls the tool until the
// guard stops the run, as an MCP host would on behalf of a model that keeps asking; after a stop
// every further call of that run, of any tool, is refused until the host starts a new user turn.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTransport as InMemoryTransportV2, McpServer as McpServerV2 } from "@modelcontextprotocol/server";
import { LoopGuard } from "tool-loop-guard";
import { guardMcpClient } from "tool-loop-guard/mcp";
import { z } from "zod";
import { CONFIG, expectedRun, STUCK_RESULT } from "./support.mjs";

const ARGS = { job: "42" };

const GENERATIONS = [
  // 1.x takes a zod shape as inputSchema; 2.x a schema object.
  { name: "@modelcontextprotocol/sdk 1.x", Client, McpServer, InMemoryTransport, inputSchema: { job: z.string() } },
  { name: "@modelcontextprotocol/client + server 2.x", Client: ClientV2, McpServer: McpServerV2, InMemoryTransport: InMemoryTransportV2, inputSchema: z.object({ job: z.string() }) },
];

/** A connected client/server pair whose `status` tool answers `resultOf()`; `executed()` counts server runs. */
async function connect(sdk, resultOf) {
  const { Client, McpServer, InMemoryTransport } = sdk;
  let executions = 0;
  const metas = [];
  const server = new McpServer({ name: "jobs", version: "1.0.0" });
  server.registerTool(
    "status",
    { description: "Status of a background job", inputSchema: sdk.inputSchema },
    async (_args, extra) => {
      executions += 1;
      metas.push(extra?._meta ?? extra?.mcpReq?._meta); // 1.x: extra._meta; 2.x: ctx.mcpReq._meta
      return { content: [{ type: "text", text: resultOf(executions) }] };
    },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "host", version: "1.0.0" });
  await client.connect(clientTransport);
  return {
    client,
    executed: () => executions,
    /** The `_meta` of each request the server's tool received. */
    metas,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The host's loop: call `status` until the guard stops the run or `limit` calls were made. */
async function hostLoop(guarded, runId, limit) {
  const results = [];
  while (results.length < limit && guarded.stopped(runId) === undefined) {
    results.push(await guarded.client.callTool({ name: "status", arguments: ARGS, _meta: { runId } }));
  }
  return results;
}

for (const sdk of GENERATIONS) {
  describe(`tool-loop-guard/mcp with ${sdk.name}`, () => {
    test("an endlessly repeated call is refused at the core's call without reaching the server, then stopped", async () => {
      const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
      assert.ok(plan.firstBlock !== null && plan.stopAt !== null && plan.firstBlock < plan.stopAt);
      const guard = new LoopGuard(CONFIG);
      const mcp = await connect(sdk, () => STUCK_RESULT);
      const guarded = guardMcpClient(guard, mcp.client);
      const results = await hostLoop(guarded, "session-1", 100);
      assert.equal(mcp.executed(), plan.executed, "refused calls never reached the server");
      assert.equal(results.length, plan.stopAt);
      const refused = results[plan.firstBlock - 1];
      assert.equal(refused.isError, true);
      assert.deepEqual(JSON.parse(refused.content[0].text), plan.verdicts[plan.firstBlock - 1].refusal);
      const stopped = guarded.stopped("session-1");
      assert.equal(stopped.action, "stop");
      assert.equal(stopped.runId, "session-1");
      assert.deepEqual(JSON.parse(results.at(-1).content[0].text), stopped.refusal);
      assert.ok(stopped.userMessage.length > 0, "the stop explains itself to the user");
      assert.ok(mcp.metas.every((meta) => meta?.runId === undefined), "the run id read from _meta.runId was not sent to the server");
      await mcp.close();
      guard.free();
    });

    test("the warning's hint is appended to the tool result the model reads", async () => {
      const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
      const hint = plan.verdicts[plan.firstWarn - 1].hint;
      const guard = new LoopGuard(CONFIG);
      const mcp = await connect(sdk, () => STUCK_RESULT);
      const guarded = guardMcpClient(guard, mcp.client, { runId: "fixed" });
      const results = await hostLoop(guarded, "fixed", plan.firstWarn);
      assert.deepEqual(results[plan.firstWarn - 2].content, [{ type: "text", text: STUCK_RESULT }], "no hint before the warning");
      assert.deepEqual(results[plan.firstWarn - 1].content, [
        { type: "text", text: STUCK_RESULT },
        { type: "text", text: hint },
      ]);
      // With the runId option the request's _meta is the host's own and reaches the server as sent.
      assert.deepEqual(mcp.metas.map((meta) => meta?.runId), Array(plan.firstWarn).fill("fixed"));
      await mcp.close();
      guard.free();
    });

    test("a repeated call whose result changes is never refused", async () => {
      const guard = new LoopGuard(CONFIG);
      const mcp = await connect(sdk, (n) => `job 42: ${n} of 30 steps done`);
      const guarded = guardMcpClient(guard, mcp.client);
      const results = await hostLoop(guarded, "progress", 25);
      assert.equal(mcp.executed(), 25);
      assert.ok(results.every((r) => r.isError !== true));
      assert.equal(guarded.stopped("progress"), undefined);
      await mcp.close();
      guard.free();
    });

    test("two interleaved runs on one client and guard stay independent", async () => {
      const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
      const guard = new LoopGuard(CONFIG);
      const mcp = await connect(sdk, () => STUCK_RESULT);
      const guarded = guardMcpClient(guard, mcp.client);
      const [a, b] = await Promise.all([hostLoop(guarded, "session-a", 100), hostLoop(guarded, "session-b", 100)]);
      assert.equal(a.length, plan.stopAt);
      assert.equal(b.length, plan.stopAt);
      assert.equal(mcp.executed(), 2 * plan.executed, "each run reached the server as often as a run alone");
      await mcp.close();
      guard.free();
    });
  });

  describe(`tool-loop-guard/mcp with ${sdk.name}: conversation lifecycle and wrapping twice`, () => {
    test("a stop ends its turn only: after newUserTurn the run goes on clean; endRun forgets it", async () => {
      const guard = new LoopGuard(CONFIG);
      let stuck = true;
      let n = 0;
      const mcp = await connect(sdk, () => (stuck ? STUCK_RESULT : `job 42: ${(n += 1)} of 30 steps done`));
      const guarded = guardMcpClient(guard, mcp.client);
      await hostLoop(guarded, "session-1", 100);
      assert.equal(guarded.stopped("session-1")?.action, "stop");
      guarded.newUserTurn("session-1");
      assert.equal(guarded.stopped("session-1"), undefined, "the next user message starts clean");
      stuck = false;
      const next = await hostLoop(guarded, "session-1", 3);
      assert.equal(n, 3, "the next turn's calls reached the server");
      assert.ok(next.every((r) => r.isError !== true));
      const live = guard.stats().liveRuns;
      guarded.endRun("session-1");
      assert.equal(guard.stats().liveRuns, live - 1, "endRun forgot the run in the guard");
      await mcp.close();
      guard.free();
    });

    test("after a stop every further call of the run is refused, whatever its tool, until newUserTurn", async () => {
      const guard = new LoopGuard(CONFIG);
      const mcp = await connect(sdk, () => STUCK_RESULT);
      const guarded = guardMcpClient(guard, mcp.client);
      await hostLoop(guarded, "stopped", 100);
      const stop = guarded.stopped("stopped");
      assert.equal(stop?.action, "stop");
      const [executed, checks] = [mcp.executed(), guard.stats().checks];
      // The host does not end its loop: the model asks for other calls, and other tools, of the run.
      for (const params of [
        { name: "status", arguments: { job: "43" } },
        { name: "other_tool", arguments: {} },
        { name: "status", arguments: ARGS },
      ]) {
        const result = await guarded.client.callTool({ ...params, _meta: { runId: "stopped" } });
        assert.equal(result.isError, true, params.name);
        assert.deepEqual(JSON.parse(result.content[0].text), stop.refusal, "the stop's refusal");
      }
      assert.equal(mcp.executed(), executed, "no call of the stopped run reached the server");
      assert.equal(guard.stats().checks, checks, "nor the guard");
      const other = await guarded.client.callTool({ name: "status", arguments: { job: "43" }, _meta: { runId: "another" } });
      assert.notEqual(other.isError, true, "another run is not stopped");
      guarded.newUserTurn("stopped");
      const next = await guarded.client.callTool({ name: "status", arguments: { job: "43" }, _meta: { runId: "stopped" } });
      assert.notEqual(next.isError, true, "the next user turn runs again");
      assert.equal(mcp.executed(), executed + 2);
      await mcp.close();
      guard.free();
    });

    test("guarding a client twice guards its original callTool: each call checked once, sent once", async () => {
      const guard = new LoopGuard(CONFIG);
      const mcp = await connect(sdk, (n) => `job 42: ${n} of 30 steps done`);
      guardMcpClient(guard, mcp.client);
      const guarded = guardMcpClient(guard, mcp.client);
      await hostLoop(guarded, "twice", 3);
      assert.equal(mcp.executed(), 3);
      assert.equal(guard.stats().checks, 3);
      assert.equal(guard.stats().records, 3);
      await mcp.close();
      guard.free();
    });
  });
}
