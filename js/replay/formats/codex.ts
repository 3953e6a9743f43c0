/**
 * Codex CLI session rollouts (`~/.codex/sessions/…/rollout-*.jsonl`): one `{timestamp, type,
 * payload}` per line; `response_item` payloads are Responses API items (see openai-responses.ts),
 * `compacted` is a compaction, `session_meta` and `turn_context` say what the session ran. Older
 * rollouts wrote a first line `{id, timestamp, instructions}` and then bare items (and
 * `{record_type: "state"}` lines), which are read too, and so is headless `codex exec --json` output
 * (codex-exec.ts: one run per thread).
 *
 * Shell outputs are what Codex showed the model: either JSON `{output, metadata: {exit_code,
 * duration_seconds}}` or text whose header lines (`Exit code: N`, `Wall time: …`, `Process exited
 * with code N`, `Chunk ID: …`; since 0.14x's JavaScript `exec` tool also `Script completed` and
 * `Wall time N seconds`) precede `Output:`, as one text or as text parts. A non-zero exit code makes
 * the outcome an error; the timing lines (wall time, duration, chunk id) change on every call and
 * are dropped; the rest of the text is kept whole.
 */
import { type LineReader, lineObject, RunBook } from "../lines.js";
import type { Outcome } from "../queue.js";
import type { RunStep, Source } from "../types.js";
import { isObject, type JsonObject, stemOf, stringOr, timeOf } from "../values.js";
import { execItemCall, isCodexExecEvent } from "./codex-exec.js";
import { applyResponseItem, isResponseItem, outputOutcome } from "./openai-responses.js";

const LINE_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);

/** A line of a Codex rollout: a typed line with a payload, or a line of the older layout. */
export function isCodexLine(line: JsonObject): boolean {
  if (typeof line.type === "string" && LINE_TYPES.has(line.type) && "payload" in line) return true;
  if (isCodexExecEvent(line)) return true;
  return line.record_type === "state" || (typeof line.id === "string" && "instructions" in line);
}

/** Header lines before `Output:` that carry only timing. */
const TIMING_LINE = /^(Wall time:? .*|Chunk ID: .*)$/;
const EXIT_LINE = /^(?:Exit code: |Process exited with code )(-?\d+)$/;
const HEADER_LINE = /^(Exit code: |Wall time:? |Total output lines: |Chunk ID: |Process exited with code |Process running with |Original token count: |Script [a-z ]+$)/;

/** The exit code and the text a shell output shows, or undefined when it is not a shell output. */
function shellOutput(text: string): { exitCode: number | undefined; text: string } | undefined {
  if (text.startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isObject(parsed) || typeof parsed.output !== "string" || !isObject(parsed.metadata)) return undefined;
    const code = parsed.metadata.exit_code ?? parsed.metadata.shell_exit_code;
    return { exitCode: typeof code === "number" ? code : undefined, text: parsed.output };
  }
  const end = text.indexOf("\nOutput:");
  if (end === -1) return undefined;
  const header = text.slice(0, end).split("\n");
  if (!header.every((line) => HEADER_LINE.test(line))) return undefined;
  const exit = header.map((line) => EXIT_LINE.exec(line)).find((m) => m !== null);
  const kept = header.filter((line) => !TIMING_LINE.test(line));
  return { exitCode: exit ? Number(exit[1]) : undefined, text: [...kept, text.slice(end + 1)].join("\n") };
}

/** The text of an output given as text parts only (Codex splits a header from its output so), else undefined. */
function partsText(output: unknown): string | undefined {
  if (!Array.isArray(output) || output.length === 0) return undefined;
  const texts = output.map((part) => (isObject(part) && typeof part.text === "string" && /^(input_|output_)?text$/.test(String(part.type)) ? part.text : undefined));
  return texts.every((t) => t !== undefined) ? texts.join("") : undefined;
}

/** A Codex call output as an outcome (shell outputs by their exit code, see above). */
function codexOutcome(output: unknown): Outcome {
  const joined = partsText(output);
  if (joined !== undefined && shellOutput(joined) !== undefined) return codexOutcome(joined);
  const outcome = outputOutcome(output);
  const text = "result" in outcome ? outcome.result : outcome.error;
  if (typeof text !== "string") return outcome;
  const shell = shellOutput(text);
  if (shell === undefined) return outcome;
  return shell.exitCode !== undefined && shell.exitCode !== 0 ? { error: shell.text } : "error" in outcome ? { error: shell.text } : { result: shell.text };
}

// The frame (the source, a RunBook, `lineObject` first, `end()` from the book) is JsonlReader's and
// ClaudeCodeReader's too: a few lines each, kept so that every reader's state is in plain sight.
export class CodexReader implements LineReader {
  readonly format = "codex";
  readonly #source: Source;
  readonly #book = new RunBook("codex");
  /** The file's run; in `codex exec --json` output, the thread started last. */
  #runId: string;
  /** No call since the last compaction. */
  #compacted = false;

  constructor(source: Source) {
    this.#source = source;
    this.#runId = stemOf(source.name);
  }

  line(text: string, lineNumber: number): RunStep[] {
    const line = lineObject(text, lineNumber, this.#source);
    if (line === undefined) return [];
    const at = timeOf(line.timestamp);
    const payload = isObject(line.payload) ? line.payload : undefined;
    if (line.type === "session_meta" && payload !== undefined) {
      this.#book.meta(this.#runId, { sessionId: stringOr(payload.id), cwd: stringOr(payload.cwd), cliVersion: stringOr(payload.cli_version) });
    } else if (line.type === "turn_context" && payload !== undefined) {
      this.#book.meta(this.#runId, { model: stringOr(payload.model) });
    } else if (line.type === "compacted") {
      this.#compaction();
    } else if (line.type === "response_item" && payload !== undefined) {
      this.#item(payload, lineNumber, at);
    } else if (line.type === "thread.started" && typeof line.thread_id === "string") {
      this.#runId = line.thread_id;
      this.#book.meta(this.#runId, { sessionId: line.thread_id });
    } else if (line.type === "item.completed" && isObject(line.item)) {
      const call = execItemCall(line.item, at);
      if (call !== undefined) this.#book.queue(this.#runId).done(call);
    } else if (typeof line.id === "string" && "instructions" in line) {
      this.#book.meta(this.#runId, { sessionId: line.id });
    } else if (isResponseItem(line)) {
      this.#item(line, lineNumber, at);
    }
    return this.#book.ready();
  }

  #item(item: JsonObject, lineNumber: number, at: number | undefined): void {
    if (item.type === "compaction" || item.type === "compaction_summary") return this.#compaction();
    this.#compacted = false;
    const context = { path: "payload", file: this.#source.name, line: lineNumber, outcomeOf: codexOutcome, ...(at === undefined ? {} : { at }) };
    applyResponseItem(item, this.#book.queue(this.#runId), context);
  }

  /** A compaction, once: Codex may write both a `compacted` line and a compaction item for one. */
  #compaction(): void {
    if (this.#compacted) return;
    this.#compacted = true;
    this.#book.queue(this.#runId).event({ event: "compaction" });
  }

  end() {
    return this.#book.end();
  }
}
