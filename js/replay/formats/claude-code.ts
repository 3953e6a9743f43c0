/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`): one entry per line.
 * `assistant` entries hold an Anthropic message whose `tool_use` blocks are calls; `user` entries
 * hold `tool_result` blocks (`is_error` marks a failure); a `system` entry with subtype
 * `compact_boundary` is a compaction. Entries of a subagent (`isSidechain`) form their own run
 * `<session>/<agentId or "sidechain">`. Other entry types (summaries, snapshots, progress) are skipped.
 */
import { type LineReader, lineObject, RunBook } from "../lines.js";
import type { RunStep, Source } from "../types.js";
import { isObject, type JsonObject, stemOf, stringOr, timeOf } from "../values.js";
import { applyToolResults, queueToolUses } from "./anthropic.js";

const ENTRY_TYPES = new Set(["user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress", "attachment"]);

/** A line of a Claude Code session: a typed entry with a session id, a message or a summary. */
export function isClaudeCodeEntry(line: JsonObject): boolean {
  return typeof line.type === "string" && ENTRY_TYPES.has(line.type) && ("sessionId" in line || "message" in line || "leafUuid" in line);
}

export class ClaudeCodeReader implements LineReader {
  readonly format = "claude-code";
  readonly #source: Source;
  readonly #book = new RunBook("claude-code");
  /** The message id of each run's last assistant entry: a new id means the earlier calls were all answered. */
  readonly #lastMessage = new Map<string, string>();

  constructor(source: Source) {
    this.#source = source;
  }

  line(text: string, lineNumber: number): RunStep[] {
    const entry = lineObject(text, lineNumber, this.#source);
    if (entry === undefined) return [];
    const session = stringOr(entry.sessionId) ?? stemOf(this.#source.name);
    const runId = entry.isSidechain === true ? `${session}/${stringOr(entry.agentId) ?? "sidechain"}` : session;
    const at = timeOf(entry.timestamp);
    if (entry.type === "system" && entry.subtype === "compact_boundary") {
      this.#book.queue(runId).event({ event: "compaction" });
    } else if ((entry.type === "assistant" || entry.type === "user") && isObject(entry.message)) {
      const message = entry.message;
      const queue = this.#book.queue(runId);
      const context = { path: "message", file: this.#source.name, line: lineNumber, ...(at === undefined ? {} : { at }) };
      if (entry.type === "assistant") {
        this.#book.meta(runId, { model: stringOr(message.model), sessionId: session, version: stringOr(entry.version), cwd: stringOr(entry.cwd) });
        const id = stringOr(message.id);
        if (id !== undefined && this.#lastMessage.get(runId) !== id) {
          this.#lastMessage.set(runId, id);
          // A new model response: every earlier call was answered or never will be.
          queue.settle();
        }
        queueToolUses(message.content, queue, context);
      } else {
        applyToolResults(message.content, queue, at);
      }
    }
    return this.#book.ready();
  }

  end() {
    return this.#book.end();
  }
}
