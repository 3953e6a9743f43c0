/**
 * OpenAI Responses API items: `function_call` (`name`, `arguments` as JSON text, `call_id`),
 * `custom_tool_call` (`input` text), `local_shell_call` (`action`) and `mcp_call` (with its own
 * output) are calls; `*_output` items carry the output for a `call_id`; a `compaction` item is a
 * compaction. Codex CLI rollouts hold the same items, so their reader shares this mapping.
 */
import { TrajectoryError } from "../errors.js";
import { type Outcome, StepQueue } from "../queue.js";
import type { Source, Trajectory } from "../types.js";
import { arrayAt, isObject, type JsonObject, nameAt, parseArguments, resultOf, stemOf, stringOr, textOf } from "../values.js";

const CALLS = new Set(["function_call", "custom_tool_call", "local_shell_call", "mcp_call"]);
const OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"]);
const COMPACTIONS = new Set(["compaction", "compaction_summary"]);

/** An item this mapping reads (a call, an output or a compaction). */
export function isResponseItem(item: unknown): boolean {
  return isObject(item) && typeof item.type === "string" && (CALLS.has(item.type) || OUTPUTS.has(item.type) || COMPACTIONS.has(item.type));
}

/** The items of a Responses document: the array, or a response's `output`, or a request's `input`. */
export function responseItems(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  if (isObject(doc)) for (const key of ["output", "input", "items"]) if (Array.isArray(doc[key])) return doc[key] as unknown[];
  return undefined;
}

/**
 * A call output as an outcome: `{content, success: false}` (how Codex once wrote failures) is an
 * error with that content; otherwise the output (text or content parts) is the result.
 */
export function outputOutcome(output: unknown): Outcome {
  if (isObject(output) && "content" in output && typeof output.success === "boolean") {
    return output.success ? { result: resultOf(output.content) } : { error: textOf(output.content) };
  }
  return { result: resultOf(output) };
}

/** Where an item is (for errors), when it happened, and how its call outputs become outcomes. */
export interface ItemContext {
  /** Names the item in errors, e.g. `items[3]`. */
  path: string;
  file: string | undefined;
  line?: number;
  at?: number;
  outcomeOf?: (output: unknown) => Outcome;
}

/** Applies one item to `queue`; items of other types are ignored. */
export function applyResponseItem(item: JsonObject, queue: StepQueue, context: ItemContext): void {
  const { path, file, line, at } = context;
  const type = item.type;
  const time = at === undefined ? {} : { at };
  if (typeof type !== "string") return;
  if (COMPACTIONS.has(type)) {
    queue.event({ event: "compaction" });
  } else if (OUTPUTS.has(type)) {
    if (typeof item.call_id === "string") queue.outcome(item.call_id, (context.outcomeOf ?? outputOutcome)(item.output), at);
  } else if (type === "mcp_call") {
    const tool = nameAt(item.name, `${path}.name`, file, line);
    const outcome = item.error !== undefined && item.error !== null ? { error: item.error } : { result: resultOf(item.output) };
    queue.done({ tool, args: parseArguments(item.arguments), ...outcome, ...time, ...callIdOf(item) });
  } else if (CALLS.has(type)) {
    const tool = type === "local_shell_call" ? "local_shell" : nameAt(item.name, `${path}.name`, file, line);
    const args = type === "local_shell_call" ? item.action : type === "custom_tool_call" ? { input: item.input } : parseArguments(item.arguments);
    const id = callIdOf(item);
    queue.call({ tool, args, ...time, ...id }, id.callId);
  }
}

function callIdOf(item: JsonObject): { callId?: string } {
  const id = stringOr(item.call_id) ?? stringOr(item.id);
  return id === undefined ? {} : { callId: id };
}

export function readResponses(doc: unknown, source: Source): Trajectory[] {
  const items = arrayAt(responseItems(doc), "the document (an item array, or {output} / {input})", source.name);
  const queue = new StepQueue();
  items.forEach((item, i) => {
    if (!isObject(item)) throw new TrajectoryError(`items[${i}] is not an object`, source.name);
    applyResponseItem(item, queue, { path: `items[${i}]`, file: source.name });
  });
  const meta = isObject(doc) && typeof doc.model === "string" ? { model: doc.model } : {};
  return [{ runId: stemOf(source.name), format: "openai-responses", meta, steps: queue.flush() }];
}
