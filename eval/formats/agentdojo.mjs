// AgentDojo-style run files (one JSON per run: `messages` with assistant `tool_calls` of
// `{function, args, id}` and `tool` messages whose `content` is a list of text parts and whose
// `error` is set when the tool raised; `evaluation.utility` says whether the user task was done).
// One call per tool call; a tool that raised becomes an `error` record with its message.

/** The calls of one run's messages. */
export function agentDojoCalls(messages) {
  const answers = new Map();
  for (const m of messages) if (m.role === "tool") answers.set(m.tool_call_id, m);
  const calls = [];
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const tc of m.tool_calls ?? []) {
      const answer = answers.get(tc.id);
      const call = { tool: tc.function, args: tc.args ?? {} };
      if (answer?.error) call.error = String(answer.error);
      else call.result = (answer?.content ?? []).map((part) => part.content ?? part.text ?? "").join("");
      calls.push(call);
    }
  }
  return calls;
}

/** Runs of an AgentDojo-style source: every run file matching `source.pattern`. */
export function* agentDojoRuns(source, repo) {
  for (const file of repo.list(source.pattern)) {
    const run = JSON.parse(repo.show(file));
    yield {
      runId: `${source.id}/${run.domain ?? run.suite_name}/${run.task_id}-${run.condition}-s${run.seed}`,
      path: file,
      system: source.system,
      model: run.pipeline_name,
      taskId: `${run.suite_name}/${run.task_id}`,
      condition: source.conditions?.[run.condition] ?? run.condition,
      solved: run.evaluation?.utility === true,
      solvedHow: "evaluation.utility of the run file (the suite's automatic utility check)",
      exit: run.error ? `error: ${String(run.error).split("(")[0]}` : null,
      calls: agentDojoCalls(run.messages ?? []),
    };
  }
}
