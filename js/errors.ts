/**
 * LoopGuardError: the one error type the wrapper throws, with a stable `code` and the offending
 * `field`. Errors raised by the wasm core arrive as plain `Error`s carrying own `code`/`field`
 * properties and are converted here; anything else from wasm is an internal failure.
 */

import type { CoreErrorCode } from "./names.js";

/** Codes from the core (`CORE_ERROR_CODES`) and from the wrapper (`internal`, `not_initialized`, `freed`). */
export type LoopGuardErrorCode = CoreErrorCode | "internal" | "not_initialized" | "freed";

export class LoopGuardError extends Error {
  /** Stable, machine-readable reason. */
  readonly code: LoopGuardErrorCode;
  /** The offending field (`"args"`, `"criticalThreshold"`, `"postCompactionGuard.windowSize"`, ...), or null. */
  readonly field: string | null;

  constructor(code: LoopGuardErrorCode, message: string, field: string | null = null, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "LoopGuardError";
    this.code = code;
    this.field = field;
  }
}

/** The core's error as a LoopGuardError, or undefined when `error` did not come from the core. */
export function fromCoreError(error: unknown): LoopGuardError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, field } = error as Error & { code?: unknown; field?: unknown };
  if (typeof code !== "string") return undefined;
  return new LoopGuardError(code as LoopGuardErrorCode, error.message, typeof field === "string" ? field : null);
}
