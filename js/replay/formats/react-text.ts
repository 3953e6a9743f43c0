/**
 * ReAct transcripts as plain text (the printed episodes of ReAct-style agents, e.g. the ReAct
 * paper's WebShop notebook and Reflexion's HotpotQA logs): a line `Action: verb[argument]` (or
 * `Action 3: …`) is a call of the tool `verb` with its one argument; the text after the following
 * `Observation: ` (or `Observation 3: `) up to the next `Thought`/`Action` line is its result. An
 * action that is not `verb[argument]` keeps its text as `unparsed_action {action}`; a bare `reset`
 * is the environment starting (WebShop), not a call. One run per text, named after the file.
 */
import type { CallStep, Source, Trajectory } from "../types.js";
import { stemOf } from "../values.js";

const ACTION = /^Action(?: \d+)?: (.*)$/;
const OBSERVATION = /^Observation(?: \d+)?: ?/;
const THOUGHT = /^Thought(?: \d+)?:/;
const CALL = /^(\w+)\[([\s\S]*)\]$/;
/** Readable names for the one argument of ReAct's usual verbs; any other verb's is `argument`. */
const ARGUMENT_NAMES: Readonly<Record<string, string>> = { search: "query", click: "target", think: "thought", lookup: "keyword", finish: "answer" };
const RESET = "reset";

/** Plain text (not JSON) with at least one action line followed later by an observation line. */
export function looksLikeReactText(text: string): boolean {
  const start = text.search(/\S/);
  if (start === -1 || text[start] === "{" || text[start] === "[") return false;
  return /^Action(?: \d+)?: \S/m.test(text) && /^Observation(?: \d+)?: /m.test(text);
}

/** An action's text as a call: `verb[argument]`, or the text kept whole when it is not of that form. */
export function reactCall(action: string): { tool: string; args: Record<string, string> } {
  const match = CALL.exec(action.trim());
  if (match === null) return { tool: "unparsed_action", args: { action } };
  const tool = (match[1] as string).toLowerCase();
  return { tool, args: { [ARGUMENT_NAMES[tool] ?? "argument"]: match[2] as string } };
}

export function readReactText(text: string, source: Source): Trajectory[] {
  const steps: CallStep[] = [];
  let call: CallStep | undefined;
  let observation: string[] | undefined;
  const close = () => {
    if (call !== undefined) {
      if (observation !== undefined) call.result = observation.join("\n").replace(/\n+$/, "");
      steps.push(call);
    }
    call = undefined;
    observation = undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    const action = ACTION.exec(line);
    if (action !== null) {
      close();
      const written = action[1] as string;
      if (written.trim() !== RESET) call = reactCall(written);
    } else if (THOUGHT.test(line)) {
      close();
    } else if (call !== undefined && observation === undefined && OBSERVATION.test(line)) {
      observation = [line.replace(OBSERVATION, "")];
    } else if (observation !== undefined) {
      observation.push(line);
    }
  }
  close();
  return [{ runId: stemOf(source.name), format: "react-text", meta: {}, steps }];
}
