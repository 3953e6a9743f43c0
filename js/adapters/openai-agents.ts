/**
 * `tool-loop-guard/openai-agents`: the guard in the OpenAI Agents SDK for JavaScript
 * (`@openai/agents` 0.20). It uses the SDK's own per-tool guardrails: an input guardrail checks the
 * call and answers `block` and `stop` with `rejectContent` (the refusal becomes the tool output the
 * model reads; the tool does not run), an output guardrail records what the tool returned. A
 * `stop` also makes the agent's `toolUseBehavior` end the run with a final output that says why,
 * and a warning's hint reaches the model through the run's `callModelInputFilter`. The run id comes
 * from the context given to `run(agent, input, { context })`. No runtime import of the SDK: the
 * types below are the shapes it uses.
 */
import type { Verdict } from "../types.js";
import type { CallGuard } from "./guarded-call.js";
import { refusalText, RunNotes } from "./guarded-call.js";

/** The run context a guardrail or hook receives (`RunContext`): the app's context is `context`. */
interface RunContextLike {
  context: unknown;
}

/** The function call a tool guardrail sees (`protocol.FunctionCallItem`). */
interface FunctionCallLike {
  name: string;
  callId: string;
  arguments: string;
}

/** What a tool guardrail returns (`ToolGuardrailFunctionOutput`). */
type GuardrailOutput = { behavior: { type: "allow" } | { type: "rejectContent"; message: string }; outputInfo?: unknown };

export interface ToolInputGuardrail {
  type: "tool_input";
  name: string;
  run: (data: { context: RunContextLike; toolCall: FunctionCallLike }) => Promise<GuardrailOutput>;
}

export interface ToolOutputGuardrail {
  type: "tool_output";
  name: string;
  run: (data: { context: RunContextLike; toolCall: FunctionCallLike; output: unknown }) => Promise<GuardrailOutput>;
}

/** Any tool of an agent; only function tools (`FunctionTool`) get the guardrails added to their lists. */
export interface GuardableTool {
  type: string;
}

/** A function tool's guardrail lists (the SDK's definitions, of which ours are one form). */
interface GuardrailLists {
  inputGuardrails?: object[];
  outputGuardrails?: object[];
}

/** `ToolsToFinalOutputResult`. */
type FinalOutputDecision =
  | { isFinalOutput: false; isInterrupted: undefined }
  | { isFinalOutput: true; isInterrupted: undefined; finalOutput: string };

/** `ModelInputData`, as `callModelInputFilter` receives and returns it. */
interface ModelInputData {
  input: unknown[];
  instructions?: string;
}

export interface OpenAIAgentsGuardOptions {
  /**
   * The run id from the app context given to `run(agent, input, { context })`. Default: its
   * `runId`, `conversationId` or `threadId` string; absent, the guard's default run.
   */
  runId?: (context: unknown) => string | undefined;
}

export interface GuardedOpenAIAgents {
  inputGuardrail: ToolInputGuardrail;
  outputGuardrail: ToolOutputGuardrail;
  /** Adds both guardrails to each function tool (other tools are left as they are); returns the list. */
  guardTools<T extends GuardableTool>(tools: T[]): T[];
  /** The agent's `toolUseBehavior`: ends the run with the stop's message once the guard stopped it. */
  toolUseBehavior: (context: RunContextLike, toolResults: unknown[]) => FinalOutputDecision;
  /**
   * The run's `callModelInputFilter`: appends pending hints as a user message. `D` is the SDK's
   * `ModelInputData`, whose input items include `{ role: "user", content: string }`.
   */
  callModelInputFilter: <D extends ModelInputData>(args: { modelData: D; context: unknown }) => D;
  /** The `stop` verdict that ended the run with this id, if one did. */
  stopped: (runId?: string) => Verdict | undefined;
}

function defaultRunId(context: unknown): string | undefined {
  if (typeof context !== "object" || context === null) return undefined;
  const record = context as Record<string, unknown>;
  for (const key of ["runId", "conversationId", "threadId"]) {
    if (typeof record[key] === "string") return record[key];
  }
  return undefined;
}

/** The tool call's arguments as JSON when they parse, else the raw text (the guard fingerprints either). */
function argumentsOf(call: FunctionCallLike): unknown {
  try {
    return JSON.parse(call.arguments);
  } catch {
    return call.arguments;
  }
}

const NAME = "tool-loop-guard";
const ALLOW: GuardrailOutput = { behavior: { type: "allow" } };

/** Guardrails and hooks that put one guard in front of an agent's function tools. */
export function guardOpenAIAgents(guard: CallGuard, options: OpenAIAgentsGuardOptions = {}): GuardedOpenAIAgents {
  const runIdOf = options.runId ?? defaultRunId;
  const notes = new RunNotes();
  const runOf = (context: RunContextLike | undefined) => runIdOf(context?.context);

  const inputGuardrail: ToolInputGuardrail = {
    type: "tool_input",
    name: NAME,
    run: async ({ context, toolCall }) => {
      const runId = runOf(context);
      const verdict = guard.check({ runId, tool: toolCall.name, args: argumentsOf(toolCall), callId: toolCall.callId });
      if (verdict.hint !== undefined) notes.addHint(runId ?? "", verdict.hint);
      if (verdict.action !== "block" && verdict.action !== "stop") return ALLOW;
      if (verdict.action === "stop") notes.stop(runId ?? "", verdict);
      return { behavior: { type: "rejectContent", message: refusalText(verdict.refusal!) }, outputInfo: verdict };
    },
  };

  const outputGuardrail: ToolOutputGuardrail = {
    type: "tool_output",
    name: NAME,
    run: async ({ context, toolCall, output }) => {
      const runId = runOf(context);
      const verdict = guard.record({ runId, tool: toolCall.name, callId: toolCall.callId, result: output });
      if (verdict.hint !== undefined) notes.addHint(runId ?? "", verdict.hint);
      return ALLOW;
    },
  };

  return {
    inputGuardrail,
    outputGuardrail,
    guardTools(tools) {
      for (const tool of tools) {
        if (tool.type !== "function") continue;
        const lists = tool as GuardrailLists;
        lists.inputGuardrails = [...(lists.inputGuardrails ?? []), inputGuardrail];
        lists.outputGuardrails = [...(lists.outputGuardrails ?? []), outputGuardrail];
      }
      return tools;
    },
    toolUseBehavior: (context) => {
      const stop = notes.stopped(runOf(context) ?? "");
      if (stop === undefined) return { isFinalOutput: false, isInterrupted: undefined };
      return { isFinalOutput: true, isInterrupted: undefined, finalOutput: stop.message ?? refusalText(stop.refusal!) };
    },
    callModelInputFilter: ({ modelData, context }) => {
      const hints = notes.takeHints(runIdOf(context) ?? "");
      if (hints.length === 0) return modelData;
      return { ...modelData, input: [...modelData.input, { role: "user", content: hints.join("\n\n") }] };
    },
    stopped: (runId) => notes.stopped(runId ?? ""),
  };
}
