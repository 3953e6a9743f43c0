/**
 * OpenHands evaluation output (`output.jsonl`): one instance a line, `{instance_id, history,
 * metadata, test_result, error}`, where `history` is the event stream. An agent action is a call:
 * with `tool_call_metadata` (function calling) the tool is the function the model called and the
 * arguments are the ones it wrote for that tool-call id; without it (older CodeAct runs) the
 * action that runs something (`run`, `run_ipython`, `read`, `write`, `edit`, `browse`,
 * `browse_interactive`) with its `args`. The observation whose `cause` is the action's id is the
 * outcome: an `error` observation, or a command that exited with a positive exit code, is an error
 * (OpenHands writes -1 for a command that did not finish); its `content` otherwise. Event
 * timestamps are call times. `test_result.report.resolved` says whether the instance was solved.
 */
import { TrajectoryError } from "../errors.js";
import { type LineReader, lineObject, RunBook } from "../lines.js";
import type { Outcome } from "../queue.js";
import type { CallStep, RunMeta, RunStep, Source } from "../types.js";
import { isObject, type JsonObject, nameAt, parseArguments, stringOr, timeOf } from "../values.js";

/** Actions that execute something in the sandbox, for runs without function-calling metadata. */
const EXECUTING_ACTIONS = new Set(["run", "run_ipython", "read", "write", "edit", "browse", "browse_interactive"]);
/** Keys OpenHands adds to an action's `args` for its own bookkeeping (not written by the model). */
const BOOKKEEPING_ARGS = new Set(["thought", "blocking", "is_input", "hidden", "confirmation_state", "security_risk", "is_confirmed", "keep_prompt", "impl_source", "include_extra", "kernel_init_code"]);

/** A line of an OpenHands output file: an instance with its event history. */
export function isOpenHandsLine(line: JsonObject): boolean {
  return typeof line.instance_id === "string" && Array.isArray(line.history) && line.history.some((e) => isObject(e) && ("action" in e || "observation" in e));
}

/** The arguments the model wrote for the action's tool call, when the metadata holds its response. */
function modelArguments(metadata: JsonObject): unknown {
  const response = isObject(metadata.model_response) ? metadata.model_response : {};
  const choices = Array.isArray(response.choices) ? response.choices : [];
  for (const choice of choices) {
    const calls = isObject(choice) && isObject(choice.message) && Array.isArray(choice.message.tool_calls) ? choice.message.tool_calls : [];
    for (const call of calls) {
      if (isObject(call) && call.id === metadata.tool_call_id && isObject(call.function)) return parseArguments(call.function.arguments);
    }
  }
  return undefined;
}

function modelWrittenArgs(event: JsonObject): JsonObject {
  const args = isObject(event.args) ? event.args : {};
  return Object.fromEntries(Object.entries(args).filter(([key]) => !BOOKKEEPING_ARGS.has(key)));
}

/** The call an event makes, or undefined when the event is not an agent action that calls a tool. */
function callOf(event: JsonObject, path: string, file: string | undefined, line: number): CallStep | undefined {
  if (typeof event.action !== "string") return undefined;
  const at = timeOf(event.timestamp);
  const time = at === undefined ? {} : { at };
  const metadata = event.tool_call_metadata;
  if (isObject(metadata)) {
    const tool = nameAt(metadata.function_name, `${path}.tool_call_metadata.function_name`, file, line);
    const id = stringOr(metadata.tool_call_id);
    return { tool, args: modelArguments(metadata) ?? modelWrittenArgs(event), ...time, ...(id === undefined ? {} : { callId: id }) };
  }
  if (event.source !== "agent" || !EXECUTING_ACTIONS.has(event.action)) return undefined;
  return { tool: event.action, args: modelWrittenArgs(event), ...time };
}

function outcomeOf(observation: JsonObject): Outcome {
  const content = typeof observation.content === "string" ? observation.content : JSON.stringify(observation.content ?? "");
  if (observation.observation === "error") return { error: content };
  const extras = isObject(observation.extras) ? observation.extras : {};
  const metadata = isObject(extras.metadata) ? extras.metadata : {};
  const code = typeof metadata.exit_code === "number" ? metadata.exit_code : extras.exit_code;
  return typeof code === "number" && code > 0 ? { error: content } : { result: content };
}

function metaOf(instance: JsonObject): RunMeta {
  const meta: RunMeta = { instanceId: instance.instance_id as string };
  const metadata = isObject(instance.metadata) ? instance.metadata : {};
  const llm = isObject(metadata.llm_config) ? metadata.llm_config : {};
  if (typeof llm.model === "string") meta.model = llm.model;
  if (typeof metadata.agent_class === "string") meta.agent = metadata.agent_class;
  if (typeof instance.error === "string" && instance.error !== "") meta.exitStatus = instance.error;
  const test = isObject(instance.test_result) ? instance.test_result : {};
  const report = isObject(test.report) ? test.report : {};
  if (typeof report.resolved === "boolean") meta.solved = report.resolved;
  return meta;
}

export class OpenHandsReader implements LineReader {
  readonly format = "openhands";
  readonly #source: Source;
  readonly #book = new RunBook("openhands");
  readonly #seen = new Map<string, number>();

  constructor(source: Source) {
    this.#source = source;
  }

  line(text: string, lineNumber: number): RunStep[] {
    const instance = lineObject(text, lineNumber, this.#source);
    if (instance === undefined) return [];
    const file = this.#source.name;
    if (typeof instance.instance_id !== "string" || !Array.isArray(instance.history)) {
      throw new TrajectoryError("the line is not an OpenHands instance ({instance_id, history})", file, lineNumber);
    }
    // The same instance twice in one file (a rerun) is two runs.
    const count = (this.#seen.get(instance.instance_id) ?? 0) + 1;
    this.#seen.set(instance.instance_id, count);
    const runId = count === 1 ? instance.instance_id : `${instance.instance_id}/${count}`;
    this.#book.meta(runId, metaOf(instance));
    const queue = this.#book.queue(runId);
    instance.history.forEach((event, i) => {
      const path = `history[${i}]`;
      if (!isObject(event)) throw new TrajectoryError(`${path} is not an event object`, file, lineNumber);
      const call = callOf(event, path, file, lineNumber);
      if (call !== undefined) queue.call(call, typeof event.id === "number" ? String(event.id) : undefined);
      else if (typeof event.observation === "string" && typeof event.cause === "number") queue.outcome(String(event.cause), outcomeOf(event));
    });
    queue.settle();
    return this.#book.ready();
  }

  end() {
    return this.#book.end();
  }
}
