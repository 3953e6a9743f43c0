/**
 * Anthropic Messages: assistant `tool_use` blocks (`id`, `name`, `input`) are calls; user
 * `tool_result` blocks (`tool_use_id`, `content` as text or blocks, `is_error`) their outcomes: an
 * error when `is_error` is true. No timestamps. Claude Code sessions carry the same blocks.
 */
import { TrajectoryError } from "../errors.js";
import { type Outcome, StepQueue } from "../queue.js";
import type { Source, Trajectory } from "../types.js";
import { arrayAt, isObject, type JsonObject, messageList, nameAt, resultOf, stemOf, stringOr, textOf } from "../values.js";

/** Where blocks are (for errors) and when they happened. */
export interface BlockContext {
  path: string;
  file: string | undefined;
  line?: number;
  at?: number;
}

/** Messages with a `tool_use` or `tool_result` content block. */
export function looksLikeAnthropic(messages: unknown[]): boolean {
  return messages.some(
    (m) => isObject(m) && Array.isArray(m.content) && m.content.some((b) => isObject(b) && (b.type === "tool_use" || b.type === "tool_result")),
  );
}

/** Queues the `tool_use` blocks of an assistant message's content. */
export function queueToolUses(content: unknown, queue: StepQueue, context: BlockContext): void {
  if (!Array.isArray(content)) return;
  content.forEach((block, j) => {
    if (!isObject(block) || block.type !== "tool_use") return;
    const tool = nameAt(block.name, `${context.path}.content[${j}].name`, context.file, context.line);
    const id = stringOr(block.id);
    queue.call({ tool, args: block.input, ...(context.at === undefined ? {} : { at: context.at }), ...(id === undefined ? {} : { callId: id }) }, id);
  });
}

/** A `tool_result` block as an outcome: its content is the result, or the error when `is_error`. */
function toolResultOutcome(block: JsonObject): Outcome {
  return block.is_error === true ? { error: textOf(block.content) } : { result: resultOf(block.content) };
}

/** Attaches the `tool_result` blocks of a user message's content to their calls. */
export function applyToolResults(content: unknown, queue: StepQueue, at?: number): void {
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (isObject(block) && block.type === "tool_result" && typeof block.tool_use_id === "string") queue.outcome(block.tool_use_id, toolResultOutcome(block), at);
  }
}

export function readAnthropic(doc: unknown, source: Source): Trajectory[] {
  const messages = arrayAt(messageList(doc), "the document (a message array or {messages})", source.name);
  const queue = new StepQueue();
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (!isObject(message)) throw new TrajectoryError(`${path} is not a message object`, source.name);
    if (message.role === "assistant") queueToolUses(message.content, queue, { path, file: source.name });
    else applyToolResults(message.content, queue);
  });
  const meta = isObject(doc) && typeof doc.model === "string" ? { model: doc.model } : {};
  return [{ runId: stemOf(source.name), format: "anthropic", meta, steps: queue.flush() }];
}
