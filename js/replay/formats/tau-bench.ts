/**
 * tau-bench result JSON: an array of task results `{task_id, reward, info, traj, trial}` (or
 * `{metrics, results: [...]}` around it), one run each (`<file>/task-<id>/trial-<n>`). `traj` is the agent's message list: Chat Completions
 * messages for tool-calling agents, or ReAct text (`Action: {"name", "arguments"}` answered by a
 * user message `API output: …`) for the react/act agents; the `respond` action talks to the user
 * and is not a tool call. The environment reports a tool's exception as `Error: …` and an unknown
 * tool as `Unknown action …`: those observations are errors. reward 1 is a solved task.
 */
import { TrajectoryError } from "../errors.js";
import { type Outcome, StepQueue } from "../queue.js";
import type { RunMeta, Source, Step, Trajectory } from "../types.js";
import { isObject, type JsonObject, resultOf, stemOf, textOf } from "../values.js";
import { chatSteps, looksLikeChat } from "./openai-chat.js";

const RESPOND = "respond";
const API_OUTPUT = "API output: ";
const FAILURE = /^(Error: |Unknown action )/;

/** The task results of a document: the array itself, or the `results` array of `{metrics, results}`. */
function taskResults(doc: unknown): unknown {
  return isObject(doc) && Array.isArray(doc.results) ? doc.results : doc;
}

export function looksLikeTauBench(doc: unknown): boolean {
  const results = taskResults(doc);
  return Array.isArray(results) && results.length > 0 && results.every((r) => isObject(r) && "task_id" in r && Array.isArray(r.traj));
}

function observation(content: unknown, observed: string): Outcome {
  return FAILURE.test(observed) ? { error: textOf(content) } : { result: resultOf(content) };
}

const toolMessageOutcome = (message: JsonObject): Outcome => observation(message.content, textOf(message.content));

/** The tool call a ReAct message writes after its last `Action:`, if it is JSON naming a tool. */
function reactAction(content: unknown): { name: string; args: unknown } | undefined {
  const text = textOf(content);
  const at = text.lastIndexOf("Action:");
  if (at === -1) return undefined;
  try {
    const action: unknown = JSON.parse(text.slice(at + "Action:".length).trim());
    if (isObject(action) && typeof action.name === "string" && action.name !== "") return { name: action.name, args: action.arguments };
  } catch {
    // Not JSON: tau-bench takes it as a reply to the user.
  }
  return undefined;
}

function reactSteps(traj: unknown[]): Step[] {
  const queue = new StepQueue();
  let waiting: string | undefined;
  traj.forEach((message, i) => {
    if (!isObject(message)) return;
    if (message.role === "assistant") {
      queue.settle();
      const action = reactAction(message.content);
      waiting = action === undefined || action.name === RESPOND ? undefined : `traj[${i}]`;
      if (action !== undefined && waiting !== undefined) queue.call({ tool: action.name, args: action.args }, waiting);
    } else if (message.role === "user" && waiting !== undefined) {
      const text = textOf(message.content);
      queue.outcome(waiting, observation(message.content, text.startsWith(API_OUTPUT) ? text.slice(API_OUTPUT.length) : text));
      waiting = undefined;
    }
  });
  return queue.flush();
}

export function readTauBench(document: unknown, source: Source): Trajectory[] {
  const file = source.name;
  const doc = taskResults(document);
  if (!Array.isArray(doc)) throw new TrajectoryError("the document is not an array of task results", file);
  const stem = stemOf(file);
  return doc.map((entry, i) => {
    if (!isObject(entry) || !Array.isArray(entry.traj)) throw new TrajectoryError(`[${i}] is not a task result with a traj array`, file);
    const trial = typeof entry.trial === "number" ? entry.trial : 0;
    const meta: RunMeta = { trial };
    if (typeof entry.task_id === "number" || typeof entry.task_id === "string") meta.taskId = entry.task_id;
    if (typeof entry.reward === "number") {
      meta.reward = entry.reward;
      meta.solved = entry.reward >= 1;
    }
    const steps = looksLikeChat(entry.traj) ? chatSteps(entry.traj, `[${i}].traj`, file, toolMessageOutcome) : reactSteps(entry.traj);
    return { runId: `${stem}/task-${String(entry.task_id)}/trial-${trial}`, format: "tau-bench", meta, steps };
  });
}
