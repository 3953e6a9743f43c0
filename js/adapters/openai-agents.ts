/**
 * `tool-loop-guard/openai-agents`: the guard in the OpenAI Agents SDK for JavaScript
 * (`@openai/agents` 0.20). It uses the SDK's own per-tool guardrails: an input guardrail checks the
 * call and answers `block` and `stop` with `rejectContent` (the refusal becomes the tool output the
 * model reads; the tool does not run), an output guardrail records what the tool returned. A
 * `stop` also makes the agent's `toolUseBehavior` end the run with the stop's `userMessage` as the
 * final output, and a warning's hint reaches the model through the run's `callModelInputFilter`.
 * The run id comes from the context given to `run(agent, input, { context })`; each `run()` is a
 * user turn of that conversation: its first model call (`callModelInputFilter`, which sees the
 * context object given to that `run()`), or else its first guarded call (a new `RunContext`),
 * forgets the last turn's stop and tells the guard (`progress(runId, "user_turn")`), so a next
 * `run()` that answers without calling a tool clears the stop too. `guardTools` is idempotent:
 * the guardrails of any `guardOpenAIAgents` are replaced, never stacked. No runtime import of the
 * SDK: the types below are the shapes it uses.
 */
import type { CallGuard, StopVerdict } from "./guarded-call.js";
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

/** Marks this package's guardrails, so `guardTools` can replace them instead of stacking them. */
const GUARDRAIL = Symbol.for("tool-loop-guard.openai-agents.guardrail");

export interface GuardedOpenAIAgents {
  inputGuardrail: ToolInputGuardrail;
  outputGuardrail: ToolOutputGuardrail;
  /**
   * Adds both guardrails to each function tool (other tools are left as they are); returns the
   * list. Idempotent: guardrails this package added before (by any `guardOpenAIAgents`) are replaced.
   */
  guardTools<T extends GuardableTool>(tools: T[]): T[];
  /** The agent's `toolUseBehavior`: ends the run with the stop's message once the guard stopped it. */
  toolUseBehavior: (context: RunContextLike, toolResults: unknown[]) => FinalOutputDecision;
  /**
   * The run's `callModelInputFilter`: begins the run's turn at its first model call (the context
   * object given to `run()` marks the run: give each `run()` its own) and appends pending hints as
   * a user message to that call's input. `D` is the SDK's
   * `ModelInputData`, whose input items include `{ role: "user", content: string }`.
   */
  callModelInputFilter: <D extends ModelInputData>(args: { modelData: D; context: unknown }) => D;
  /** The `stop` verdict that ended the latest run with this id, if one did (until its next run starts). */
  stopped: (runId?: string) => StopVerdict | undefined;
  /** The conversation is over: forgets the run in the guard (`guard.endRun`) and in these notes. */
  endRun: (runId?: string) => void;
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
  const notes = new RunNotes(guard);
  // A user turn begins at a run()'s first model call, which the input filter sees with the context
  // object given to run() (a fresh one per run, as the docs pass it), or else at its first guarded
  // call, the first time its RunContext (new at each run()) is seen; whichever comes first.
  const filtered = new WeakSet<object>();
  const begunByFilter = new WeakSet<object>();
  const turns = new WeakSet<RunContextLike>();
  const beginFromFilter = (context: unknown) => {
    if (typeof context !== "object" || context === null || filtered.has(context)) return;
    filtered.add(context);
    begunByFilter.add(context);
    notes.newTurn(runIdOf(context));
  };
  const runOf = (context: RunContextLike | undefined) => {
    const runId = runIdOf(context?.context);
    if (context !== undefined && !turns.has(context)) {
      turns.add(context);
      const app = context.context;
      // The filter began this run's turn already (its context object is claimed once, by this run).
      if (typeof app === "object" && app !== null && begunByFilter.has(app)) begunByFilter.delete(app);
      else notes.newTurn(runId);
    }
    return runId;
  };

  const inputGuardrail: ToolInputGuardrail = {
    type: "tool_input",
    name: NAME,
    run: async ({ context, toolCall }) => {
      const runId = runOf(context);
      const verdict = guard.check({ runId, tool: toolCall.name, args: argumentsOf(toolCall), callId: toolCall.callId });
      if (verdict.hint !== undefined) notes.addHint(runId, verdict.hint);
      if (verdict.action !== "block" && verdict.action !== "stop") return ALLOW;
      notes.noteStop(runId, verdict);
      return { behavior: { type: "rejectContent", message: refusalText(verdict.refusal!) }, outputInfo: verdict };
    },
  };

  const outputGuardrail: ToolOutputGuardrail = {
    type: "tool_output",
    name: NAME,
    run: async ({ context, toolCall, output }) => {
      const runId = runOf(context);
      // With its args, as every preset finds the call (see guardedCall).
      const verdict = guard.record({ runId, tool: toolCall.name, args: argumentsOf(toolCall), callId: toolCall.callId, result: output });
      if (verdict.hint !== undefined) notes.addHint(runId, verdict.hint);
      return ALLOW;
    },
  };
  Object.defineProperty(inputGuardrail, GUARDRAIL, { value: true });
  Object.defineProperty(outputGuardrail, GUARDRAIL, { value: true });
  const others = (list: object[] | undefined) => (list ?? []).filter((guardrail) => !(GUARDRAIL in guardrail));

  return {
    inputGuardrail,
    outputGuardrail,
    guardTools(tools) {
      for (const tool of tools) {
        if (tool.type !== "function") continue;
        const lists = tool as GuardrailLists;
        lists.inputGuardrails = [...others(lists.inputGuardrails), inputGuardrail];
        lists.outputGuardrails = [...others(lists.outputGuardrails), outputGuardrail];
      }
      return tools;
    },
    toolUseBehavior: (context) => {
      const runId = runOf(context);
      const stop = notes.stopped(runId);
      if (stop === undefined) return { isFinalOutput: false, isInterrupted: undefined };
      // The run ends here: hints of this turn have no model turn left to reach.
      notes.takeHints(runId);
      return { isFinalOutput: true, isInterrupted: undefined, finalOutput: stop.userMessage };
    },
    callModelInputFilter: ({ modelData, context }) => {
      beginFromFilter(context);
      const hints = notes.takeHints(runIdOf(context));
      if (hints.length === 0) return modelData;
      return { ...modelData, input: [...modelData.input, { role: "user", content: hints.join("\n\n") }] };
    },
    stopped: (runId) => notes.stopped(runId),
    endRun: (runId) => notes.endRun(runId),
  };
}
