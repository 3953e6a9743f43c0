// SWE-agent `.traj` files: one run per file, one call per `trajectory` step. The action's first
// word names the tool when it is one of SWE-agent's own commands; anything else is a shell command
// of the `bash` tool. The whole action text is the argument (`{command}`), the observation the result.

/** SWE-agent tools that are not plain shell commands (ACI commands and function-calling tools). */
const SWE_AGENT_TOOLS = new Set([
  "str_replace_editor", "submit", "open", "goto", "scroll_up", "scroll_down", "create", "edit",
  "search_dir", "search_file", "find_file", "filemap", "insert", "append", "debug_start",
  "debug_step", "debug_stop", "debug_continue", "debug_add_breakpoint", "connect_start",
  "connect_sendline", "connect_stop", "decompile", "disassemble", "exit_forfeit",
]);

/** The calls of one SWE-agent trajectory. */
export function sweAgentCalls(traj) {
  const calls = [];
  for (const step of traj.trajectory ?? []) {
    const action = typeof step.action === "string" ? step.action.trim() : "";
    if (!action) continue;
    const first = action.split(/\s+/, 1)[0];
    const tool = SWE_AGENT_TOOLS.has(first) ? first : "bash";
    calls.push({ tool, args: { command: action }, result: step.observation ?? "" });
  }
  return calls;
}

/** Runs of a SWE-agent source: every `.traj` matching `source.pattern`, described by `source.describe`. */
export function* sweAgentRuns(source, repo) {
  for (const file of repo.list(source.pattern)) {
    const traj = JSON.parse(repo.show(file));
    const meta = source.describe(file);
    yield {
      runId: `${source.id}/${meta.task}`,
      path: file,
      system: source.system,
      model: meta.model,
      taskId: meta.task,
      solved: meta.solved ?? null,
      solvedHow: meta.solvedHow ?? "unknown: no evaluation report published with this trajectory",
      exit: traj.info?.exit_status ?? null,
      calls: sweAgentCalls(traj),
    };
  }
}
