/**
 * LoopGuardCore: the runtime-independent guard. It serialises records, calls the wasm core, reads
 * verdicts and converts errors. Each entry (node, browser, workerd, ...) subclasses it as
 * `LoopGuard`, supplying its initialised WasmRuntime. No thresholds, rules or texts live here.
 *
 * Fail-open: if the wasm instance traps (or throws anything that is not a coded core error), the
 * instance is replaced, the call's verdict is `allow` with detector `internal_error`, and every
 * guard sharing the instance starts again with empty run state. With `throwOnInternalError` the
 * guard throws LoopGuardError code `internal` instead (after the same recovery). exportRun and
 * importRun have no safe fallback and always throw `internal`.
 */
import { answerTagsOf, readAnswer, type AnswerTags } from "./answer.js";
import { plainAllow } from "./names.js";
import { encodeForCore, encodeRecord } from "./encode.js";
import { fromCoreError, LoopGuardError } from "./errors.js";
import { codesOf, InputFrame, NOT_ORDINARY, type Op } from "./frame.js";
import type { RawGuard, WasmRuntime } from "./runtime.js";
import type { Fingerprints, LoopGuardConfig, Stats, ToolCall, ToolOutcome, Verdict } from "./types.js";

/** The config minus the JS-only options, after checking those. */
function splitConfig(config: LoopGuardConfig | undefined): {
  core: unknown;
  onVerdict: LoopGuardConfig["onVerdict"];
  throwOnInternalError: boolean;
} {
  if (typeof config !== "object" || config === null) return { core: config, onVerdict: undefined, throwOnInternalError: false };
  const { onVerdict, throwOnInternalError, ...core } = config;
  if (onVerdict !== undefined && typeof onVerdict !== "function") {
    throw new LoopGuardError("invalid_config", "onVerdict must be a function", "onVerdict");
  }
  if (throwOnInternalError !== undefined && typeof throwOnInternalError !== "boolean") {
    throw new LoopGuardError("invalid_config", "throwOnInternalError must be true or false", "throwOnInternalError");
  }
  return { core, onVerdict, throwOnInternalError: throwOnInternalError === true };
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || typeof value === "string") return value ?? undefined;
  throw new LoopGuardError("invalid_record", `${field} must be a string`, field);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

export class LoopGuardCore {
  readonly #runtime: WasmRuntime;
  readonly #config: unknown;
  readonly #onVerdict: LoopGuardConfig["onVerdict"];
  readonly #throwOnInternalError: boolean;
  #raw: RawGuard | undefined;
  #generation: number;
  #frame: InputFrame | undefined;
  /** `check`/`record`'s Status codes, read once from the glue. */
  readonly #status: { Allow: number; SendJson: number; Error: number };
  /** The answer frame's entry tags, read once from the glue. */
  readonly #answerTags: AnswerTags;

  /** Throws LoopGuardError code `invalid_config` naming the field when the config is invalid. */
  constructor(runtime: WasmRuntime, config?: LoopGuardConfig) {
    const { core, onVerdict, throwOnInternalError } = splitConfig(config);
    this.#runtime = runtime;
    this.#config = core;
    this.#onVerdict = onVerdict;
    this.#throwOnInternalError = throwOnInternalError;
    this.#generation = runtime.generation;
    const codes = codesOf(runtime.bindings);
    const { Status } = codes;
    this.#status = { Allow: Status.Allow, SendJson: Status.SendJson, Error: Status.Error };
    this.#answerTags = answerTagsOf(codes);
    this.#raw = this.#create();
  }

  /** Before dispatch: may the call run? */
  check(call: ToolCall): Verdict {
    return this.#verdict("check", call);
  }

  /** After the tool returned or threw: records the outcome; a `warn` carries a hint for the model. */
  record(outcome: ToolOutcome): Verdict {
    return this.#verdict("record", outcome);
  }

  /**
   * The core's fingerprints of a record, as `record()` computes them under this guard's config
   * (volatile keys, `tools.<name>.ignore`, tool profiles): `args` and, when the record has a
   * `result` or an `error`, `outcome`; 16 hex digits each, what a run's window compares. Nothing
   * is stored and no run changes. Bad input throws as `record()` does.
   */
  fingerprint(record: ToolOutcome): Fingerprints {
    const [json, side] = encodeForCore(record, this.#runtime.largeTexts);
    const text = this.#call(() => this.#input().fingerprint(json, side), false) as string;
    return JSON.parse(text) as Fingerprints;
  }

  /** The run's context was compacted: arms the post-compaction guard. */
  compacted(runId?: string): void {
    const id = optionalString(runId, "runId");
    this.#call(() => this.#live().compacted(id));
  }

  /**
   * The host observed progress in the run: no-progress streaks restart. `reason` (e.g.
   * `"user_turn"`) is for the caller's own logs: every reason restarts the streaks alike, so it is
   * checked here and not sent to the core.
   */
  progress(runId?: string, reason?: string): void {
    const id = optionalString(runId, "runId");
    optionalString(reason, "reason");
    this.#call(() => this.#live().progress(id));
  }

  /** Forgets the run. */
  endRun(runId?: string): void {
    const id = optionalString(runId, "runId");
    this.#call(() => this.#live().endRun(id));
  }

  /** A snapshot of one run's state (fingerprints and counters only), for importRun in any runtime. */
  exportRun(runId?: string): Uint8Array {
    const id = optionalString(runId, "runId");
    return this.#call(() => this.#live().exportRun(id), false) as Uint8Array;
  }

  /** Restores a run from exportRun's bytes, replacing any run with that id; returns its runId. */
  importRun(bytes: Uint8Array | ArrayBuffer): string | null {
    let view: Uint8Array;
    if (bytes instanceof Uint8Array) view = bytes;
    else if (bytes instanceof ArrayBuffer) view = new Uint8Array(bytes);
    else throw new LoopGuardError("invalid_snapshot", "importRun expects the Uint8Array returned by exportRun");
    const id = this.#call(() => this.#live().importRun(view), false);
    return id ?? null;
  }

  /** Counters by action, level and detector. */
  stats(): Stats {
    // After an internal failure the fresh instance answers (with counters starting again).
    const text = this.#call(() => this.#live().stats()) ?? this.#call(() => this.#live().stats());
    if (text === undefined) throw new LoopGuardError("internal", "the wasm core failed twice in a row");
    return JSON.parse(text) as Stats;
  }

  /**
   * The counters in the Prometheus text exposition format (0.0.4), for a `/metrics` endpoint:
   * `tool_loop_guard_calls_total{tool,action}`, `tool_loop_guard_interventions_total{detector,level,action}`,
   * `tool_loop_guard_records_total`, `tool_loop_guard_live_runs`, `tool_loop_guard_evicted_runs_total`.
   * Run ids are never labels; tool names beyond the first 100 are counted as `_other`.
   */
  metrics(): string {
    // After an internal failure the fresh instance answers (with counters starting again).
    const text = this.#call(() => this.#live().metrics()) ?? this.#call(() => this.#live().metrics());
    if (text === undefined) throw new LoopGuardError("internal", "the wasm core failed twice in a row");
    return text;
  }

  /**
   * Whether `record()` verdicts carry `sameAs` (config `sameAs: true`; never under
   * `preset: "openclaw"`, whose detection keeps no call ids).
   */
  get reportsSameAs(): boolean {
    return this.#call(() => this.#live().reportsSameAs(), false) as boolean;
  }

  /**
   * The one line, written for the model, that may stand in its context for a tool result
   * repeating call `callId`'s (a record verdict's `sameAs`), while that call's result stays whole.
   * Throws LoopGuardError `invalid_record` (field `callId`) unless `callId` is a string.
   */
  sameAsReference(callId: string): string {
    if (typeof callId !== "string") throw new LoopGuardError("invalid_record", "callId must be a string", "callId");
    return this.#call(() => this.#live().sameAsReference(callId), false) as string;
  }

  /** Releases the guard's wasm memory; the guard cannot be used afterwards. */
  free(): void {
    const raw = this.#raw;
    this.#raw = undefined;
    // A handle from a replaced instance must not be freed: its pointer means nothing to the new one.
    if (raw !== undefined && this.#generation === this.#runtime.generation) raw.free();
  }

  #create(): RawGuard {
    const config = this.#config;
    let text: string | undefined;
    if (config !== undefined && config !== null) {
      try {
        text = JSON.stringify(config) as string | undefined;
      } catch (error) {
        throw new LoopGuardError("invalid_config", `config is not a plain JSON object: ${describe(error)}`, null, error);
      }
      if (text === undefined) throw new LoopGuardError("invalid_config", `config must be an object, got ${typeof config}`);
    }
    try {
      return new this.#runtime.bindings.WasmGuard(text);
    } catch (error) {
      throw fromCoreError(error) ?? new LoopGuardError("internal", `the wasm core failed: ${describe(error)}`, null, error);
    }
  }

  /** The handle for the current instance; recreated (with empty run state) after a reset. */
  #live(): RawGuard {
    if (this.#raw === undefined) throw new LoopGuardError("freed", "this LoopGuard was freed");
    if (this.#generation !== this.#runtime.generation) {
      this.#generation = this.#runtime.generation;
      this.#raw = this.#create();
    }
    return this.#raw;
  }

  /**
   * Runs `fn` against wasm. On an internal failure, recovers, then returns undefined when failing
   * open is allowed (`failOpen` and not throwOnInternalError), else throws code `internal`.
   */
  #call<T>(fn: () => T, failOpen = true): T | undefined {
    try {
      return fn();
    } catch (error) {
      return this.#failed(error, failOpen);
    }
  }

  /** `#call`'s answer to an exception `error`: rethrown when coded, else recovery (see `#call`). */
  #failed(error: unknown, failOpen: boolean): undefined {
    if (error instanceof LoopGuardError) throw error;
    const coded = fromCoreError(error);
    if (coded !== undefined) throw coded;
    this.#runtime.reset();
    this.#live();
    if (this.#throwOnInternalError || !failOpen) {
      throw new LoopGuardError(
        "internal",
        `the wasm core failed and was re-instantiated (run state was lost): ${describe(error)}`,
        null,
        error,
      );
    }
    return undefined;
  }

  /** The input frame of the live handle. */
  #input(): InputFrame {
    const raw = this.#live();
    const memory = this.#runtime.memory;
    if (this.#frame?.raw !== raw || this.#frame.memory !== memory) this.#frame = new InputFrame(raw, memory, codesOf(this.#runtime.bindings));
    return this.#frame;
  }

  /** Sends the record as JSON: the core's status; a coded core error is thrown. */
  #sendJson(op: Op, json: string, side: string | undefined, nowMs: number): number {
    const frame = this.#input();
    const status = frame.sendJson(op, json, side, nowMs);
    if (status === this.#status.Error) throw frame.raw.takeError();
    return status;
  }

  /** The verdict of the live handle's answer frame (`Status.Verdict`). */
  #answer(): Verdict {
    const raw = this.#live();
    return readAnswer(this.#runtime.memory.buffer, raw.answer(), this.#answerTags) as unknown as Verdict;
  }

  /**
   * The verdict for a record: its fields written into the input frame (the usual case, with
   * `Status.Allow` answered at once), else its JSON form. Written without closures: this runs for
   * every call.
   */
  #verdict(op: Op, record: ToolCall | ToolOutcome): Verdict {
    let at: unknown;
    try {
      at = (record as { at?: unknown } | null)?.at;
    } catch (error) {
      throw unreadable(error);
    }
    const nowMs = typeof at === "number" ? at : Date.now();
    const frame = this.#input();
    let status: number | undefined;
    try {
      status = frame.sendFields(op, record, nowMs, this.#runtime.largeTexts);
    } catch (error) {
      status = this.#failed(error, true);
    }
    let json: string | undefined;
    if (status === NOT_ORDINARY || status === this.#status.SendJson) {
      let side: string | undefined;
      [json, side] = fromRecord(() => (op === "check" ? [encodeRecord(record), undefined] : encodeForCore(record, this.#runtime.largeTexts)));
      status = this.#call(() => this.#sendJson(op, json as string, side, nowMs));
    }
    let verdict: Verdict;
    if (status === this.#status.Allow) {
      try {
        verdict = allowVerdict(record, json);
      } catch (error) {
        throw unreadable(error);
      }
    } else {
      const answered = status === undefined ? undefined : this.#call(() => this.#answer());
      verdict = answered ?? fromRecord(() => internalVerdict(record));
    }
    if (verdict.detector !== null && this.#onVerdict !== undefined) this.#onVerdict(verdict, op);
    return verdict;
  }
}

/** LoopGuardError `invalid_record` for an exception the record itself threw (see fromRecord). */
function unreadable(error: unknown): LoopGuardError {
  if (error instanceof LoopGuardError) return error;
  return new LoopGuardError("invalid_record", `the record cannot be read: ${describe(error)}`, null, error);
}

/**
 * Runs `read` over a host record: an exception the record itself throws (a getter, `toJSON` or a
 * Proxy trap) becomes LoopGuardError `invalid_record`, never a wasm failure.
 */
function fromRecord<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw unreadable(error);
  }
}

/**
 * The plain allow verdict (`Status.Allow`; its shape is the core's, generated as `plainAllow`),
 * built from the record the core accepted: its tool and runId, read back from the JSON sent when
 * they are not plain strings (e.g. objects with `toJSON`; a record sent field by field has plain
 * strings).
 */
function allowVerdict(record: ToolCall | ToolOutcome, json: string | undefined): Verdict {
  let { tool, runId } = record as { tool: unknown; runId?: unknown };
  if (json !== undefined && (typeof tool !== "string" || (runId !== undefined && runId !== null && typeof runId !== "string"))) {
    ({ tool, runId } = JSON.parse(json) as { tool: unknown; runId?: unknown });
  }
  return plainAllow(tool as string, (runId as string | undefined) ?? null);
}

/** The fail-open verdict after an internal failure. */
function internalVerdict(record: ToolCall | ToolOutcome): Verdict {
  const { tool, runId } = (record ?? {}) as { tool?: unknown; runId?: unknown };
  return {
    action: "allow",
    level: "ok",
    detector: "internal_error",
    count: 0,
    threshold: null,
    tool: typeof tool === "string" ? tool : "",
    runId: typeof runId === "string" ? runId : null,
    message: null,
  };
}
