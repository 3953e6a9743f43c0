/**
 * One initialised copy of the wasm-bindgen glue and its recovery after a trap. All guards of an
 * entry share one wasm instance; `reset()` replaces it with a fresh instance of the same compiled
 * module (the glue is built with wasm-bindgen's `--experimental-reset-state-function`), and the
 * generation number tells each guard that its handle belongs to the old instance.
 */
import type { BytesHasher, LargeTexts, TextHasher } from "./encode.js";

/**
 * The wasm-bindgen class of the core's bindings (src/wasm/bindings.rs). Structural, like the rest
 * of this file (see WasmMemory); frame.ts types the codes by the generated declarations.
 */
export interface RawGuard {
  /** Makes the input buffer at least `length` bytes long; returns its address in the wasm memory. */
  reserve(length: number): number;
  /** `check`/`record` of the frame in the input buffer (see frame.ts): a `Status`. */
  check(form: number, nowMs: number): number;
  record(form: number, nowMs: number): number;
  /** The error for which `check` or `record` returned `Status.Error`. */
  takeError(): unknown;
  /** `{"args": hex, "outcome": hex | null}` of the record in a `Form.Json` frame (see LoopGuard.fingerprint). */
  fingerprint(): string;
  /** The address of the answer frame of the last `Status.Verdict` (see answer.ts). */
  answer(): number;
  compacted(runId?: string | null): void;
  progress(runId?: string | null): void;
  endRun(runId?: string | null): void;
  exportRun(runId?: string | null): Uint8Array;
  importRun(bytes: Uint8Array): string | undefined;
  stats(): string;
  metrics(): string;
  /** Whether record verdicts carry `sameAs` under this guard's config. */
  reportsSameAs(): boolean;
  /** The model-facing text standing for a result that repeats call `callId`'s. */
  sameAsReference(callId: string): string;
  free(): void;
}

/**
 * The part of a WebAssembly.Memory the wrapper uses. Structural, so that the shipped declarations
 * (which reach this file through LoopGuard's base class) compile without DOM or WebAssembly types.
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** A `#[wasm_bindgen]` enum of the core: an object from each name to its code. */
export type CoreCodes = Readonly<Record<string, unknown>>;

/** The part of the generated glue the wrapper uses, once its wasm is instantiated. */
export interface WasmBindings {
  WasmGuard: new (configJson?: string) => RawGuard;
  coreVersion(): string;
  maxScannedTextBytes(): number;
  /** The instance's memory, where guards write their input frames. */
  wasmMemory(): WasmMemory;
  __wbg_reset_state(): void;
  /** Sets the secret of the runs' window keys: 16 random bytes (absent in test doubles). */
  setWindowSecret?(bytes: Uint8Array): void;
  /** Offers the host's SHA-256 for the core's long inputs (absent in test doubles). */
  setHostSha256?(hasher: { digest(at: number, len: number, out: number): void }): void;
  /** The input frame's layout and codes (src/record/frame.rs), and `check`/`record`'s `Status`. */
  frameHeaderBytes(): number;
  Status: CoreCodes;
  Form: CoreCodes;
  Slot: CoreCodes;
  ResultShape: CoreCodes;
  Flag: CoreCodes;
  TextKind: CoreCodes;
  /** The answer frame's entry tags (src/verdict/answer_frame.rs). */
  AnswerTag: CoreCodes;
}

/** Fills `bytes` with cryptographically strong random bytes. */
export type RandomFill = (bytes: Uint8Array) => void;

/** Web Crypto's `getRandomValues`, where the runtime has it (every one the package supports). */
function webCryptoFill(): RandomFill | undefined {
  const random = (globalThis as { crypto?: { getRandomValues?(bytes: Uint8Array): Uint8Array } }).crypto;
  return typeof random?.getRandomValues === "function" ? (bytes) => void random.getRandomValues?.(bytes) : undefined;
}

export class WasmRuntime {
  #generation = 0;
  #memory: WasmMemory | undefined;
  /**
   * How large result texts cross into wasm (see encode.ts): hashed by `hashText` where the runtime
   * has a fast native hasher, else passed as side text. Undefined (texts inline) only for bindings
   * without `maxScannedTextBytes` (test doubles).
   */
  readonly largeTexts: LargeTexts | undefined;

  readonly #hashBytes: BytesHasher | undefined;
  readonly #randomFill: RandomFill | undefined;

  /**
   * `hashBytes`, the runtime's native SHA-256 of bytes, is offered to the core for its long inputs
   * (digests are the same; it is only faster than SHA-256 compiled to wasm). `randomFill` draws
   * the instance's window secret (default: Web Crypto's `getRandomValues`).
   */
  constructor(
    readonly bindings: WasmBindings,
    hashText?: TextHasher,
    hashBytes?: BytesHasher,
    randomFill?: RandomFill,
  ) {
    const above = typeof bindings.maxScannedTextBytes === "function" ? bindings.maxScannedTextBytes() : undefined;
    this.largeTexts = above === undefined ? undefined : { hash: hashText, above };
    this.#hashBytes = hashBytes;
    this.#randomFill = randomFill ?? webCryptoFill();
    this.#offerHostSha256();
    this.#seedWindowSecret();
  }

  /**
   * Gives a new instance the secret its runs' window keys derive from: 16 random bytes (every
   * supported runtime has a source; without one windows digest with SHA-256, the same verdicts at
   * a higher cost).
   */
  #seedWindowSecret(): void {
    if (this.bindings.setWindowSecret === undefined || this.#randomFill === undefined) return;
    const secret = new Uint8Array(16);
    this.#randomFill(secret);
    this.bindings.setWindowSecret(secret);
    secret.fill(0);
  }

  /** Hands the core `hashBytes` over the instance's memory (a new instance needs it again). */
  #offerHostSha256(): void {
    const hash = this.#hashBytes;
    if (hash === undefined || this.bindings.setHostSha256 === undefined) return;
    // One view of the memory, renewed when the memory grows: growing detaches the old buffer, which
    // empties every view of it (cheaper to notice than reading `memory.buffer`, a call into the
    // engine, on every digest).
    let view = new Uint8Array(0);
    this.bindings.setHostSha256({
      digest: (at, len, out) => {
        if (view.length === 0) view = new Uint8Array(this.memory.buffer);
        hash(view.subarray(at, at + len), view, out);
      },
    });
  }

  /** The current instance's memory, where guards write their input frames. */
  get memory(): WasmMemory {
    this.#memory ??= this.bindings.wasmMemory();
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
    this.#memory = undefined;
    this.#offerHostSha256();
    this.#seedWindowSecret();
  }
}
