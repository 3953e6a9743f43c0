/**
 * Vercel AI SDK step arrays (`result.steps` of generateText/streamText, serialised as JSON, or the
 * whole result with its `steps`): each step's `toolCalls` are calls and its `toolResults` their
 * results, matched by `toolCallId`; `tool-error` parts of the step's `content` are errors. Field
 * names: v5 to v7 write `input` / `output`, v4 `args` / `result`; both are read. Preliminary
 * (streamed, partial) results are skipped. A step's `response.timestamp` is the calls' time.
 */
import { TrajectoryError } from "../errors.js";
import { StepQueue } from "../queue.js";
import type { Source, Trajectory } from "../types.js";
import { arrayAt, isObject, type JsonObject, nameAt, stemOf, stringOr, timeOf } from "../values.js";

/** The steps of a document: the array itself or its `steps`. */
export function aiSdkSteps(doc: unknown): unknown[] | undefined {
  if (Array.isArray(doc)) return doc;
  if (isObject(doc) && Array.isArray(doc.steps)) return doc.steps;
  return undefined;
}

/** Step objects with `toolCalls` or `toolResults`. */
export function looksLikeAiSdk(steps: unknown[]): boolean {
  return steps.length > 0 && steps.every((s) => isObject(s) && (Array.isArray(s.toolCalls) || Array.isArray(s.toolResults)));
}

const has = (object: JsonObject, key: string) => Object.prototype.hasOwnProperty.call(object, key);

export function readAiSdk(doc: unknown, source: Source): Trajectory[] {
  const file = source.name;
  const steps = arrayAt(aiSdkSteps(doc), "the document (a step array or {steps})", file);
  const queue = new StepQueue();
  let model: string | undefined;
  steps.forEach((step, i) => {
    const path = `steps[${i}]`;
    if (!isObject(step)) throw new TrajectoryError(`${path} is not an object`, file);
    const response = isObject(step.response) ? step.response : {};
    model ??= stringOr(response.modelId) ?? (isObject(step.model) ? stringOr(step.model.modelId) : undefined);
    const at = timeOf(response.timestamp);
    const calls = Array.isArray(step.toolCalls) ? step.toolCalls : [];
    calls.forEach((call, j) => {
      if (!isObject(call)) throw new TrajectoryError(`${path}.toolCalls[${j}] is not an object`, file);
      const tool = nameAt(call.toolName, `${path}.toolCalls[${j}].toolName`, file);
      const id = stringOr(call.toolCallId);
      const args = has(call, "input") ? call.input : call.args;
      queue.call({ tool, args, ...(at === undefined ? {} : { at }), ...(id === undefined ? {} : { callId: id }) }, id);
    });
    for (const result of Array.isArray(step.toolResults) ? step.toolResults : []) {
      if (!isObject(result) || typeof result.toolCallId !== "string" || result.preliminary === true) continue;
      queue.outcome(result.toolCallId, { result: has(result, "output") ? result.output : result.result });
    }
    for (const part of Array.isArray(step.content) ? step.content : []) {
      if (isObject(part) && part.type === "tool-error" && typeof part.toolCallId === "string") queue.outcome(part.toolCallId, { error: part.error });
    }
  });
  return [{ runId: stemOf(file), format: "ai-sdk", meta: model === undefined ? {} : { model }, steps: queue.flush() }];
}
