/**
 * The normalised trajectory every format reader produces and the replay engine consumes: runs of
 * tool calls (with the real outcome the trajectory recorded) and host events, in the order the
 * agent made them. Plain JSON data, so it crosses runtimes and files unchanged.
 */

/** The formats the readers understand (see docs/replay.md for each mapping). */
export type FormatId =
  | "jsonl"
  | "openai-chat"
  | "openai-responses"
  | "anthropic"
  | "ai-sdk"
  | "claude-code"
  | "codex"
  | "swe-agent"
  | "mini-swe-agent"
  | "tau-bench"
  | "agentdojo"
  | "openhands"
  | "react-text";

/** One tool call and what it really returned (or threw) in the trajectory. */
export interface CallStep {
  tool: string;
  /** Any JSON value; absent is the same as `{}` to the guard. */
  args?: unknown;
  /** The observation the agent got; absent with `error`, and when the trajectory has none. */
  result?: unknown;
  /** What the format marks as a failure (a tool error flag, a non-zero exit code). */
  error?: unknown;
  /** Milliseconds since the epoch, when the format has timestamps. */
  at?: number;
  callId?: string;
}

/** The host compacted the run's context, or observed progress. */
export type EventStep = { event: "compaction" } | { event: "progress"; reason?: string };

export type Step = CallStep | EventStep;

/**
 * What the source says about a run. Readers fill the keys below when the file states them and may
 * add format-specific ones; nothing is inferred.
 */
export interface RunMeta {
  model?: string;
  /** A benchmark task id (tau-bench `task_id`). */
  taskId?: string | number;
  /** A benchmark instance id (SWE-bench `instance_id`). */
  instanceId?: string;
  trial?: number;
  /** How the run ended, as the agent recorded it (`submitted`, `exit_cost`, `LimitsExceeded`, …). */
  exitStatus?: string;
  reward?: number;
  /** The task was solved, when the file says so (tau-bench: reward 1). */
  solved?: boolean;
  /** Set by `convert`: the format and file the run was converted from. */
  sourceFormat?: FormatId;
  sourceFile?: string;
  [key: string]: unknown;
}

/** One run: its id, the format it was read from, what the source says about it, its steps. */
export interface Trajectory {
  runId: string;
  format: FormatId;
  meta: RunMeta;
  steps: Step[];
}

/** A run as a streaming reader announces it (its steps arrive separately). */
export interface RunHeader {
  runId: string;
  format: FormatId;
  meta: RunMeta;
}

/** A step of a run, as a streaming reader hands it over. */
export interface RunStep {
  runId: string;
  step: Step;
}

/** Where the text being read comes from: its name (a file name; a hint for detection and run ids). */
export interface Source {
  name?: string;
}

export function isEvent(step: Step): step is EventStep {
  return "event" in step;
}
