/**
 * `tool-loop-guard/openclaw`: the guard as an OpenClaw gateway plugin (tested inside the real
 * `openclaw` 2026.9.6), and the gateway's config as a guard config. The plugin registers typed
 * hooks on the plugin API: `before_tool_call` checks each call and answers `block` and `stop` with
 * `{ block: true, blockReason }` (the refusal, which the model receives in place of the tool's
 * result), `after_tool_call` records every result or error, `before_prompt_build` adds pending
 * hints to the next prompt (OpenClaw runs it for a non-bundled plugin only with
 * `plugins.entries.tool-loop-guard.hooks.allowConversationAccess: true`), and `session_end`
 * forgets the session's run. OpenClaw also runs `after_tool_call` for a call the plugin refused,
 * with the refusal as its outcome: that one is not recorded. A plugin cannot end an agent run: after a `stop` every further call
 * is refused, and the run ends when the model stops calling tools or OpenClaw's own limits end it.
 * The run id is the session key (else the session id, else the run id); each OpenClaw run of a
 * session (a user message, a heartbeat) is a turn: its first hook tells the guard
 * (`progress(sessionKey, "user_turn")`). Given OpenClaw's `emitDiagnosticEvent` (from
 * `openclaw/plugin-sdk/diagnostic-runtime`), each verdict that warns, blocks or stops is also
 * emitted as OpenClaw's `tool.loop` diagnostic event (see openclaw-event.ts). The plugin fails
 * open: a guard that cannot be built (a config error) leaves that agent unguarded, and a hook that
 * throws lets the call through, each said once in OpenClaw's log (`api.logger`); it never blocks a
 * tool because of its own failure. No runtime import of OpenClaw.
 */
import type { LoopGuardConfig, Verdict } from "../types.js";
import type { CallGuard } from "./guarded-call.js";
import { refusalText, RunNotes } from "./guarded-call.js";
import { type OpenClawToolLoopEvent, toolLoopEvent } from "./openclaw-event.js";

export { type OpenClawSession, type OpenClawToolLoopEvent, toolLoopEvent } from "./openclaw-event.js";

/** Refused calls whose after_tool_call the plugin waits for, at most. */
const MAX_REFUSED_KEYS = 4096;

/** The plugin id: the `id` of its `openclaw.plugin.json` and its key in `plugins.entries`. */
export const OPENCLAW_PLUGIN_ID = "tool-loop-guard";

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

/** `PluginLogger`: where the plugin says it is off (OpenClaw's log). */
interface PluginLoggerLike {
  warn(message: string): void;
  error(message: string): void;
}

/** The part of `OpenClawPluginApi` the plugin uses. */
export interface OpenClawPluginApiLike {
  config?: unknown;
  logger?: PluginLoggerLike;
  on(hookName: string, handler: (event: never, ctx: never) => unknown): void;
}

/** What `definePluginEntry` takes and a plugin module default-exports. */
export interface OpenClawPluginEntry {
  id: string;
  name: string;
  description: string;
  register(api: OpenClawPluginApiLike): void;
}

export interface OpenClawPluginOptions {
  /**
   * OpenClaw's `emitDiagnosticEvent` (`openclaw/plugin-sdk/diagnostic-runtime`): each verdict that
   * warns, blocks or stops is emitted as a `tool.loop` event, as OpenClaw's own detector emits
   * them. A sink that throws never fails the tool call.
   */
  emitDiagnosticEvent?: (event: OpenClawToolLoopEvent) => void;
}

/** A guard, or one per agent made from the gateway config (see `fromOpenClawConfig`). */
export type GuardSource = CallGuard | ((agentId: string | undefined, gatewayConfig: unknown) => CallGuard);

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** An error's message, for a log line. */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An agent id as OpenClaw compares them: trimmed, lower-cased, other characters than `a-z0-9_-` as `-`. */
function normaliseAgentId(id: string): string {
  const lower = id.trim().toLowerCase();
  if (/^[a-z0-9][a-z0-9_-]{0,63}$/.test(lower)) return lower;
  return lower.replace(/[^a-z0-9_-]+/g, "-").replace(/^-+/, "").replace(/-+$/, "").slice(0, 64);
}

/**
 * The agent's own entry: `agents.entries.<id>` (OpenClaw 2026.9), else the older `agents.list[]`
 * item with that `id` (OpenClaw reads `list` only when there is no `entries`).
 */
function agentEntry(gatewayConfig: unknown, agentId: string): Record<string, unknown> | undefined {
  const agents = record(record(gatewayConfig)?.["agents"]);
  const wanted = normaliseAgentId(agentId);
  const entries = record(agents?.["entries"]);
  if (entries !== undefined) {
    const key = Object.keys(entries).find((id) => normaliseAgentId(id) === wanted);
    return key === undefined ? undefined : record(entries[key]);
  }
  const list = agents?.["list"];
  if (!Array.isArray(list)) return undefined;
  return list.map(record).find((entry) => typeof entry?.["id"] === "string" && normaliseAgentId(entry["id"]) === wanted);
}

/** `over` laid over `base` as OpenClaw lays config blocks: top-level keys replaced, `detectors` and `postCompactionGuard` merged key by key. */
function layOver(base: Record<string, unknown> | undefined, over: Record<string, unknown> | undefined): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base, ...over };
  for (const nested of ["detectors", "postCompactionGuard"]) {
    if (base?.[nested] !== undefined && over?.[nested] !== undefined) merged[nested] = { ...record(base[nested]), ...record(over[nested]) };
  }
  return merged;
}

/**
 * The guard config for a gateway config (`api.config`) and an agent: the plugin's own settings
 * (`plugins.entries.tool-loop-guard.config`, any `LoopGuardConfig`), then the gateway's
 * `tools.loopDetection`, then the agent's `agents.entries.<id>.tools.loopDetection` (or the older
 * `agents.list[]` item), each laid over the last as OpenClaw lays them. OpenClaw 2026.9.6's block
 * holds only `enabled`: `enabled: false` (global, or the agent's) turns the guard off for that
 * agent; unlike OpenClaw the guard is on unless it says so. Unknown keys reach the guard, which
 * names them.
 */
export function fromOpenClawConfig(gatewayConfig: unknown, agentId?: string): LoopGuardConfig {
  const own = record(record(record(record(gatewayConfig)?.["plugins"])?.["entries"])?.[OPENCLAW_PLUGIN_ID])?.["config"];
  const global = record(record(record(gatewayConfig)?.["tools"])?.["loopDetection"]);
  const agent = agentId === undefined ? undefined : record(record(agentEntry(gatewayConfig, agentId)?.["tools"])?.["loopDetection"]);
  return layOver(layOver(record(own), global), agent);
}

/** The plugin: one guard (or one per agent, made on first use) behind OpenClaw's tool hooks. */
export function toolLoopGuardPlugin(source: GuardSource, options: OpenClawPluginOptions = {}): OpenClawPluginEntry {
  const { emitDiagnosticEvent } = options;
  const emit = (verdict: Verdict, ctx: HookContext) => {
    if (emitDiagnosticEvent === undefined) return;
    const event = toolLoopEvent(verdict, { sessionKey: ctx.sessionKey, sessionId: ctx.sessionId });
    try {
      if (event !== undefined) emitDiagnosticEvent(event);
    } catch {
      // Diagnostics are best effort: the verdict stands.
    }
  };
  return {
    id: OPENCLAW_PLUGIN_ID,
    name: "Tool loop guard",
    description: "Refuses tool calls that repeat without progress (content-aware loop detection).",
    register(api) {
      const log = (level: "warn" | "error", message: string) => {
        const logger = api.logger;
        if (logger !== undefined) logger[level](message);
        else console[level](message);
      };
      // What the plugin already logged: each failure is said once.
      const said = new Set<string>();
      const sayOnce = (level: "warn" | "error", message: string) => {
        if (said.has(message)) return;
        said.add(message);
        log(level, message);
      };
      // The notes of each agent's guard; null for an agent whose guard could not be built.
      const perAgent = new Map<string | undefined, RunNotes | null>();
      const notesFor = (agentId: string | undefined): RunNotes | null => {
        const key = typeof source === "function" ? agentId : undefined;
        let notes = perAgent.get(key);
        if (notes === undefined) {
          try {
            notes = new RunNotes(typeof source === "function" ? source(agentId, api.config) : source);
          } catch (error) {
            notes = null;
            const where = `plugins.entries.${OPENCLAW_PLUGIN_ID}.config, tools.loopDetection or the agent's`;
            log("error", `${OPENCLAW_PLUGIN_ID}: the guard is OFF for agent ${agentId ?? "(default)"}, its tool calls run unguarded: invalid config (${where}): ${describe(error)}`);
          }
          perAgent.set(key, notes);
        }
        return notes;
      };
      // A hook that throws lets the call through (OpenClaw would block it): said once per failure.
      const failOpen =
        <E, C>(hookName: string, handler: (event: E, ctx: C) => unknown) =>
        (event: E, ctx: C) => {
          try {
            return handler(event, ctx);
          } catch (error) {
            sayOnce("warn", `${OPENCLAW_PLUGIN_ID}: ${hookName} failed, the call was let through: ${describe(error)}`);
            return undefined;
          }
        };
      // The OpenClaw run each session last saw: a different one is a new turn of the session.
      const lastRun = new Map<string, string>();
      const sessionOf = (event: { runId?: string }, ctx: HookContext) => ctx.sessionKey ?? ctx.sessionId ?? event.runId ?? ctx.runId;
      const runOf = (event: { runId?: string }, ctx: HookContext) => {
        const runId = sessionOf(event, ctx);
        const openclawRun = event.runId ?? ctx.runId;
        if (runId !== undefined && openclawRun !== undefined && lastRun.get(runId) !== openclawRun) {
          lastRun.set(runId, openclawRun);
          notesFor(ctx.agentId)?.newTurn(runId);
        }
        return runId;
      };

      // OpenClaw runs after_tool_call for a call the plugin refused too, with the refusal as its
      // outcome: that is not a result of the tool, so it is not recorded (the call's key, until then).
      const refused = new Set<string>();
      const callKey = (runId: string | undefined, event: ToolCallEvent, ctx: HookContext) =>
        JSON.stringify([runId ?? null, event.toolName, event.toolCallId ?? ctx.toolCallId ?? null]);

      api.on("before_tool_call", failOpen("before_tool_call", (event: ToolCallEvent, ctx: HookContext) => {
        const notes = notesFor(ctx.agentId);
        if (notes === null) return undefined;
        const runId = runOf(event, ctx);
        const callId = event.toolCallId ?? ctx.toolCallId;
        const verdict = notes.guard.check({ runId, tool: event.toolName, args: event.params, callId });
        emit(verdict, ctx);
        if (verdict.hint !== undefined) notes.addHint(runId, verdict.hint);
        if (verdict.action !== "block" && verdict.action !== "stop") return undefined;
        refused.add(callKey(runId, event, ctx));
        // Bounded, should a runtime not report a refused call back: the oldest keys go first.
        if (refused.size > MAX_REFUSED_KEYS) refused.delete(refused.values().next().value!);
        return { block: true, blockReason: refusalText(verdict.refusal!) };
      }));

      api.on("after_tool_call", failOpen("after_tool_call", (event: ToolCallEvent, ctx: HookContext) => {
        const notes = notesFor(ctx.agentId);
        if (notes === null) return;
        const runId = runOf(event, ctx);
        if (refused.delete(callKey(runId, event, ctx))) return;
        // With its args, as every preset finds the call (see guardedCall).
        const base = { runId, tool: event.toolName, args: event.params, callId: event.toolCallId ?? ctx.toolCallId };
        const outcome = event.error !== undefined ? { ...base, error: event.error } : { ...base, result: event.result };
        const verdict = notes.guard.record(outcome);
        emit(verdict, ctx);
        if (verdict.hint !== undefined) notes.addHint(runId, verdict.hint);
      }));

      api.on("before_prompt_build", failOpen("before_prompt_build", (event: { runId?: string }, ctx: HookContext) => {
        // The hints left by the last tool calls reach this prompt, also when it begins a new turn.
        const notes = notesFor(ctx?.agentId);
        if (notes === null) return undefined;
        const hints = notes.takeHints(sessionOf(event ?? {}, ctx ?? {}));
        runOf(event ?? {}, ctx ?? {});
        return hints.length === 0 ? undefined : { appendContext: hints.join("\n\n") };
      }));

      api.on("session_end", failOpen("session_end", (event: { sessionId?: string; sessionKey?: string }, ctx: HookContext) => {
        const runId = event.sessionKey ?? ctx?.sessionKey ?? event.sessionId ?? ctx?.sessionId;
        if (runId === undefined) return;
        lastRun.delete(runId);
        notesFor(ctx?.agentId)?.endRun(runId);
      }));
    },
  };
}
