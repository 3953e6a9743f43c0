/**
 * `tool-loop-guard/mcp`: the guard in front of a Model Context Protocol client's `callTool`
 * (`@modelcontextprotocol/sdk` 1.x `Client`, and the 2.x `@modelcontextprotocol/client`; both take
 * the request params first and pass the rest through). A `block` or `stop` answers with a tool
 * result `{ content: [text of the refusal], isError: true }` without contacting the server; every
 * result or thrown error is recorded; a warning's hint is appended to the result's content, where
 * the model reads it. MCP has no run of its own to end: after a `stop` the host ends its loop
 * (`stopped(runId)` says so). No runtime import of the SDK.
 */
import type { Verdict } from "../types.js";
import { type CallGuard, guardedCall, refusalText, RunNotes } from "./guarded-call.js";

/** `CallToolRequest["params"]`. */
interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** `CallToolResult` (the compatibility `toolResult` form passes through untouched). */
interface CallToolResultLike {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** Any client with `callTool(params, ...rest)`. */
export interface McpClientLike {
  callTool(params: CallToolParams, ...rest: never[]): Promise<unknown>;
}

export interface McpGuardOptions {
  /**
   * The run a call belongs to: a fixed id, or read from the request. Default: the string
   * `params._meta.runId`, else the guard's default run.
   */
  runId?: string | ((params: CallToolParams) => string | undefined);
}

export interface GuardedMcpClient<C> {
  /** The same client; its `callTool` now goes through the guard. */
  client: C;
  /** The `stop` verdict that ended the run, if one did: the host should end its loop. */
  stopped: (runId?: string) => Verdict | undefined;
}

function metaRunId(params: CallToolParams): string | undefined {
  const id = params._meta?.["runId"];
  return typeof id === "string" ? id : undefined;
}

/** What the guard compares of a result: what the model sees, without the protocol's `_meta`. */
function comparable(result: unknown): unknown {
  if (typeof result !== "object" || result === null) return result;
  const { content, structuredContent, isError, toolResult } = result as CallToolResultLike;
  return { content, structuredContent, isError, toolResult };
}

/** Puts the guard in front of `client.callTool` (an own property replaces the method on this client only). */
export function guardMcpClient<C extends McpClientLike>(guard: CallGuard, client: C, options: McpGuardOptions = {}): GuardedMcpClient<C> {
  const { runId: runIdOption } = options;
  const runIdOf = typeof runIdOption === "function" ? runIdOption : (params: CallToolParams) => runIdOption ?? metaRunId(params);
  const notes = new RunNotes();
  let calls = 0;
  const callTool = client.callTool.bind(client) as (params: CallToolParams, ...rest: unknown[]) => Promise<unknown>;
  const guarded = async (params: CallToolParams, ...rest: unknown[]): Promise<unknown> => {
    const runId = runIdOf(params);
    let raw: unknown;
    // MCP requests carry no call id the host sees; a local one pairs the check with its record.
    const callId = `mcp-${(calls += 1)}`;
    const outcome = await guardedCall(guard, { runId, tool: params.name, args: params.arguments ?? {}, callId }, async () => {
      raw = await callTool(params, ...rest);
      return comparable(raw);
    });
    if (outcome.kind === "refused") {
      if (outcome.verdict.action === "stop") notes.stop(runId ?? "", outcome.verdict);
      return { content: [{ type: "text", text: refusalText(outcome.refusal) }], isError: true };
    }
    if (outcome.threw) throw outcome.error;
    const result = raw as CallToolResultLike;
    if (outcome.hint === undefined || !Array.isArray(result?.content)) return raw;
    return { ...result, content: [...result.content, { type: "text", text: outcome.hint }] };
  };
  Object.defineProperty(client, "callTool", { value: guarded, configurable: true, writable: true });
  return { client, stopped: (runId) => notes.stopped(runId ?? "") };
}
