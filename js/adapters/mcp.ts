/**
 * `tool-loop-guard/mcp`: the guard in front of a Model Context Protocol client's `callTool`
 * (`@modelcontextprotocol/sdk` 1.x `Client`, and the 2.x `@modelcontextprotocol/client`; both take
 * the request params first and pass the rest through). A `block` or `stop` answers with a tool
 * result `{ content: [text of the refusal], isError: true }` without contacting the server; every
 * result or thrown error is recorded; a warning's hint is appended to the result's content, where
 * the model reads it. MCP has no run or user message of its own: after a `stop` the host ends its
 * loop (`stopped(runId)` says so), calls `newUserTurn(runId)` when the next user message arrives
 * and `endRun(runId)` when the conversation ends; until the next user turn every further call of
 * a stopped run, whatever its tool, is refused with the stop's refusal without reaching the guard
 * or the server (the adapter cannot end the host's loop itself). A run id read from `_meta.runId`
 * is not sent on to the server. Guarding a client twice guards its original `callTool` again
 * (nothing is checked twice). No runtime import of the SDK.
 */
import { type CallGuard, guardedCall, refusalText, RunNotes, type StopVerdict } from "./guarded-call.js";

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
  /** The `stop` verdict that ended the run's current turn, if one did: the host should end its loop. */
  stopped: (runId?: string) => StopVerdict | undefined;
  /** A new user message on the run: forgets the last turn's stop, tells the guard (`progress(runId, "user_turn")`). */
  newUserTurn: (runId?: string) => void;
  /** The conversation is over: forgets the run in the guard (`guard.endRun`) and in these notes. */
  endRun: (runId?: string) => void;
}

/** The unguarded `callTool` of a guarded client, so that guarding it again wraps the original. */
const ORIGINAL = Symbol.for("tool-loop-guard.mcp.callTool");

type CallTool = (params: CallToolParams, ...rest: unknown[]) => Promise<unknown>;

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

/** `params` without the `_meta.runId` the run id was read from (the server has no use for it). */
function withoutMetaRunId(params: CallToolParams): CallToolParams {
  if (params._meta === undefined || !("runId" in params._meta)) return params;
  const { runId: _runId, ...meta } = params._meta;
  const { _meta, ...rest } = params;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

/** Puts the guard in front of `client.callTool` (an own property replaces the method on this client only). */
export function guardMcpClient<C extends McpClientLike>(guard: CallGuard, client: C, options: McpGuardOptions = {}): GuardedMcpClient<C> {
  const { runId: runIdOption } = options;
  const runIdOf = typeof runIdOption === "function" ? runIdOption : (params: CallToolParams) => runIdOption ?? metaRunId(params);
  const forwarded = runIdOption === undefined ? withoutMetaRunId : (params: CallToolParams) => params;
  const notes = new RunNotes(guard);
  let calls = 0;
  const own = client.callTool as CallTool & { [ORIGINAL]?: CallTool };
  const callTool = (own[ORIGINAL] ?? own).bind(client) as CallTool;
  const refused = (refusal: StopVerdict["refusal"]) => ({ content: [{ type: "text", text: refusalText(refusal) }], isError: true });
  const guarded = async (params: CallToolParams, ...rest: unknown[]): Promise<unknown> => {
    const runId = runIdOf(params);
    // A stopped run stays stopped until the next user turn: no call of it runs, whatever its tool.
    const stop = notes.stopped(runId);
    if (stop !== undefined) return refused(stop.refusal);
    let raw: unknown;
    // MCP requests carry no call id the host sees; a local one pairs the check with its record.
    const callId = `mcp-${(calls += 1)}`;
    const outcome = await guardedCall(guard, { runId, tool: params.name, args: params.arguments ?? {}, callId }, async () => {
      raw = await callTool(forwarded(params), ...rest);
      return comparable(raw);
    });
    if (outcome.kind === "refused") {
      notes.noteStop(runId, outcome.verdict);
      return refused(outcome.refusal);
    }
    if (outcome.threw) throw outcome.error;
    const result = raw as CallToolResultLike;
    if (outcome.hint === undefined || !Array.isArray(result?.content)) return raw;
    return { ...result, content: [...result.content, { type: "text", text: outcome.hint }] };
  };
  Object.defineProperty(guarded, ORIGINAL, { value: own[ORIGINAL] ?? own });
  Object.defineProperty(client, "callTool", { value: guarded, configurable: true, writable: true });
  return {
    client,
    stopped: (runId) => notes.stopped(runId),
    newUserTurn: (runId) => notes.newTurn(runId),
    endRun: (runId) => notes.endRun(runId),
  };
}
