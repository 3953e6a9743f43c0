/**
 * `tool-loop-guard/openclaw`: the guard as an OpenClaw gateway plugin, and the gateway's own
 * `tools.loopDetection` config as a guard config. The plugin registers typed hooks on the plugin
 * API: `before_tool_call` checks each call and answers `block` and `stop` with
 * `{ block: true, blockReason }` (the refusal, which the model receives in place of the tool's
 * result), `after_tool_call` records every result or error, and `before_prompt_build` adds pending
 * hints to the next prompt. A plugin cannot end an agent run: after a `stop` every further call is
 * refused, and the run ends when the model stops calling tools or OpenClaw's own limits end it. The
 * run id is the session key (else the session id, else the run id). No runtime import of OpenClaw.
 */
import type { LoopGuardConfig } from "../types.js";
import type { CallGuard } from "./guarded-call.js";
import { refusalText, RunNotes } from "./guarded-call.js";

/** `PluginHookToolContext` (and the agent context of prompt hooks): where the run is named. */
interface HookContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  runId?: string;
  toolCallId?: string;
}

/** `PluginHookBeforeToolCallEvent`; `after_tool_call` adds `result`, `error` and `durationMs`. */
interface ToolCallEvent {
  toolName: string;
  params?: unknown;
  runId?: string;
  toolCallId?: string;
  result?: unknown;
  error?: string;
}

/** The part of `OpenClawPluginApi` the plugin uses. */
export interface OpenClawPluginApiLike {
  config?: unknown;
  on(hookName: string, handler: (event: never, ctx: never) => unknown): void;
}

/** What `definePluginEntry` takes and a plugin module default-exports. */
export interface OpenClawPluginEntry {
  id: string;
  name: string;
  description: string;
  register(api: OpenClawPluginApiLike): void;
}

/** A guard, or one per agent made from the gateway config (see `fromOpenClawConfig`). */
export type GuardSource = CallGuard | ((agentId: string | undefined, gatewayConfig: unknown) => CallGuard);

/** An agent entry of `agents.list` with its tool settings. */
interface AgentEntry {
  id?: unknown;
  tools?: { loopDetection?: Record<string, unknown> };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The guard config for a gateway config: its `tools.loopDetection`, with the agent's own
 * `agents.list[].tools.loopDetection` laid over it as OpenClaw lays them (top-level keys replaced,
 * `detectors` and `postCompactionGuard` merged key by key). Unlike OpenClaw, the guard is on
 * unless the block says `enabled: false`. Unknown keys reach the guard, which names them.
 */
export function fromOpenClawConfig(gatewayConfig: unknown, agentId?: string): LoopGuardConfig {
  const global = record(record(record(gatewayConfig)?.["tools"])?.["loopDetection"]);
  const agents = record(record(gatewayConfig)?.["agents"])?.["list"];
  const entry = agentId === undefined || !Array.isArray(agents) ? undefined : (agents as AgentEntry[]).find((a) => record(a)?.id === agentId);
  const own = record(entry?.tools?.loopDetection);
  if (own === undefined) return { ...global };
  if (global === undefined) return { ...own };
  const merged: Record<string, unknown> = { ...global, ...own };
  for (const nested of ["detectors", "postCompactionGuard"]) {
    if (global[nested] !== undefined || own[nested] !== undefined) merged[nested] = { ...record(global[nested]), ...record(own[nested]) };
  }
  return merged;
}

/** The plugin: one guard (or one per agent, made on first use) behind OpenClaw's tool hooks. */
export function toolLoopGuardPlugin(source: GuardSource): OpenClawPluginEntry {
  return {
    id: "tool-loop-guard",
    name: "Tool loop guard",
    description: "Refuses tool calls that repeat without progress (content-aware loop detection).",
    register(api) {
      const guards = new Map<string | undefined, CallGuard>();
      const guardFor = (agentId: string | undefined): CallGuard => {
        if (typeof source !== "function") return source;
        let guard = guards.get(agentId);
        if (guard === undefined) guards.set(agentId, (guard = source(agentId, api.config)));
        return guard;
      };
      const notes = new RunNotes();
      const runOf = (event: { runId?: string }, ctx: HookContext) => ctx.sessionKey ?? ctx.sessionId ?? event.runId ?? ctx.runId;

      api.on("before_tool_call", (event: ToolCallEvent, ctx: HookContext) => {
        const runId = runOf(event, ctx);
        const callId = event.toolCallId ?? ctx.toolCallId;
        const verdict = guardFor(ctx.agentId).check({ runId, tool: event.toolName, args: event.params, callId });
        if (verdict.hint !== undefined) notes.addHint(runId ?? "", verdict.hint);
        if (verdict.action !== "block" && verdict.action !== "stop") return undefined;
        return { block: true, blockReason: refusalText(verdict.refusal!) };
      });

      api.on("after_tool_call", (event: ToolCallEvent, ctx: HookContext) => {
        const runId = runOf(event, ctx);
        const callId = event.toolCallId ?? ctx.toolCallId;
        const base = callId === undefined ? { runId, tool: event.toolName, args: event.params } : { runId, tool: event.toolName, callId };
        const outcome = event.error !== undefined ? { ...base, error: event.error } : { ...base, result: event.result };
        const verdict = guardFor(ctx.agentId).record(outcome);
        if (verdict.hint !== undefined) notes.addHint(runId ?? "", verdict.hint);
      });

      api.on("before_prompt_build", (event: { runId?: string }, ctx: HookContext) => {
        const hints = notes.takeHints(runOf(event ?? {}, ctx ?? {}) ?? "");
        return hints.length === 0 ? undefined : { appendContext: hints.join("\n\n") };
      });
    },
  };
}
