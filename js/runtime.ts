/**
 * One initialised copy of the wasm-bindgen glue and its recovery after a trap. All guards of an
 * entry share one wasm instance; `reset()` replaces it with a fresh instance of the same compiled
 * module (the glue is built with wasm-bindgen's `--experimental-reset-state-function`), and the
 * generation number tells each guard that its handle belongs to the old instance.
 */
import type { LargeTexts, TextHasher } from "./encode.js";

/**
 * The wasm-bindgen class exported by the core's bindings (src/bindings.rs). `check` and `record`
 * return 0 for the plain allow verdict (built by the wrapper from the record) and 1 when `verdict()`
 * holds the verdict's JSON.
 */
export interface RawGuard {
  check(callJson: string, nowMs: number): number;
  record(outcomeJson: string, nowMs: number, sideText?: string): number;
  verdict(): string;
  compacted(runId?: string | null): void;
  progress(runId?: string | null, reason?: string | null): void;
  endRun(runId?: string | null): void;
  exportRun(runId?: string | null): Uint8Array;
  importRun(bytes: Uint8Array): string | undefined;
  stats(): string;
  free(): void;
}

/** The part of the generated glue the wrapper uses, once its wasm is instantiated. */
export interface WasmBindings {
  WasmGuard: new (configJson?: string) => RawGuard;
  coreVersion(): string;
  maxScannedTextBytes(): number;
  __wbg_reset_state(): void;
}

export class WasmRuntime {
  #generation = 0;
  /**
   * How large result texts cross into wasm (see encode.ts): hashed by `hashText` where the runtime
   * has a fast native hasher, else passed as side text. Undefined (texts inline) only for bindings
   * without `maxScannedTextBytes` (test doubles).
   */
  readonly largeTexts: LargeTexts | undefined;

  constructor(
    readonly bindings: WasmBindings,
    hashText?: TextHasher,
  ) {
    const above = typeof bindings.maxScannedTextBytes === "function" ? bindings.maxScannedTextBytes() : undefined;
    this.largeTexts = above === undefined ? undefined : { hash: hashText, above };
  }

  /** Increases each time the instance is replaced; handles from older generations are dead. */
  get generation(): number {
    return this.#generation;
  }

  /** Replaces the wasm instance after a trap. Every guard's run state is lost. */
  reset(): void {
    this.bindings.__wbg_reset_state();
    this.#generation += 1;
  }
}
