// tau-bench result files (a JSON array of entries with `task_id`, `trial`, `reward` and the
// conversation `traj`): one run per entry, one call per assistant `tool_calls` item, answered by
// the `tool` message with its id (or, for agents that record calls without ids, in order).

/** The calls of one tau-bench conversation. */
export function tauBenchCalls(traj) {
  const byId = new Map();
  for (const m of traj) if (m.role === "tool" && m.tool_call_id) byId.set(m.tool_call_id, m.content);
  const calls = [];
  const waiting = []; // calls without an id, answered by the next tool messages without one
  for (const m of traj) {
    if (m.role === "tool" && !m.tool_call_id) {
      const call = waiting.shift();
      if (call) call.result = m.content ?? "";
    }
    if (m.role !== "assistant") continue;
    for (const tc of m.tool_calls ?? []) {
      let args;
      try {
        args = JSON.parse(tc.function.arguments || "{}");
      } catch {
        args = { _unparsed: tc.function.arguments }; // not JSON (e.g. a Python dict literal): kept as written
      }
      const call = { tool: tc.function.name, args, result: tc.id ? (byId.get(tc.id) ?? "") : "" };
      if (!tc.id) waiting.push(call);
      calls.push(call);
    }
  }
  return calls;
}

/** Runs of a tau-bench source: `source.files` lists the result files, each with a tag and system. */
export function* tauBenchRuns(source, repo) {
  for (const file of source.files) {
    for (const entry of JSON.parse(repo.show(file.path))) {
      yield {
        runId: `${source.id}/${file.tag}/task${entry.task_id}-t${entry.trial}`,
        path: file.path,
        system: file.system,
        model: file.model ?? source.model,
        taskId: `${source.domain}/${entry.task_id}`,
        solved: entry.reward === 1,
        solvedHow: "reward == 1 in the result entry",
        exit: null,
        calls: tauBenchCalls(entry.traj ?? []),
      };
    }
  }
}
