/**
 * mini-swe-agent `.traj.json` files: `{info, messages, trajectory_format: "mini-swe-agent-…"}`
 * (or a bare message array). Every action is one `bash` call with `{command}`:
 * - text-based (v1, and v2's text mode): the assistant message holds exactly one ```bash (or
 *   ```mswea_bash_command) block, or lists its commands in `extra.actions`; the next user message
 *   is the observation. A message with no block or several is a format error, not a call.
 * - tool calling (v2): assistant `tool_calls` to `bash` and `tool` messages with `tool_call_id`,
 *   as in the Chat Completions mapping, or Responses-style `function_call` items.
 * The observation's return code (`extra.returncode`, else the `<returncode>N</returncode>` line the
 * model saw) decides: non-zero is an error. The observation text is kept whole.
 */
import { TrajectoryError } from "../errors.js";
import { type Outcome, StepQueue } from "../queue.js";
import type { RunMeta, Source, Trajectory } from "../types.js";
import { isObject, type JsonObject, stemOf, stringOr, textOf, timeOf } from "../values.js";
import { queueToolCalls } from "./openai-chat.js";
import { applyResponseItem, isResponseItem } from "./openai-responses.js";

const FORMAT_PREFIX = "mini-swe-agent";
const BASH_BLOCK = /```(?:bash|mswea_bash_command)\s*\n(.*?)\n```/gs;
const RETURN_CODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;

/** A mini-swe-agent document (its format tag or info), or messages whose actions are bash blocks. */
export function looksLikeMiniSweAgent(doc: unknown): boolean {
  if (isObject(doc) && Array.isArray(doc.messages)) {
    const format = stringOr(doc.trajectory_format);
    return format?.startsWith(FORMAT_PREFIX) === true || (isObject(doc.info) && "mini_version" in doc.info);
  }
  return (
    Array.isArray(doc) &&
    doc.some((m) => isObject(m) && m.role === "assistant" && typeof m.content === "string" && new RegExp(BASH_BLOCK.source, "s").test(m.content)) &&
    doc.some((m) => isObject(m) && m.role === "user" && RETURN_CODE.test(textOf(m.content)))
  );
}

/** The commands of a text-based assistant message: its one bash block, or none. */
function commandsOf(message: JsonObject): string[] {
  const extra = isObject(message.extra) ? message.extra : {};
  if (Array.isArray(extra.actions)) {
    return extra.actions.flatMap((a) => (isObject(a) && typeof a.command === "string" ? [a.command] : []));
  }
  const blocks = [...textOf(message.content).matchAll(BASH_BLOCK)].map((m) => (m[1] as string).trim());
  return blocks.length === 1 ? blocks : [];
}

/** An observation message as an outcome: an error when its return code is non-zero. */
function observationOutcome(content: unknown, extra: unknown): Outcome {
  const text = textOf(content);
  const stated = isObject(extra) ? extra.returncode : undefined;
  const code = typeof stated === "number" ? stated : Number(RETURN_CODE.exec(text)?.[1] ?? 0);
  return code !== 0 ? { error: text } : { result: text };
}

export function readMiniSweAgent(doc: unknown, source: Source): Trajectory[] {
  const file = source.name;
  const messages = isObject(doc) && Array.isArray(doc.messages) ? doc.messages : Array.isArray(doc) ? doc : undefined;
  if (messages === undefined) throw new TrajectoryError("the document is neither {messages} nor a message array", file);
  const queue = new StepQueue();
  const observing: string[] = [];
  const meta: RunMeta = {};
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (!isObject(message)) throw new TrajectoryError(`${path} is not a message object`, file);
    const extra = isObject(message.extra) ? message.extra : {};
    const at = timeOf(extra.timestamp);
    if (isResponseItem(message)) {
      const outcomeOf = (output: unknown) => observationOutcome(output, extra);
      applyResponseItem(message, queue, { path, file, outcomeOf, ...(at === undefined ? {} : { at }) });
    } else if (message.role === "assistant") {
      queue.settle();
      observing.length = 0;
      if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
        queueToolCalls(message, path, queue, file, at);
      } else {
        commandsOf(message).forEach((command, j) => {
          observing.push(`${path}/${j}`);
          queue.call({ tool: "bash", args: { command }, ...(at === undefined ? {} : { at }) }, `${path}/${j}`);
        });
      }
    } else if (message.role === "tool" && typeof message.tool_call_id === "string") {
      queue.outcome(message.tool_call_id, observationOutcome(message.content, extra), at);
    } else if (message.role === "user" && observing.length > 0) {
      queue.outcome(observing.shift() as string, observationOutcome(message.content, extra), at);
    } else if (message.role === "exit" && typeof extra.exit_status === "string") {
      meta.exitStatus = extra.exit_status;
    }
  });
  if (isObject(doc)) {
    const info = isObject(doc.info) ? doc.info : {};
    if (typeof info.exit_status === "string" && info.exit_status !== "") meta.exitStatus = info.exit_status;
    const config = isObject(info.config) && isObject(info.config.model) ? info.config.model : {};
    if (typeof config.model_name === "string") meta.model = config.model_name;
    if (typeof doc.instance_id === "string") meta.instanceId = doc.instance_id;
  }
  return [{ runId: stemOf(file), format: "mini-swe-agent", meta, steps: queue.flush() }];
}
