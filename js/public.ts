/**
 * What every entry exports besides its own `LoopGuard`, `coreVersion` and `init`: the error class
 * and the types.
 */
export { LoopGuardError, type LoopGuardErrorCode } from "./errors.js";
export type {
  Action,
  ContinueVerdict,
  DetectorId,
  Fingerprints,
  InitInput,
  Level,
  LoopGuardConfig,
  Refusal,
  Stats,
  StopVerdict,
  ToolCall,
  ToolOutcome,
  ToolSettings,
  Verdict,
} from "./types.js";
