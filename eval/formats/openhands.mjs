// OpenHands evaluation output (`output.jsonl`: one instance a line with its event `history`). An
// agent action that carries `tool_call_metadata` is one call: the tool is the function the model
// called, the arguments are the ones the model wrote for that tool call id, and the result is the
// `content` of the observation whose `cause` is the action's id.

/** The arguments the model wrote for the action's tool call, parsed when they are JSON. */
function toolCallArgs(metadata) {
  const message = metadata.model_response?.choices?.[0]?.message;
  const call = (message?.tool_calls ?? []).find((tc) => tc.id === metadata.tool_call_id);
  const text = call?.function?.arguments ?? "{}";
  try {
    return JSON.parse(text);
  } catch {
    return { _unparsed: text };
  }
}

/** The calls of one instance's history. */
export function openHandsCalls(history) {
  const observations = new Map();
  for (const event of history) if (event.observation && event.cause !== undefined) observations.set(event.cause, event);
  const calls = [];
  for (const event of history) {
    if (!event.action || !event.tool_call_metadata) continue;
    const observation = observations.get(event.id);
    calls.push({
      tool: event.tool_call_metadata.function_name,
      args: toolCallArgs(event.tool_call_metadata),
      result: observation?.content ?? "",
    });
  }
  return calls;
}

/** Runs of an OpenHands source: every line of every output file in `source.files`. */
export function* openHandsRuns(source, repo) {
  for (const file of source.files) {
    for (const line of repo.show(file).split("\n")) {
      if (!line.trim()) continue;
      const instance = JSON.parse(line);
      yield {
        runId: `${source.id}/${instance.instance_id}`,
        path: file,
        system: source.system,
        model: instance.metadata?.llm_config?.model ?? source.model,
        taskId: instance.instance_id,
        solved: null,
        solvedHow: "unknown: the example output carries no evaluation report",
        exit: instance.error ?? null,
        calls: openHandsCalls(instance.history ?? []),
      };
    }
  }
}
