// ReAct agents whose runs survive only as printed logs: the WebShop notebook of the ReAct paper
// (`Action: verb[argument]` / `Observation: ...` per step, episodes split by a dashed line, a score
// at the end) and Reflexion's HotpotQA logs (`Action n: Search[...]` / `Observation n: ...`, grouped
// into correct, incorrect and halted agents per trial). Each action is one call: the verb is the
// tool, the bracketed text its one argument, the observation the result.

/** Argument names per verb, for readable records (the guard fingerprints them all alike). */
const ARGUMENT_NAMES = { search: "query", click: "target", think: "thought", lookup: "keyword", finish: "answer" };

/** `verb[argument]` as a call; anything else (an action the environment rejects) keeps its text. */
export function reactCall(action, observation) {
  const match = /^(\w+)\[([\s\S]*)\]$/.exec(action.trim());
  if (!match) return { tool: "unparsed_action", args: { action }, result: observation };
  const tool = match[1].toLowerCase();
  return { tool, args: { [ARGUMENT_NAMES[tool] ?? "argument"]: match[2] }, result: observation };
}

/** The streamed text of a notebook cell's outputs. */
function cellOutput(notebook, cell) {
  return notebook.cells[cell].outputs.map((output) => [output.text ?? []].flat().join("")).join("");
}

const WEBSHOP_SCORE = /^Your score \(min 0\.0, max 1\.0\): ([\d.]+)/;

/**
 * Runs of the ReAct WebShop notebook: `source.cell` is the cell whose output holds the episodes.
 * The agent had 15 environment steps (the first is the reset), so 14 actions without a score
 * means the step budget ran out.
 */
export function* reactWebShopRuns(source, repo) {
  const text = cellOutput(JSON.parse(repo.show(source.path)), source.cell);
  for (const episode of text.split("-----------------\n").slice(1)) {
    const number = /^(\d+)\n/.exec(episode)[1];
    const body = episode.replace(/\n\d+ [\d.]+ [\d.]+ [\d.]+\n-------------\n?$/, "\n");
    const calls = [];
    for (const chunk of body.split(/^Action: /m).slice(1)) {
      const newline = chunk.indexOf("\n");
      const action = chunk.slice(0, newline);
      const observation = chunk.slice(newline + 1).replace(/^Observation: /, "").replace(/\n+$/, "");
      if (action !== "reset") calls.push(reactCall(action, observation));
    }
    const score = WEBSHOP_SCORE.exec(calls.at(-1)?.result ?? "");
    yield {
      runId: `${source.id}/fixed_${number}`,
      path: source.path,
      system: source.system,
      model: source.model,
      taskId: `webshop/fixed_${number}`,
      solved: score !== null && Number(score[1]) === 1,
      solvedHow: "the episode's final score is 1.0 (WebShop reward; partial matches score below 1)",
      exit: score ? `scored ${score[1]}` : "step limit (14 actions) without buying",
      calls,
    };
  }
}

/** One HotpotQA agent's log: its question and its calls. */
function hotpotQaAgent(text) {
  const question = /^Question: (.*)$/m.exec(text)[1].trim();
  const calls = [];
  for (const chunk of text.split(/^Action \d+: /m).slice(1)) {
    const newline = chunk.indexOf("\n");
    const action = chunk.slice(0, newline === -1 ? undefined : newline);
    const rest = newline === -1 ? "" : chunk.slice(newline + 1);
    const observation = rest
      .replace(/^Observation \d+: /, "")
      .split(/^(?:Thought \d+: |Correct answer: )/m)[0]
      .replace(/\n+$/, "");
    calls.push(reactCall(action, observation));
  }
  return { question, calls };
}

/** Runs of one trial of a Reflexion HotpotQA log (`source.trial`), by outcome group. */
export function* reflexionHotpotQaRuns(source, repo) {
  const log = repo.show(source.path);
  const trial = log.split(/^BEGIN TRIAL \d+$/m)[source.trial];
  const groups = trial.split(/^-+ BEGIN (CORRECT|INCORRECT|HALTED) AGENTS -+$/m);
  let number = 0;
  const printed = new Set(); // an agent stopped at the step limit right after answering is printed under INCORRECT and again under HALTED
  for (let i = 1; i < groups.length; i += 2) {
    const outcome = groups[i];
    // A new agent starts where a question line is followed by its first thought.
    for (const agentText of groups[i + 1].split(/\n(?=Question: [^\n]*\nThought 1: )/).filter((t) => t.startsWith("Question: "))) {
      const { question, calls } = hotpotQaAgent(agentText);
      const key = JSON.stringify([question, calls]);
      if (printed.has(key)) continue;
      printed.add(key);
      number += 1;
      yield {
        runId: `${source.id}/trial${source.trial}/${outcome.toLowerCase()}-${String(number).padStart(3, "0")}`,
        path: source.path,
        system: source.system,
        model: source.model,
        taskId: `hotpotqa/${question.slice(0, 80)}`,
        solved: outcome === "CORRECT",
        solvedHow: "the log lists the agent under CORRECT AGENTS (exact match with the gold answer)",
        exit: outcome === "HALTED" ? "halted: step limit without an answer" : `answered (${outcome.toLowerCase()})`,
        calls,
      };
    }
  }
}
