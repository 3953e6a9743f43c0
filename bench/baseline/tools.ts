/** Baseline guard: the built-in tool kinds of docs/semantics.md ("Tool kinds"): poll, mutate or read. */

export type ToolKind = "poll" | "mutate" | "read";

const MUTATING_VERBS = [
  "write", "edit", "apply", "update", "set", "create", "delete", "remove", "add", "insert", "send",
  "post", "put", "patch", "save", "move", "rename", "upload", "append", "commit", "push",
];
const COMMAND_RUNNERS = new Set(["exec", "bash", "shell", "run_command", "execute_command"]);

/** `process` with `action` poll or log is a poll of a running process. */
export function isPollAction(args: unknown): boolean {
  if (typeof args !== "object" || args === null) return false;
  const action = (args as { action?: unknown }).action;
  return action === "poll" || action === "log";
}

function namedLikeMutator(tool: string): boolean {
  return MUTATING_VERBS.some((verb) => {
    if (tool.slice(0, verb.length).toLowerCase() !== verb) return false;
    const next = tool.charAt(verb.length);
    return next === "" || next === "_" || next === "-" || next === "." || (next >= "A" && next <= "Z");
  });
}

export function toolKind(tool: string, args: unknown): ToolKind {
  if (tool === "command_status" || (tool === "process" && isPollAction(args))) return "poll";
  if (COMMAND_RUNNERS.has(tool) || namedLikeMutator(tool)) return "mutate";
  return "read";
}
