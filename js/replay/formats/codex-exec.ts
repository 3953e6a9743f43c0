/**
 * Headless Codex output (`codex exec --json`): one event per line, `thread.started` (its
 * `thread_id` names the run), `turn.*`, and `item.started` / `item.updated` / `item.completed`.
 * A completed item of a tool is a call with its outcome: `command_execution` is Codex's `shell`
 * with `{command}` (its `aggregated_output`, an error when the exit code is not 0 or the status
 * says it failed), `file_change` is `apply_patch` with `{changes}` (its status), `mcp_tool_call` is
 * the server's tool with its arguments (its result, or its error), `web_search` is `web_search`
 * with `{query}` (no result is printed). Reasoning, messages and to-do lists are no calls.
 */
import type { CallStep } from "../types.js";
import { isObject, type JsonObject, resultOf, stringOr } from "../values.js";

const ITEM_EVENTS = new Set(["item.started", "item.updated", "item.completed"]);

/** A line of `codex exec --json` output: a thread's start, or an item event (turn events alone tell nothing). */
export function isCodexExecEvent(line: JsonObject): boolean {
  if (line.type === "thread.started") return typeof line.thread_id === "string";
  return typeof line.type === "string" && ITEM_EVENTS.has(line.type) && isObject(line.item) && typeof line.item.type === "string";
}

const FAILED = new Set(["failed", "declined"]);

/** The call a completed item was, with its outcome; undefined for items that are no call. */
export function execItemCall(item: JsonObject, at: number | undefined): CallStep | undefined {
  const time = at === undefined ? {} : { at };
  const failed = typeof item.status === "string" && FAILED.has(item.status);
  switch (item.type) {
    case "command_execution": {
      const output = stringOr(item.aggregated_output) ?? "";
      const exitCode = typeof item.exit_code === "number" ? item.exit_code : undefined;
      const error = failed || (exitCode !== undefined && exitCode !== 0);
      return { tool: "shell", args: { command: item.command }, ...(error ? { error: output } : { result: output }), ...time };
    }
    case "file_change":
      return { tool: "apply_patch", args: { changes: item.changes }, ...(failed ? { error: item.status } : { result: item.status }), ...time };
    case "mcp_tool_call": {
      const tool = stringOr(item.tool) ?? "mcp_tool_call";
      const error = isObject(item.error) ? (stringOr(item.error.message) ?? item.error) : item.error;
      const outcome = error !== undefined && error !== null ? { error } : { result: resultOf(isObject(item.result) ? item.result.content : item.result) };
      return { tool, args: item.arguments, ...outcome, ...time };
    }
    case "web_search":
      return { tool: "web_search", args: { query: item.query }, ...time };
    default:
      return undefined;
  }
}
