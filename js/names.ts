// Generated from the Rust core by src/js_names.rs: do not edit.
// `UPDATE_JS_NAMES=1 cargo test --lib js_names` rewrites it; `cargo test` fails when it is stale.

/** The core's detector ids. */
export const CORE_DETECTOR_IDS = ["global_circuit_breaker", "unknown_tool_repeat", "known_poll_no_progress", "generic_repeat", "ping_pong", "post_compaction_loop", "cycle", "stall", "error_repeat", "max_turns", "tool_cap", "argument_churn", "transient_failure", "shared_cause"] as const;
export type CoreDetectorId = (typeof CORE_DETECTOR_IDS)[number];

/** Verdict levels, in escalation order. */
export const LEVELS = ["ok", "warning", "critical", "circuit_break"] as const;
export type Level = (typeof LEVELS)[number];

/** Verdict actions, in the order of the levels that lead to them. */
export const ACTIONS = ["allow", "warn", "block", "stop"] as const;
export type Action = (typeof ACTIONS)[number];

/** The core's error codes. */
export const CORE_ERROR_CODES = ["invalid_config", "invalid_record", "too_deep", "too_large", "invalid_snapshot"] as const;
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

/** The switches of the config's `detectors` block. */
export const DETECTOR_SWITCHES = ["knownPollNoProgress", "genericRepeat", "pingPong", "cycle", "stall", "errorRepeat", "transientFailure", "sharedCause"] as const;
export type DetectorSwitch = (typeof DETECTOR_SWITCHES)[number];

/** The values of the config's `preset`. */
export const PRESETS = ["default", "strict", "openclaw"] as const;
export type Preset = (typeof PRESETS)[number];

/** The values of the config's `policy`. */
export const POLICIES = ["enforce", "inject", "shadow"] as const;
export type Policy = (typeof POLICIES)[number];

/** The values of `tools.<name>.kind`. */
export const TOOL_KINDS = ["poll", "read", "mutate", "command"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** The names of a verdict's members, indexed by their code in an answer frame. */
export const VERDICT_KEYS = ["action", "level", "detector", "count", "threshold", "tool", "runId", "message", "userMessage", "hint", "refusal", "wouldBe", "retryAfterMs", "sameAs", "error", "mode", "observed", "partnerTool", "windowMs"] as const;
export type VerdictKey = (typeof VERDICT_KEYS)[number];

/** The allow verdict the core writes (`Verdict::allow`), built in JS for `Status.Allow`. */
export function plainAllow(tool: string, runId: string | null) {
  return {"action":"allow","level":"ok","detector":null,"count":0,"threshold":null,"tool":tool,"runId":runId,"message":null} as const;
}
