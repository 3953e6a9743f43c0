/**
 * Dropping repeated tool results from what the model is sent (`dropRepeatedResults`, off by
 * default), shared by the adapters that can rewrite the model's messages (AI SDK, LangChain,
 * Mastra). Under config `sameAs: true` each record verdict names the earlier call whose identical
 * result it repeats; the adapter notes that per run and call id, and when the framework next builds
 * the model's messages, a pass over them (oldest first) replaces each repeat by the core's one-line
 * reference (`guard.sameAsReference`), but only while the result it refers to is still there, whole:
 * the first occurrence is never replaced, and a result whose original is gone from the messages
 * (trimmed by the host) is sent as it is. The notes belong to the guard, so every adapter binding
 * on it (one per request, or one per process) sees the repeats of the whole conversation;
 * `endRun` forgets a run's.
 */
import { LoopGuardError } from "../errors.js";
import type { Verdict } from "../types.js";
import type { CallGuard } from "./guarded-call.js";

/** What dropping repeats needs of the guard besides `CallGuard`: the `LoopGuard` members. */
export interface SameAsGuard extends CallGuard {
  readonly reportsSameAs?: boolean;
  sameAsReference?(callId: string): string;
}

/** A guard that can write the reference (`SameAsGuard` once `RepeatedResults.when` checked it). */
type ReferencingGuard = SameAsGuard & { sameAsReference(callId: string): string };

/** Repeats noted per run at most; the oldest notes go first (their results are then sent whole). */
const MAX_NOTES_PER_RUN = 4096;
/** Runs with notes per guard at most; the run noted least recently goes first. */
const MAX_RUNS = 1024;

/** Per guard: per run id (`""` for the default run), each repeat's call id → the call id it repeats. */
const notesByGuard = new WeakMap<object, Map<string, Map<string, string>>>();

/** Walks a chain of notes to the call whose result the chain repeats (ids are never reused in a sane run; a loop ends the walk). */
function original(notes: Map<string, string> | undefined, callId: string): string {
  let current = callId;
  const seen = new Set<string>([current]);
  for (let next = notes?.get(current); next !== undefined && !seen.has(next); next = notes?.get(next)) {
    seen.add(next);
    current = next;
  }
  return current;
}

/** The repeats of one guard's runs, for an adapter built with `dropRepeatedResults: true`. */
export class RepeatedResults {
  readonly #guard: ReferencingGuard;
  readonly #runs: Map<string, Map<string, string>>;

  /**
   * `undefined` when `enabled` is not true. Throws LoopGuardError `invalid_config` (field
   * `sameAs`) when the guard does not report `sameAs`: it must be a `LoopGuard` built with
   * `sameAs: true` (and not `preset: "openclaw"`).
   */
  static when(enabled: boolean | undefined, guard: SameAsGuard): RepeatedResults | undefined {
    if (enabled !== true) return undefined;
    if (guard.reportsSameAs !== true || typeof guard.sameAsReference !== "function") {
      throw new LoopGuardError(
        "invalid_config",
        'dropRepeatedResults needs a LoopGuard built with sameAs: true (and not preset: "openclaw"), whose record verdicts name the call a result repeats',
        "sameAs",
      );
    }
    return new RepeatedResults(guard as ReferencingGuard);
  }

  private constructor(guard: ReferencingGuard) {
    this.#guard = guard;
    let runs = notesByGuard.get(guard);
    if (runs === undefined) notesByGuard.set(guard, (runs = new Map()));
    this.#runs = runs;
  }

  /** Notes a record verdict: the result of `callId` repeats the result of `verdict.sameAs`. */
  note(runId: string | undefined, callId: string | undefined, verdict: Verdict): void {
    const earlier = verdict.sameAs;
    if (callId === undefined || earlier === undefined || earlier === callId) return;
    const key = runId ?? "";
    const notes = this.#runs.get(key) ?? new Map<string, string>();
    this.#runs.delete(key);
    this.#runs.set(key, notes);
    if (this.#runs.size > MAX_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
    notes.set(callId, earlier);
    if (notes.size > MAX_NOTES_PER_RUN) notes.delete(notes.keys().next().value!);
  }

  /**
   * One pass over the tool results of the messages about to be sent, oldest first: called with
   * each result's call id, it answers the reference that replaces that result, or `undefined` to
   * keep it whole. A repeat is replaced only when the result it repeats was kept whole earlier in
   * the same pass.
   */
  pass(runId: string | undefined): (callId: string | undefined) => string | undefined {
    const notes = this.#runs.get(runId ?? "");
    const whole = new Set<string>();
    return (callId) => {
      if (callId === undefined) return undefined;
      const first = original(notes, callId);
      if (first !== callId && whole.has(first)) return this.#guard.sameAsReference(first);
      whole.add(callId);
      return undefined;
    };
  }

  /** Forgets the run's notes. */
  endRun(runId: string | undefined): void {
    this.#runs.delete(runId ?? "");
  }
}

/** A tool result part of an AI SDK `ModelMessage` (and of the provider prompt Mastra sends). */
interface ToolResultPart {
  type: "tool-result";
  toolCallId?: string;
  output?: unknown;
}

function isToolResultPart(part: unknown): part is ToolResultPart {
  return typeof part === "object" && part !== null && (part as { type?: unknown }).type === "tool-result";
}

/**
 * The messages in the AI SDK's shape (`role: "tool"` messages of `tool-result` parts, output
 * `{ type, value }`), with each repeated result's output replaced by `{ type: "text", value:
 * reference }`; the same array when nothing was replaced. Messages are copied, never changed.
 */
export function withoutRepeats<M>(messages: readonly M[], replace: (callId: string | undefined) => string | undefined): readonly M[] {
  let changed = false;
  const out = messages.map((message) => {
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (role !== "tool" || !Array.isArray(content)) return message;
    let touched = false;
    const parts = content.map((part: unknown) => {
      if (!isToolResultPart(part)) return part;
      const reference = replace(part.toolCallId);
      if (reference === undefined) return part;
      touched = true;
      return { ...part, output: { type: "text", value: reference } };
    });
    if (!touched) return message;
    changed = true;
    return { ...message, content: parts } as M;
  });
  return changed ? out : messages;
}
