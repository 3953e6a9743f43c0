/**
 * One initialised copy of the wasm-bindgen glue and its recovery after a trap. All guards of an
 * entry share one wasm instance; `reset()` replaces it with a fresh instance of the same compiled
 * module (the glue is built with wasm-bindgen's `--experimental-reset-state-function`), and the
 * generation number tells each guard that its handle belongs to the old instance.
 */
import type { LargeTexts, TextHasher } from "./encode.js";

/**
 * The wasm-bindgen class exported by the core's bindings (src/wasm/bindings.rs). `check` and `record`
 * return 0 for the plain allow verdict (built by the wrapper from the record) and 1 when `verdict()`
 * holds the verdict's JSON.
 */
export interface RawGuard {
  check(callJson: string, nowMs: number): number;
  record(outcomeJson: string, nowMs: number, sideText?: string): number;
  /** The same, for text the host wrote into the input buffer (see `reserve`). */
  checkInput(jsonLength: number, nowMs: number): number;
  recordInput(jsonLength: number, sideLength: number | undefined, nowMs: number): number;
  /** Field-by-field calls (see fields.ts and src/wasm/bindings.rs); 2: send the JSON record instead. */
  checkFields(runIdLength: number, toolLength: number, callIdLength: number, argsLength: number, at: number, nowMs: number): number;
  recordFields(
    runIdLength: number,
    toolLength: number,
    callIdLength: number,
    argsLength: number,
    resultMode: number,
    detailsLength: number,
    isError: number,
    textsLength: number,
    at: number,
    nowMs: number,
  ): number;
  /** Makes the input buffer at least `length` bytes long; returns its address in the wasm memory. */
  reserve(length: number): number;
  /** `{"args": hex, "outcome": hex | null}` of a record (see LoopGuard.fingerprint). */
  fingerprint(recordJson: string, sideText?: string): string;
  verdict(): string;
  compacted(runId?: string | null): void;
  progress(runId?: string | null, reason?: string | null): void;
  endRun(runId?: string | null): void;
  exportRun(runId?: string | null): Uint8Array;
  importRun(bytes: Uint8Array): string | undefined;
  stats(): string;
  metrics(): string;
  free(): void;
}

/**
 * The part of a WebAssembly.Memory the wrapper uses. Structural, so that the shipped declarations
 * (which reach this file through LoopGuard's base class) compile without DOM or WebAssembly types.
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** The part of the generated glue the wrapper uses, once its wasm is instantiated. */
export interface WasmBindings {
  WasmGuard: new (configJson?: string) => RawGuard;
  coreVersion(): string;
  maxScannedTextBytes(): number;
  /** The instance's memory (absent in test doubles: text then crosses as JS strings). */
  wasmMemory?(): WasmMemory;
  __wbg_reset_state(): void;
}

export class WasmRuntime {
  #generation = 0;
  #memory: WasmMemory | undefined | null = null;
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

  /** The current instance's memory, where guards write their input (undefined: pass strings). */
  get memory(): WasmMemory | undefined {
    if (this.#memory === null) this.#memory = typeof this.bindings.wasmMemory === "function" ? this.bindings.wasmMemory() : undefined;
    return this.#memory;
  }

  /** Increases each time the instance is replaced; handles from older generations are dead. */
  get generation(): number {
    return this.#generation;
  }

  /** Replaces the wasm instance after a trap. Every guard's run state is lost. */
  reset(): void {
    this.bindings.__wbg_reset_state();
    this.#generation += 1;
    this.#memory = null;
  }
}
