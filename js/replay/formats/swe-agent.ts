/**
 * SWE-agent `.traj` files: `{environment, trajectory, history, info}`. Each `trajectory` entry is
 * one step: its `action` string and its `observation`. In function-calling runs the assistant
 * `history` item with the same `action` holds the model's `tool_calls`: the call is that function
 * with its JSON arguments. Otherwise the action is parsed as an ACI command (see
 * swe-agent-commands.ts). The observation is the result; the format marks no errors and has no
 * timestamps. `info.exit_status` is the exit status.
 */
import { TrajectoryError } from "../errors.js";
import type { CallStep, RunMeta, Source, Trajectory } from "../types.js";
import { arrayAt, isObject, type JsonObject, nameAt, parseArguments, stemOf, stringOr } from "../values.js";
import { aciCall } from "./swe-agent-commands.js";

export function looksLikeSweAgent(doc: unknown): boolean {
  return isObject(doc) && Array.isArray(doc.trajectory) && doc.trajectory.every((s) => isObject(s) && "action" in s);
}

/** The model named by a newer trajectory's `replay_config` (JSON text or object), if any. */
function modelOf(doc: JsonObject): string | undefined {
  const config = parseArguments(doc.replay_config);
  const agent = isObject(config) ? config.agent : undefined;
  const model = isObject(agent) ? agent.model : undefined;
  return isObject(model) ? stringOr(model.name) : undefined;
}

/** The function call of an assistant history item, when it has one. */
function functionCall(item: JsonObject, path: string, file: string | undefined): { tool: string; args: unknown; callId?: string } | undefined {
  const [call] = item.tool_calls as unknown[];
  if (!isObject(call) || !isObject(call.function)) return undefined;
  const id = stringOr(call.id);
  return {
    tool: nameAt(call.function.name, `${path}.tool_calls[0].function.name`, file),
    args: parseArguments(call.function.arguments),
    ...(id === undefined ? {} : { callId: id }),
  };
}

export function readSweAgent(doc: unknown, source: Source): Trajectory[] {
  const file = source.name;
  if (!isObject(doc)) throw new TrajectoryError("the document is not a SWE-agent trajectory object", file);
  const trajectory = arrayAt(doc.trajectory, "trajectory", file);
  const history = Array.isArray(doc.history) ? doc.history : [];
  const toolCalls = history
    .map((item, k) => ({ item, path: `history[${k}]` }))
    .filter(({ item }) => isObject(item) && item.role === "assistant" && item.is_demo !== true && Array.isArray(item.tool_calls) && item.tool_calls.length > 0);
  let cursor = 0;
  const steps: CallStep[] = [];
  trajectory.forEach((entry, i) => {
    const path = `trajectory[${i}]`;
    if (!isObject(entry)) throw new TrajectoryError(`${path} is not an object`, file);
    if (typeof entry.action !== "string") throw new TrajectoryError(`${path}.action is not a string`, file);
    const match = toolCalls.findIndex(({ item }, k) => k >= cursor && (item as JsonObject).action === entry.action);
    let call: { tool: string; args: unknown; callId?: string } | undefined;
    if (match !== -1) {
      cursor = match + 1;
      const { item, path: itemPath } = toolCalls[match] as { item: JsonObject; path: string };
      call = functionCall(item, itemPath, file);
    }
    call ??= aciCall(entry.action);
    if (call === undefined) return;
    steps.push(typeof entry.observation === "string" ? { ...call, result: entry.observation } : call);
  });
  const info = isObject(doc.info) ? doc.info : {};
  const meta: RunMeta = {};
  const model = modelOf(doc);
  if (model !== undefined) meta.model = model;
  if (typeof info.exit_status === "string") meta.exitStatus = info.exit_status;
  if (typeof doc.environment === "string") meta.environment = doc.environment;
  return [{ runId: stemOf(file), format: "swe-agent", meta, steps }];
}
