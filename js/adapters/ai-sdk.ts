/**
 * `tool-loop-guard/ai-sdk`: the guard in the Vercel AI SDK (`ai` 5, 6 and 7) `generateText` /
 * `streamText` tool loop. The tools' `execute` functions are wrapped (the one hook all three
 * majors share): a `block` verdict becomes the tool result without running the tool, so the model
 * reads the refusal and the loop goes on; a `stop` verdict does the same and makes `stopWhen` end
 * the loop after the step; a warning's hint reaches the model through `prepareStep` as a user
 * message on the next step. One wrap per request: wrapping is the start of a user turn
 * (`progress(runId, "user_turn")`), and its notes live as long as the request. Wrapping tools
 * that are already guarded wraps their original `execute` again, so nothing is checked twice.
 * With `dropRepeatedResults: true` (and a guard built with `sameAs: true`), `prepareStep` also
 * sends each tool result that repeats an earlier identical one, still in the messages, as the
 * core's one-line reference to it (see repeated-results.ts); the host's messages are not changed.
 * No runtime import of `ai`: the types below are the shapes it uses.
 */
import { guardedCall, RunNotes, type StopVerdict } from "./guarded-call.js";
import { RepeatedResults, type SameAsGuard, withoutRepeats } from "./repeated-results.js";

/** A tool as `ai` defines one; only `execute` is touched (tools without one are passed through). */
export interface AiSdkTool {
  execute?: (input: never, options: never) => unknown;
}

/** What `execute` receives as its second argument in every major: the call's id. */
interface ExecuteOptions {
  toolCallId?: string;
}

type Execute = (input: unknown, options: ExecuteOptions) => unknown;

/** The original `execute` of each guarded one, so a second wrap wraps the original. */
const originals = new WeakMap<Execute, Execute>();

export interface AiSdkGuardOptions<TOOLS> {
  /** The tools passed to `generateText` / `streamText` / an `Agent`. */
  tools: TOOLS;
  /**
   * The conversation (thread) the call belongs to. The AI SDK keeps no thread id of its own and
   * v7 does not hand `runtimeContext` to `execute`, so the host passes its id when wrapping; one
   * wrap per request. Absent: the guard's default run.
   */
  runId?: string;
  /**
   * Send a tool result that repeats an earlier identical result of the same call as a one-line
   * reference to that call (through `prepareStep`). Needs a guard built with `sameAs: true`, else
   * `guardAiSdk` throws LoopGuardError `invalid_config` (field `sameAs`). Default false.
   */
  dropRepeatedResults?: boolean;
}

export interface GuardedAiSdk<TOOLS> {
  /** The same tools with `execute` guarded; pass them instead of the originals. */
  tools: TOOLS;
  /** Pass as (or add to) `stopWhen`: true once the guard has stopped the run. */
  stopWhen: (options: { steps: readonly unknown[] }) => boolean;
  /**
   * Pass as `prepareStep` (or call from yours): appends the pending hints as a user message and,
   * under `dropRepeatedResults`, replaces repeated tool results by references. `M` is the SDK's
   * `ModelMessage`, of which `{ role: "user", content: string }` is one form.
   */
  prepareStep: <M>(options: { messages: M[] }) => { messages: M[] } | undefined;
  /** The `stop` verdict that ended this request's loop, if one did: show its `userMessage` to the user. */
  stopped: () => StopVerdict | undefined;
  /** The conversation is over: forgets the run in the guard (`guard.endRun(runId)`) and in these notes. */
  endRun: () => void;
}

/** Guards the tools of one AI SDK request (one user turn of the conversation `runId`). */
export function guardAiSdk<TOOLS extends Record<string, AiSdkTool>>(
  guard: SameAsGuard,
  options: AiSdkGuardOptions<TOOLS>,
): GuardedAiSdk<TOOLS> {
  const { runId } = options;
  const repeats = RepeatedResults.when(options.dropRepeatedResults, guard);
  const notes = new RunNotes(guard);
  notes.newTurn(runId);
  const tools = {} as Record<string, AiSdkTool>;
  for (const [name, tool] of Object.entries(options.tools)) {
    const own = tool.execute as Execute | undefined;
    if (own === undefined) {
      tools[name] = tool;
      continue;
    }
    const execute = originals.get(own) ?? own;
    const guarded: Execute = async (input, executeOptions) => {
      const call = { runId, tool: name, args: input, callId: executeOptions?.toolCallId };
      const outcome = await guardedCall(guard, call, () => execute.call(tool, input, executeOptions));
      if (outcome.kind === "ran" && outcome.recorded !== undefined) repeats?.note(runId, call.callId, outcome.recorded);
      if (outcome.kind === "refused") {
        notes.noteStop(runId, outcome.verdict);
        return outcome.refusal;
      }
      if (outcome.hint !== undefined) notes.addHint(runId, outcome.hint);
      if (outcome.threw) throw outcome.error;
      return outcome.result;
    };
    originals.set(guarded, execute);
    tools[name] = { ...tool, execute: guarded as never };
  }
  return {
    tools: tools as TOOLS,
    stopWhen: () => notes.stopped(runId) !== undefined,
    prepareStep: ({ messages }) => {
      const sent = repeats === undefined ? messages : withoutRepeats(messages, repeats.pass(runId));
      const hints = notes.takeHints(runId);
      if (hints.length === 0) return sent === messages ? undefined : { messages: [...sent] };
      const hint = { role: "user", content: hints.join("\n\n") } as (typeof messages)[number];
      return { messages: [...sent, hint] };
    },
    stopped: () => notes.stopped(runId),
    endRun: () => {
      repeats?.endRun(runId);
      notes.endRun(runId);
    },
  };
}
