/**
 * AgentDojo run files (one JSON document per run): `messages` where an assistant message lists
 * `tool_calls` as `{function: <name>, args: {…}, id}` and a `tool` message answers `tool_call_id`
 * with text parts (`{type: "text", content}`) and an `error` set when the tool raised. The run's
 * `utility` (or `evaluation.utility`) says whether the user task was done. No timestamps.
 */
import { TrajectoryError } from "../errors.js";
import { type Outcome, StepQueue } from "../queue.js";
import type { RunMeta, Source, Trajectory } from "../types.js";
import { arrayAt, isObject, type JsonObject, nameAt, stemOf, stringOr } from "../values.js";

/** An assistant tool call in AgentDojo's shape: the function named by a string, not an object. */
function isDojoCall(call: unknown): boolean {
  return isObject(call) && typeof call.function === "string" && "args" in call;
}

/** A run document: `messages` with at least one AgentDojo-shaped tool call, and a suite or pipeline. */
export function looksLikeAgentDojo(doc: unknown): boolean {
  if (!isObject(doc) || !Array.isArray(doc.messages)) return false;
  if (typeof doc.suite_name !== "string" && typeof doc.pipeline_name !== "string") return false;
  return doc.messages.some((m) => isObject(m) && m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.some(isDojoCall));
}

/** A tool message's text: its text parts (`content` or `text`) joined, or the string itself. */
function toolText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isObject(part) ? (stringOr(part.content) ?? stringOr(part.text) ?? "") : "")).join("");
}

function toolOutcome(message: JsonObject): Outcome {
  if (message.error !== undefined && message.error !== null && message.error !== "") return { error: String(message.error) };
  return { result: toolText(message.content) };
}

function metaOf(doc: JsonObject): RunMeta {
  const meta: RunMeta = {};
  const model = stringOr(doc.pipeline_name);
  if (model !== undefined) meta.model = model;
  const task = stringOr(doc.user_task_id) ?? stringOr(doc.task_id);
  if (task !== undefined) meta.taskId = task;
  for (const key of ["suite_name", "domain", "injection_task_id", "attack_type", "condition", "seed"]) {
    const value = doc[key];
    if (typeof value === "string" || typeof value === "number") meta[key] = value;
  }
  const evaluation = isObject(doc.evaluation) ? doc.evaluation : doc;
  if (typeof evaluation.utility === "boolean") meta.solved = evaluation.utility;
  if (doc.error !== undefined && doc.error !== null) meta.exitStatus = `error: ${String(doc.error)}`;
  return meta;
}

export function readAgentDojo(doc: unknown, source: Source): Trajectory[] {
  const file = source.name;
  if (!isObject(doc)) throw new TrajectoryError("the document is not an AgentDojo run object", file);
  const messages = arrayAt(doc.messages, "messages", file);
  const queue = new StepQueue();
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (!isObject(message)) throw new TrajectoryError(`${path} is not a message object`, file);
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      message.tool_calls.forEach((call, j) => {
        if (!isObject(call)) throw new TrajectoryError(`${path}.tool_calls[${j}] is not an object`, file);
        const tool = nameAt(call.function, `${path}.tool_calls[${j}].function`, file);
        const id = stringOr(call.id);
        queue.call({ tool, args: call.args ?? {}, ...(id === undefined ? {} : { callId: id }) }, id);
      });
    } else if (message.role === "tool" && typeof message.tool_call_id === "string") {
      queue.outcome(message.tool_call_id, toolOutcome(message));
    }
  });
  const runId = stringOr(doc.run_id) ?? stemOf(file);
  return [{ runId, format: "agentdojo", meta: metaOf(doc), steps: queue.flush() }];
}
