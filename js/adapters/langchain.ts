/**
 * `tool-loop-guard/langchain`: the guard as a LangChain (`langchain` 1.x) agent middleware for
 * `createAgent({ middleware: [...] })`. `wrapToolCall` checks each call: on `block` and `stop` the
 * tool is swapped, through the handler, for a stand-in that answers with the refusal, so the model
 * reads it as the tool's message (status `error`) and the tool never runs; every outcome is
 * recorded. `wrapModelCall` hands the model a warning's hint in the system message of its next
 * call, for that call only: the hint is never a message of the thread's state, so a checkpointer
 * never saves it as the user's words. Once the guard stopped the run, `beforeModel` jumps to the
 * end with an assistant message holding the stop's `userMessage` instead of calling the model
 * again. The run id is the LangGraph `thread_id`
 * (`{ configurable: { thread_id } }`); each `invoke` on the thread is a user turn: `beforeAgent`
 * forgets the last turn's stop and tells the guard (`progress(threadId, "user_turn")`). With
 * `dropRepeatedResults: true` (and a guard built with `sameAs: true`) a `wrapModelCall` hook sends
 * the model each ToolMessage that repeats an earlier identical result, still in the messages, as
 * the core's one-line reference to it (see repeated-results.ts); the thread's state keeps every
 * message as it was. No runtime import of LangChain: the middleware is the plain object
 * `createMiddleware` builds, with LangChain's own registered brand.
 */
import { guardedCall, refusalText, RunNotes, type StopVerdict } from "./guarded-call.js";
import { RepeatedResults, type SameAsGuard } from "./repeated-results.js";

/** `ToolCall` of @langchain/core: the model's request. */
interface ToolCallLike {
  name: string;
  args: unknown;
  id?: string;
}

/** The agent runtime (`Runtime`) the hooks receive; only the thread id is read. */
interface RuntimeLike {
  configurable?: { thread_id?: string };
}

/** `ToolCallRequest`: what `wrapToolCall` receives. */
interface ToolCallRequestLike {
  toolCall: ToolCallLike;
  tool: unknown;
  runtime: RuntimeLike;
}

/** The tool interface ToolNode invokes: a name and `invoke`. */
interface StandInTool {
  name: string;
  invoke: (input: unknown) => Promise<string>;
}

/** A message as LangGraph's messages reducer accepts one (it builds the message object). */
interface MessageLike {
  role: "assistant";
  content: string;
}

/** A SystemMessage of @langchain/core (an instance of its class); its content is text or blocks. */
interface SystemMessageLike {
  content: string | unknown[];
}

/** A ToolMessage of @langchain/core, as the model's request holds it (an instance of its class). */
interface ToolMessageLike {
  type: "tool";
  tool_call_id?: string;
}

/** `ModelRequest`: what `wrapModelCall` receives; the messages, the system message and the thread id are read. */
interface ModelRequestLike {
  messages: unknown[];
  systemPrompt?: string;
  systemMessage?: SystemMessageLike;
  runtime?: RuntimeLike;
}

/** The update `beforeModel` may return. */
interface BeforeModelUpdate {
  messages?: MessageLike[];
  jumpTo?: "end";
}

export interface LangChainGuardMiddleware {
  name: string;
  /** Once per `invoke`: a new user turn on the thread. */
  beforeAgent: (state: unknown, runtime: RuntimeLike) => undefined;
  /** `Req` and `R` are LangChain's `ToolCallRequest` and `ToolMessage | Command`. */
  wrapToolCall: <Req extends ToolCallRequestLike, R>(request: Req, handler: (request: Req) => R | PromiseLike<R>) => Promise<R>;
  beforeModel: { canJumpTo: ["end"]; hook: (state: unknown, runtime: RuntimeLike) => BeforeModelUpdate | undefined };
  /**
   * Adds pending hints to the system message of the model's next call (and, with
   * `dropRepeatedResults`, sends repeats as references). `Req` and `R` are LangChain's
   * `ModelRequest` and `AIMessage | Command`.
   */
  wrapModelCall: <Req extends ModelRequestLike, R>(request: Req, handler: (request: Req) => R) => R;
}

export interface LangChainGuardOptions {
  /** The middleware's name (LangChain requires unique names per agent). Default `"ToolLoopGuard"`. */
  name?: string;
  /**
   * Send the model a tool result that repeats an earlier identical result of the same call as a
   * one-line reference to that call (through `wrapModelCall`). Needs a guard built with
   * `sameAs: true`, else `guardLangChain` throws LoopGuardError `invalid_config` (field `sameAs`).
   * Default false.
   */
  dropRepeatedResults?: boolean;
}

/** The brand `createMiddleware` sets (a registered symbol, so no import is needed to set it). */
const MIDDLEWARE_BRAND = Symbol.for("AgentMiddleware");

export interface GuardedLangChain {
  middleware: LangChainGuardMiddleware;
  /** The `stop` verdict that ended the thread's latest turn, if one did (until its next `invoke`). */
  stopped: (threadId?: string) => StopVerdict | undefined;
  /** The conversation is over: forgets the thread in the guard (`guard.endRun`) and in these notes. */
  endRun: (threadId?: string) => void;
}

/** A middleware that puts one guard in front of an agent's tools. */
export function guardLangChain(guard: SameAsGuard, options: LangChainGuardOptions = {}): GuardedLangChain {
  const repeats = RepeatedResults.when(options.dropRepeatedResults, guard);
  const notes = new RunNotes(guard);
  const threadOf = (runtime: RuntimeLike | undefined) => runtime?.configurable?.thread_id;

  const middleware: LangChainGuardMiddleware = {
    name: options.name ?? "ToolLoopGuard",
    beforeAgent: (_state, runtime) => {
      notes.newTurn(threadOf(runtime));
      return undefined;
    },
    wrapToolCall: async <Req extends ToolCallRequestLike, R>(request: Req, handler: (request: Req) => R | PromiseLike<R>): Promise<R> => {
      const runId = threadOf(request.runtime);
      const { toolCall } = request;
      const call = { runId, tool: toolCall.name, args: toolCall.args, callId: toolCall.id };
      let response: R | undefined;
      const outcome = await guardedCall(guard, call, async () => {
        response = await handler(request);
        return contentOf(response);
      });
      if (outcome.kind === "refused") {
        notes.noteStop(runId, outcome.verdict);
        const text = refusalText(outcome.refusal);
        const standIn: StandInTool = { name: toolCall.name, invoke: async () => text };
        return markError(await handler({ ...request, tool: standIn } as Req));
      }
      repeats?.note(runId, toolCall.id, outcome.recorded!);
      if (outcome.hint !== undefined) notes.addHint(runId, outcome.hint);
      if (outcome.threw) throw outcome.error;
      return response as R;
    },
    beforeModel: {
      canJumpTo: ["end"],
      hook: (_state, runtime) => {
        const runId = threadOf(runtime);
        const stop = notes.stopped(runId);
        if (stop === undefined) return undefined;
        notes.takeHints(runId);
        return { messages: [{ role: "assistant", content: stop.userMessage }], jumpTo: "end" };
      },
    },
    wrapModelCall: (request, handler) => {
      const runId = threadOf(request.runtime);
      let sent = request;
      if (repeats !== undefined) {
        const replace = repeats.pass(runId);
        let changed = false;
        const messages = request.messages.map((message) => {
          const reference = isToolMessage(message) ? replace(message.tool_call_id) : undefined;
          if (reference === undefined) return message;
          changed = true;
          return withContent(message as ToolMessageLike, reference);
        });
        if (changed) sent = { ...sent, messages };
      }
      const hints = notes.takeHints(runId);
      if (hints.length > 0) sent = withHint(sent, hints.join("\n\n"));
      return handler(sent);
    },
  };
  Object.defineProperty(middleware, MIDDLEWARE_BRAND, { value: true, enumerable: true });
  const endRun = (threadId?: string) => {
    repeats?.endRun(threadId);
    notes.endRun(threadId);
  };
  return { middleware, stopped: (threadId) => notes.stopped(threadId), endRun };
}

/**
 * The request with `hint` as one more text block of its system message (a copy made by the
 * message's own class, as LangChain copies it), or as its system prompt when it has none.
 */
function withHint<Req extends ModelRequestLike>(request: Req, hint: string): Req {
  const system = request.systemMessage;
  if (system === undefined) return { ...request, systemPrompt: hint };
  const blocks = typeof system.content === "string" ? (system.content === "" ? [] : [{ type: "text", text: system.content }]) : system.content;
  const SystemMessage = system.constructor as new (fields: Record<string, unknown>) => SystemMessageLike;
  return { ...request, systemMessage: new SystemMessage({ ...system, content: [...blocks, { type: "text", text: hint }] }) };
}

function isToolMessage(message: unknown): message is ToolMessageLike {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "tool";
}

/** A copy of a ToolMessage (made by its own class) whose content is `content`. */
function withContent(message: ToolMessageLike, content: string): unknown {
  const { tool_call_id, name, id, status, artifact, metadata, additional_kwargs, response_metadata } = message as ToolMessageLike & Record<string, unknown>;
  const ToolMessage = message.constructor as new (fields: Record<string, unknown>) => unknown;
  return new ToolMessage({ content, tool_call_id, name, id, status, artifact, metadata, additional_kwargs, response_metadata });
}

/** The ToolMessage the handler built for a refusal, marked `status: "error"` (it is a fresh object). */
function markError<R>(message: R): R {
  if (typeof message === "object" && message !== null && "tool_call_id" in message) (message as { status?: string }).status = "error";
  return message;
}

/** What the guard compares of a tool's answer: a ToolMessage's content (and status), or the value. */
function contentOf(response: unknown): unknown {
  if (typeof response === "object" && response !== null && "content" in response) {
    const { content, status } = response as { content: unknown; status?: unknown };
    return status === "error" ? { status, content } : content;
  }
  return response;
}
