/**
 * The public API shared by every entry: LoopGuard, LoopGuardError, coreVersion and the types.
 * Each entry adds `init` and makes sure the wasm runtime is installed.
 */
import { LoopGuardCore } from "./guard.js";
import { currentRuntime } from "./instance.js";
import type { LoopGuardConfig } from "./types.js";

export { LoopGuardError, type LoopGuardErrorCode } from "./errors.js";
export type {
  Action,
  DetectorId,
  InitInput,
  Level,
  LoopGuardConfig,
  Refusal,
  Stats,
  ToolCall,
  ToolOutcome,
  ToolSettings,
  Verdict,
} from "./types.js";

/**
 * A loop guard: `check()` before each tool call, `record()` after it. Guards are independent; each
 * keeps the state of its runs in wasm memory until `free()` (or garbage collection).
 */
export class LoopGuard extends LoopGuardCore {
  /** Throws LoopGuardError: `invalid_config` (naming the field), or `not_initialized` before `init()`. */
  constructor(config?: LoopGuardConfig) {
    super(currentRuntime(), config);
  }
}

/** The version of the Rust core inside the `.wasm`. */
export function coreVersion(): string {
  return currentRuntime().bindings.coreVersion();
}
