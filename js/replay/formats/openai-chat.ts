/**
 * OpenAI Chat Completions message arrays: assistant messages carry `tool_calls` (`function.name`,
 * `function.arguments` as JSON text, `id`), `tool` messages the result for `tool_call_id`. The
 * legacy `function_call` / `function` role pair is read too. The format has no error flag and no
 * timestamps. tau-bench and mini-swe-agent logs reuse this mapping with their own outcome rules.
 */
import { TrajectoryError } from "../errors.js";
import { type Outcome, StepQueue } from "../queue.js";
import type { Source, Step, Trajectory } from "../types.js";
import { arrayAt, isObject, type JsonObject, messageList, nameAt, parseArguments, resultOf, stemOf, stringOr } from "../values.js";

/** How a `tool` (or `function`) message becomes an outcome; the default keeps its content as the result. */
export type ToolMessageOutcome = (message: JsonObject) => Outcome;

export const contentOutcome: ToolMessageOutcome = (message) => ({ result: resultOf(message.content) });

/** Chat messages with a tool call or a tool message. */
export function looksLikeChat(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObject(m) &&
      ((m.role === "assistant" && (Array.isArray(m.tool_calls) || isObject(m.function_call))) || m.role === "tool" || m.role === "function"),
  );
}

/** The name and arguments of one entry of `tool_calls` (function tools and custom tools). */
function toolCallOf(call: unknown, path: string, file: string | undefined): { tool: string; args: unknown } {
  if (!isObject(call)) throw new TrajectoryError(`${path} is not an object`, file);
  if (isObject(call.custom)) return { tool: nameAt(call.custom.name, `${path}.custom.name`, file), args: { input: call.custom.input } };
  if (!isObject(call.function)) throw new TrajectoryError(`${path}.function is not an object`, file);
  return { tool: nameAt(call.function.name, `${path}.function.name`, file), args: parseArguments(call.function.arguments) };
}

/**
 * Adds the tool calls of one assistant message to `queue` (`path` names it in errors). A call
 * without an id cannot be matched to a result: it keeps its place and has no outcome.
 */
export function queueToolCalls(message: JsonObject, path: string, queue: StepQueue, file: string | undefined, at?: number): void {
  const time = at === undefined ? {} : { at };
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, j) => {
      const { tool, args } = toolCallOf(call, `${path}.tool_calls[${j}]`, file);
      const id = isObject(call) ? stringOr(call.id) : undefined;
      queue.call({ tool, args, ...time, ...(id === undefined ? {} : { callId: id }) }, id);
    });
  } else if (isObject(message.function_call)) {
    const tool = nameAt(message.function_call.name, `${path}.function_call.name`, file);
    queue.call({ tool, args: parseArguments(message.function_call.arguments), ...time }, "legacy-function-call");
  }
}

/** The steps of a chat message array, in call order. */
export function chatSteps(messages: unknown[], path: string, file: string | undefined, outcomeOf: ToolMessageOutcome = contentOutcome): Step[] {
  const queue = new StepQueue();
  messages.forEach((message, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(message)) throw new TrajectoryError(`${at} is not a message object`, file);
    if (message.role === "assistant") queueToolCalls(message, at, queue, file);
    else if (message.role === "tool" && typeof message.tool_call_id === "string") queue.outcome(message.tool_call_id, outcomeOf(message));
    else if (message.role === "function") queue.outcome("legacy-function-call", outcomeOf(message));
  });
  return queue.flush();
}

export function readChat(doc: unknown, source: Source): Trajectory[] {
  const messages = arrayAt(messageList(doc), "the document (a message array or {messages})", source.name);
  const meta = isObject(doc) && typeof doc.model === "string" ? { model: doc.model } : {};
  return [{ runId: stemOf(source.name), format: "openai-chat", meta, steps: chatSteps(messages, "messages", source.name) }];
}
