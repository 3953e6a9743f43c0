/**
 * `tool-loop-guard/mastra`: the guard in a Mastra agent (`@mastra/core` 1.x) through its tool
 * hooks, passed per `agent.generate` / `agent.stream` call (or on the Agent). `beforeToolCall`
 * checks the call and answers `block` and `stop` with `{ proceed: false, output: refusal }`, so the
 * tool does not run and the model reads the refusal; `afterToolCall` records every output or
 * error; `stopWhen` ends the loop once the guard stopped the run, or after `maxSteps` steps (a
 * `stopWhen` replaces Mastra's own bound of 5 steps, so the adapter keeps one); `prepareStep` adds
 * a warning's hint as a system message for the next step. The run id is the `runId` option, else
 * the request context's `mastra__threadId` (Mastra's reserved thread key) or `runId`. One binding
 * per call, which is one user turn: the binding tells the guard (`progress(runId, "user_turn")`)
 * once it knows its run. With `dropRepeatedResults: true` (and a guard built with `sameAs: true`)
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

/** The tool execution context Mastra passes as `context`: the call id and the request context. */
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
  /** The step bound `stopWhen` keeps (Mastra's own default, which any `stopWhen` replaces, is 5). Default 5. */
  maxSteps?: number;
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

/** Mastra's default step bound when no `stopWhen` is given. */
const MASTRA_DEFAULT_MAX_STEPS = 5;

export interface GuardedMastra {
  /** Pass as `hooks` to `generate` / `stream` (or merge into yours). */
  hooks: MastraToolHooks;
  /** Pass as `stopWhen`: true once the guard has stopped the run, or after `maxSteps` steps. */
  stopWhen: (options: { steps: readonly unknown[] }) => boolean;
  /** Pass as `prepareStep`: adds the pending hints as a system message. `S` is Mastra's `CoreMessage`. */
  prepareStep: <S>(args: { systemMessages: S[] }) => { systemMessages: S[] } | undefined;
  /**
   * Only with `dropRepeatedResults`: pass in `inputProcessors` (with the agent's own input
   * processors, which a per-call `inputProcessors` replaces).
   */
  processor?: MastraPromptProcessor;
  /** The `stop` verdict that ended this call's loop, if one did: show its `userMessage` to the user. */
  stopped: () => StopVerdict | undefined;
  /** The conversation is over: forgets the run in the guard (`guard.endRun`) and in these notes. */
  endRun: () => void;
}

/** Mastra's reserved request-context key for the memory thread. */
const THREAD_KEY = "mastra__threadId";

function runIdFrom(context: HookContext): string | undefined {
  const requestContext = executionOf(context).requestContext;
  for (const key of [THREAD_KEY, "runId"]) {
    const value = requestContext?.get(key);
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** Hooks and loop options that put the guard in front of one Mastra agent call's tools. */
export function guardMastra(guard: SameAsGuard, options: MastraGuardOptions = {}): GuardedMastra {
  const repeats = RepeatedResults.when(options.dropRepeatedResults, guard);
  const notes = new RunNotes(guard);
  const maxSteps = options.maxSteps ?? MASTRA_DEFAULT_MAX_STEPS;
  // The run of this binding: the option, or the first run id seen in a hook; binding it begins the turn.
  let bound: string | undefined;
  let known = false;
  const bind = (runId: string | undefined) => {
    if (known) return;
    known = true;
    bound = runId;
    notes.newTurn(bound);
  };
  if (options.runId !== undefined) bind(options.runId);
  const runOf = (context: HookContext) => {
    bind(runIdFrom(context));
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
    prepareStep: ({ systemMessages }) => {
      const hints = notes.takeHints(bound);
      if (hints.length === 0) return undefined;
      const hint = { role: "system", content: hints.join("\n\n") } as (typeof systemMessages)[number];
      return { systemMessages: [...systemMessages, hint] };
    },
    stopped: () => notes.stopped(bound),
    endRun: () => {
      repeats?.endRun(bound);
      notes.endRun(bound);
    },
  };
}
