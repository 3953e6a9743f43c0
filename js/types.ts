/**
 * Public types of tool-loop-guard: calls and outcomes going in, verdicts and stats coming out, and
 * the configuration. These mirror the Rust core's wire format; the core validates every value.
 */

import type { Action, CoreDetectorId, DetectorSwitch, Level, Policy, Preset, ToolKind } from "./names.js";

export type { Action, Level, Policy, Preset, ToolKind };

/**
 * Stable detector ids: the core's (`argument_churn` only under `preset: "openclaw"`) and
 * `internal_error`, set only by the JS wrapper when the wasm core failed and the call was allowed
 * (fail-open). Later versions of the core may add ids; handle unknown ones as a default.
 */
export type DetectorId = CoreDetectorId | "internal_error";

/** A proposed tool call, passed to `check()` before dispatch. */
export interface ToolCall {
  /** The run (conversation, request) the call belongs to; absent means the one default run. */
  runId?: string;
  tool: string;
  /** Any JSON-serialisable value; absent or `null` is the same as `{}`. */
  args?: unknown;
  /**
   * Matches a `record()` to its `check()` (also when the same call is in flight more than once);
   * an outcome whose `callId` was checked takes that call's fingerprint, and its `args` are not read
   * (except under `preset: "openclaw"`, which identifies the call by its `args`: send them).
   */
  callId?: string;
  /** Milliseconds; defaults to `Date.now()`. Give it to replay traces deterministically. */
  at?: number;
}

/** A call plus what came back, passed to `record()` after the tool returned or threw. */
export interface ToolOutcome extends ToolCall {
  result?: unknown;
  /** A string, an `Error` (only `name` and `message` count) or any JSON value. */
  error?: unknown;
}

/** Returned to the model as the tool result when a call is blocked or the run is stopped. */
export interface Refusal {
  error: "tool_loop_detected";
  mode: DetectorId;
  message: string;
  observed: {
    tool: string;
    count: number;
    threshold: number;
    level: Level;
    /** `ping_pong`: the other tool of the pair. */
    partnerTool?: string;
    /** `tool_cap`: milliseconds until the tool may be called again, and the cap's window. */
    retryAfterMs?: number;
    windowMs?: number;
  };
}

/** The fields every verdict carries. */
interface VerdictFields {
  level: Level;
  detector: DetectorId | null;
  count: number;
  threshold: number | null;
  tool: string;
  /** `null` for the default run. */
  runId: string | null;
  /** Written for the model to read. */
  message: string | null;
  /** Only on `warn`: text to inject into the model's next context. */
  hint?: string;
  /** Only on `block` and `stop`: hand it to the model as the tool result. */
  refusal?: Refusal;
  /** Only under `policy: "shadow"`: what the verdict would have been under `"enforce"`. */
  wouldBe?: { action: Action; level: Level; detector: DetectorId | null };
  /** `tool_cap` and `transient_failure`: how long (ms) until the call may be made again. */
  retryAfterMs?: number;
  /**
   * Under `sameAs: true`, on a record: the call id of the earlier call whose identical result this
   * one repeats. A host may send the model `guard.sameAsReference(sameAs)` instead of this result
   * (the AI SDK, LangChain and Mastra adapters do with `dropRepeatedResults: true`).
   */
  sameAs?: string;
}

/** A verdict that lets the run go on: `allow`, `warn`, or `block` (this call refused). */
export interface ContinueVerdict extends VerdictFields {
  action: "allow" | "warn" | "block";
  userMessage?: undefined;
}

/** A verdict that ends the run: the call is refused and the run ends with a partial answer. */
export interface StopVerdict extends VerdictFields {
  action: "stop";
  /** The refusal, for the model, as the refused call's result. */
  refusal: Refusal;
  /**
   * Why the run ended, written for the person who asked the agent: show it to them as the run's
   * final answer (`message` and `refusal` stay written for the model).
   */
  userMessage: string;
}

/** What `check()` and `record()` answer; `action === "stop"` narrows it to a `StopVerdict`. */
export type Verdict = ContinueVerdict | StopVerdict;

/**
 * What `fingerprint()` returns: the first 64 bits (16 lowercase hex digits) of the SHA-256 digests
 * the core keeps of a call's arguments and of its outcome; `outcome` is null for a record without
 * `result` and `error`. Two records are "the same call" / "the same outcome" to the guard exactly
 * when these are equal (and the tool names are).
 */
export interface Fingerprints {
  args: string;
  outcome: string | null;
}

/** Counters since the guard was created (or since the wasm core was re-instantiated). */
export interface Stats {
  checks: number;
  records: number;
  byAction: Record<Action, number>;
  byLevel: Record<Level, number>;
  byDetector: Partial<Record<DetectorId, number>>;
  liveRuns: number;
  evictedRuns: number;
}

/**
 * Accepts the fields OpenClaw's `tools.loopDetection` block had until OpenClaw retired its tuning
 * fields (OpenClaw 2026.9.6 keeps only `enabled`), with the same names (defaults recalibrated on
 * real trajectories: 3 / 5 / 10; the guard is on unless `enabled: false`), plus this guard's own
 * options. Unknown keys and out-of-order thresholds are refused with `LoopGuardError` code
 * `invalid_config`.
 */
export interface LoopGuardConfig {
  enabled?: boolean;
  /**
   * `"strict"` suits small models; `"openclaw"` gives OpenClaw 2026.9.6's own verdicts (see the
   * README's "Coming from OpenClaw"). Explicit fields override the preset.
   */
  preset?: Preset;
  historySize?: number;
  warningThreshold?: number;
  criticalThreshold?: number;
  unknownToolThreshold?: number;
  globalCircuitBreakerThreshold?: number;
  /** Detectors to switch off (`false`); all are on by default. */
  detectors?: { [K in DetectorSwitch]?: boolean };
  postCompactionGuard?: {
    enabled?: boolean;
    windowSize?: number;
  };
  /** Ping-pong and cycles turn critical after this many stable laps instead of `criticalThreshold` calls. */
  criticalLaps?: number | null;
  /** Longest cycle the `cycle` detector looks for (periods 3 up to this). */
  maxCyclePeriod?: number;
  /** Calls per run; the call after the cap stops the run. Off unless set (`strict`: 40). */
  maxTurns?: number | null;
  /** An identical poll at least this long after the previous one is patient polling. */
  patientPollMs?: number;
  /** Patient polling escalates past a warning only after this much polling time. */
  pollBudgetMs?: number;
  /** A call failing transiently (429, 503, …) for this long in a row is refused once as unavailable (default 300000). */
  transientBudgetMs?: number;
  /**
   * Record verdicts carry `sameAs`, the call id of the earlier call whose result a record repeats
   * (off by default; ignored under `preset: "openclaw"`). Adapters' `dropRepeatedResults` needs it.
   */
  sameAs?: boolean;
  /** `enforce` (default); `inject`: refusals become warnings with a hint; `shadow`: always allow, with `wouldBe`. */
  policy?: Policy;
  /** Per-tool settings, by tool name. */
  tools?: Record<string, ToolSettings>;
  /** Extra object keys dropped (at any depth) before results and errors are compared. */
  volatileKeys?: string[];
  /** Extra tool names treated as polling tools. */
  pollTools?: string[];
  /** Upper bound on runs kept at once; the least recently used run is evicted beyond it. */
  maxRuns?: number;
  /** Larger serialised records are refused with code `too_large`. */
  maxRecordBytes?: number;

  /** JS only: called with every verdict that names a detector (warn, block, stop, internal_error). */
  onVerdict?: (verdict: Verdict, op: "check" | "record") => void;
  /** JS only: throw `LoopGuardError` code `internal` when the wasm core fails, instead of allowing. */
  throwOnInternalError?: boolean;
}

/** Settings for one tool (`tools.<name>` in the config). */
export interface ToolSettings {
  /** Overrides the built-in classification (poll tools, mutating verbs, everything else reads). */
  kind?: ToolKind;
  /** At most `calls` calls within any `windowMs`; further calls are blocked by `tool_cap`. */
  cap?: { calls: number; windowMs: number };
  /** Keys (at any depth) or JSON pointers (starting with `/`) ignored in this tool's outcomes. */
  ignore?: string[];
  warningThreshold?: number;
  criticalThreshold?: number;
}

/**
 * The instance type of a global class, or `never` where the consumer's type libraries do not declare
 * it: these declarations then compile with any `lib` setting (DOM, @types/node, workers types).
 */
type GlobalInstance<K extends string> =
  typeof globalThis extends { [P in K]: abstract new (...args: never[]) => infer T } ? T : never;
type WasmModule =
  typeof globalThis extends { WebAssembly: { Module: abstract new (...args: never[]) => infer M } } ? M : never;

/** What `init()` accepts where the `.wasm` must be loaded asynchronously (browsers). */
export type InitInput =
  | string
  | GlobalInstance<"URL">
  | GlobalInstance<"Response">
  | ArrayBuffer
  | ArrayBufferView
  | WasmModule;
