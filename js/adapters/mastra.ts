/**
 * `tool-loop-guard/mastra`: the guard in a Mastra agent (`@mastra/core` 1.x) through its tool
 * hooks, passed per `agent.generate` / `agent.stream` call (or on the Agent). `beforeToolCall`
 * checks the call and answers `block` and `stop` with `{ proceed: false, output: refusal }`, so the
 * tool does not run and the model reads the refusal; `afterToolCall` records every output or
 * error; `stopWhen` ends the loop once the guard stopped the run, or after `maxSteps` steps (a
 * `stopWhen` replaces Mastra's own bound of 5 steps, so the adapter keeps one, by default with room
 * for the default and strict presets' stop); `prepareStep` adds a warning's hint as a system
 * message for the next step. The run id is the `runId` option, else, from the request context,
 * `mastra__threadId` (Mastra's reserved thread key, set by its server), the memory thread of the
 * call (`memory: { thread, resource }`, which Mastra puts in the request context as
 * `MastraMemory`) or a `runId` key; when none of them names the conversation, the calls share the
 * guard's default run and the adapter says so once per guard (`onWarning`). One binding per call,
 * which is one user turn: the binding tells the guard (`progress(runId, "user_turn")`) once it
 * knows its run, at the first `prepareStep` or hook. With `dropRepeatedResults: true` (and a guard built with `sameAs: true`)
 * the binding also offers an input `processor` whose `processLLMRequest` sends each tool result
 * that repeats an earlier identical one, still in the prompt, as the core's one-line reference to
 * it (see repeated-results.ts); the thread's messages and memory keep every result as it was.
 * No runtime import of Mastra.
 */
import type { StopVerdict } from "./guarded-call.js";
import { RunNotes } from "./guarded-call.js";
import { RepeatedResults, type SameAsGuard, withoutRepeats } from "./repeated-results.js";

/** `RequestContext`: only `get` is used. */
interface RequestContextLike {
  get(key: string): unknown;
}

/** What the hooks receive (`ToolHookContext` / `ToolAfterHookContext`); Mastra types `context` as unknown. */
interface HookContext {
  toolName: string;
  input: unknown;
  context?: unknown;
  output?: unknown;
  error?: unknown;
}

/** The tool options Mastra passes the hooks as `context`: the call id and the request context. */
interface ExecutionContext {
  toolCallId?: string;
  requestContext?: RequestContextLike;
}

function executionOf(context: HookContext): ExecutionContext {
  return typeof context.context === "object" && context.context !== null ? (context.context as ExecutionContext) : {};
}

export interface MastraToolHooks {
  beforeToolCall: (context: HookContext) => { proceed: false; output: unknown } | undefined;
  afterToolCall: (context: HookContext) => void;
}

export interface MastraGuardOptions {
  /** The conversation this call belongs to; absent, read from the request context. */
  runId?: string;
  /**
   * The step bound `stopWhen` keeps (Mastra's own default, which any `stopWhen` replaces, is 5).
   * Default 25: the default preset stops the slowest loop at its 20th call, strict within 15.
   */
  maxSteps?: number;
  /**
   * Where the adapter says that nothing names the conversation (no `runId` option, no thread in
   * the request context), so the calls share the guard's default run: said once per guard.
   * Default `console.warn`.
   */
  onWarning?: (message: string) => void;
  /**
   * Offer `processor`, which sends the model a tool result that repeats an earlier identical
   * result of the same call as a one-line reference to that call. Needs a guard built with
   * `sameAs: true`, else `guardMastra` throws LoopGuardError `invalid_config` (field `sameAs`).
   * Default false.
   */
  dropRepeatedResults?: boolean;
}

/** An input processor (`Processor`) that rewrites the provider prompt of each model call. */
export interface MastraPromptProcessor {
  readonly id: string;
  processLLMRequest: <P>(args: { prompt: P[] }) => { prompt: P[] } | undefined;
}

/**
 * The adapter's step bound when no `maxSteps` is given: room for the default preset's stop of the
 * slowest loop (a cycle of three, its 20th call) and the strict preset's (within 15 calls), checked
 * against the core by the framework tests.
 */
const DEFAULT_MAX_STEPS = 25;

export interface GuardedMastra {
  /** Pass as `hooks` to `generate` / `stream` (or merge into yours). */
  hooks: MastraToolHooks;
  /** Pass as `stopWhen`: true once the guard has stopped the run, or after `maxSteps` steps. */
  stopWhen: (options: { steps: readonly unknown[] }) => boolean;
  /**
   * Pass as `prepareStep`: learns the run from the request context before the first step and adds
   * the pending hints as a system message. `S` is Mastra's `CoreMessage`.
   */
  prepareStep: <S>(args: { systemMessages: S[]; requestContext?: RequestContextLike }) => { systemMessages: S[] } | undefined;
  /**
   * Only with `dropRepeatedResults`: pass in `inputProcessors` (with the agent's own input
   * processors, which a per-call `inputProcessors` replaces).
   */
  processor?: MastraPromptProcessor;
  /** The `stop` verdict that ended this call's loop, if one did: show its `userMessage` to the user. */
  stopped: () => StopVerdict | undefined;
  /**
   * The conversation is over: forgets the run in the guard (`guard.endRun`) and in these notes.
   * The run is this binding's (known from its first `prepareStep` or hook), or `runId` if given.
   */
  endRun: (runId?: string) => void;
}

/** Mastra's reserved request-context key for the memory thread (its server sets it). */
const THREAD_KEY = "mastra__threadId";

/** The request-context key under which Mastra keeps the call's memory (`{ thread, resourceId, ... }`). */
const MEMORY_KEY = "MastraMemory";

/** The conversation the request context names: Mastra's thread key, the memory thread, a `runId`. */
function runIdFrom(requestContext: RequestContextLike | undefined): string | undefined {
  if (requestContext === undefined || typeof requestContext.get !== "function") return undefined;
  const named = requestContext.get(THREAD_KEY);
  if (typeof named === "string") return named;
  const memory = requestContext.get(MEMORY_KEY) as { thread?: { id?: unknown } } | undefined;
  const thread = memory?.thread?.id;
  if (typeof thread === "string") return thread;
  const runId = requestContext.get("runId");
  return typeof runId === "string" ? runId : undefined;
}

/** The guards already warned that nothing names their conversations. */
const warnedGuards = new WeakSet<object>();

const UNNAMED_RUN_WARNING =
  "tool-loop-guard/mastra: nothing names this conversation (no runId option, no mastra__threadId, memory thread or runId in the " +
  "request context), so its tool calls share the guard's default run with every other unnamed call: pass " +
  "memory: { thread, resource } or guardMastra(guard, { runId }).";

/** Hooks and loop options that put the guard in front of one Mastra agent call's tools. */
export function guardMastra(guard: SameAsGuard, options: MastraGuardOptions = {}): GuardedMastra {
  const repeats = RepeatedResults.when(options.dropRepeatedResults, guard);
  const notes = new RunNotes(guard);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const onWarning = options.onWarning ?? ((message: string) => console.warn(message));
  // The run of this binding: the option, or the first run id seen in a hook; binding it begins the turn.
  let bound: string | undefined;
  let known = false;
  const bind = (runId: string | undefined) => {
    if (known) return;
    known = true;
    bound = runId;
    if (bound === undefined && !warnedGuards.has(guard)) {
      warnedGuards.add(guard);
      onWarning(UNNAMED_RUN_WARNING);
    }
    notes.newTurn(bound);
  };
  if (options.runId !== undefined) bind(options.runId);
  const runOf = (context: HookContext) => {
    bind(runIdFrom(executionOf(context).requestContext));
    return bound;
  };
  const warned = (hint: string | undefined) => {
    if (hint !== undefined) notes.addHint(bound, hint);
  };

  const hooks: MastraToolHooks = {
    beforeToolCall: (context) => {
      const verdict = guard.check({ runId: runOf(context), tool: context.toolName, args: context.input, callId: executionOf(context).toolCallId });
      warned(verdict.hint);
      if (verdict.action !== "block" && verdict.action !== "stop") return undefined;
      notes.noteStop(bound, verdict);
      return { proceed: false, output: verdict.refusal };
    },
    afterToolCall: (context) => {
      const runId = runOf(context);
      // With its args, as every preset finds the call (see guardedCall).
      const base = { runId, tool: context.toolName, args: context.input, callId: executionOf(context).toolCallId };
      const verdict = guard.record(context.error !== undefined ? { ...base, error: context.error } : { ...base, result: context.output });
      repeats?.note(runId, base.callId, verdict);
      warned(verdict.hint);
    },
  };

  const processor: MastraPromptProcessor | undefined = repeats && {
    id: "tool-loop-guard",
    processLLMRequest: ({ prompt }) => {
      const sent = withoutRepeats(prompt, repeats.pass(bound));
      return sent === prompt ? undefined : { prompt: [...sent] };
    },
  };

  return {
    hooks,
    ...(processor && { processor }),
    stopWhen: ({ steps }) => notes.stopped(bound) !== undefined || steps.length >= maxSteps,
    prepareStep: ({ systemMessages, requestContext }) => {
      bind(runIdFrom(requestContext));
      const hints = notes.takeHints(bound);
      if (hints.length === 0) return undefined;
      const hint = { role: "system", content: hints.join("\n\n") } as (typeof systemMessages)[number];
      return { systemMessages: [...systemMessages, hint] };
    },
    stopped: () => notes.stopped(bound),
    endRun: (runId = bound) => {
      repeats?.endRun(runId);
      notes.endRun(runId);
    },
  };
}
