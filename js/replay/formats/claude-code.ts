/**
 * Claude Code, both the way it saves a session and the way it prints one:
 *
 * - session transcripts (`~/.claude/projects/<project>/<session>.jsonl`, and the sub-agent files
 *   `<session>/subagents/agent-<id>.jsonl` or `agent-<id>.jsonl` beside it): one entry per line;
 * - headless output (`claude -p --output-format stream-json`): one event per line, `session_id`
 *   instead of `sessionId`, sub-agent messages marked with `parent_tool_use_id`.
 *
 * `assistant` entries hold an Anthropic message whose `tool_use` blocks are calls; `user` entries
 * hold `tool_result` blocks (`is_error` marks a failure); a `system` entry with subtype
 * `compact_boundary` is a compaction. Each sub-agent is its own run `<session>/<agent>`: the
 * entry's `agentId`, else the id in an `agent-<id>.jsonl` file name, else (older transcripts, every
 * sub-agent in the session file) one run per sub-agent conversation, found by following
 * `parentUuid` from its first entry (`sidechain-1`, `sidechain-2`, … in order of appearance); in
 * headless output the Task call's id (`parent_tool_use_id`). A resumed session continues the run its
 * first entry's `parentUuid` points to, and an entry whose `uuid` was read before (a resumed
 * session's copy of earlier history) is read once. Other entries (titles, summaries, snapshots,
 * progress, attachments) are skipped; the sub-agent messages that 2.1.x repeats inside `progress`
 * entries are read from the sub-agent's own file.
 */
import { type LineReader, lineObject, RunBook } from "../lines.js";
import type { RunStep, Source } from "../types.js";
import { isObject, type JsonObject, stemOf, stringOr, timeOf } from "../values.js";
import { applyToolResults, queueToolUses } from "./anthropic.js";

/** Entry types of a saved transcript. */
const TRANSCRIPT_TYPES = new Set([
  "user",
  "assistant",
  "system",
  "summary",
  "file-history-snapshot",
  "queue-operation",
  "progress",
  "attachment",
  "last-prompt",
  "ai-title",
  "custom-title",
  "permission-mode",
  "agent-name",
  "tag",
  "mode",
]);

/** Entry types no other format writes: a line of one of them is a transcript line whatever it holds. */
const TRANSCRIPT_ONLY_TYPES = new Set(["file-history-snapshot", "queue-operation", "last-prompt", "ai-title", "custom-title", "permission-mode"]);

/** Event types of headless stream-json output (each carries `session_id`). */
const STREAM_TYPES = new Set(["system", "assistant", "user", "result", "stream_event"]);

/** A line of a Claude Code transcript or of its headless stream-json output. */
export function isClaudeCodeEntry(line: JsonObject): boolean {
  const type = line.type;
  if (typeof type !== "string") return false;
  if (TRANSCRIPT_ONLY_TYPES.has(type)) return true;
  if (TRANSCRIPT_TYPES.has(type) && ("sessionId" in line || "message" in line || "leafUuid" in line)) return true;
  return STREAM_TYPES.has(type) && typeof line.session_id === "string";
}

/** The sub-agent id in a file name `agent-<id>.jsonl`, if the file is a sub-agent transcript. */
function agentOfFile(name: string | undefined): string | undefined {
  const match = /^agent-(.+)$/.exec(stemOf(name, ""));
  return match?.[1];
}

export class ClaudeCodeReader implements LineReader {
  readonly format = "claude-code";
  readonly #source: Source;
  readonly #book = new RunBook("claude-code");
  /** The message id of each run's last assistant entry: a new id means the earlier calls were all answered. */
  readonly #lastMessage = new Map<string, string>();
  /** The run of every entry read, by its uuid: later entries follow their parent's run. */
  readonly #runOfEntry = new Map<string, string>();
  /** Sub-agent conversations found by their first entry (transcripts without agent ids). */
  #sidechains = 0;

  constructor(source: Source) {
    this.#source = source;
  }

  line(text: string, lineNumber: number): RunStep[] {
    const entry = lineObject(text, lineNumber, this.#source);
    if (entry === undefined) return [];
    const uuid = stringOr(entry.uuid);
    if (uuid !== undefined && this.#runOfEntry.has(uuid)) return [];
    const session = stringOr(entry.sessionId) ?? stringOr(entry.session_id) ?? stemOf(this.#source.name);
    if (entry.type === "result") {
      this.#book.meta(session, { exitStatus: stringOr(entry.subtype), numTurns: entry.num_turns });
      return this.#book.ready();
    }
    const runId = this.#runOf(entry, session);
    if (uuid !== undefined) this.#runOfEntry.set(uuid, runId);
    const at = timeOf(entry.timestamp);
    if (entry.type === "system" && entry.subtype === "init") {
      this.#book.meta(runId, { model: stringOr(entry.model), sessionId: session, version: stringOr(entry.claude_code_version), cwd: stringOr(entry.cwd) });
    } else if (entry.type === "system" && entry.subtype === "compact_boundary") {
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

  /** The run an entry belongs to (see the header). */
  #runOf(entry: JsonObject, session: string): string {
    const parentToolUse = stringOr(entry.parent_tool_use_id);
    if (parentToolUse !== undefined) return `${session}/${parentToolUse}`;
    const parent = stringOr(entry.parentUuid);
    const parentRun = parent === undefined ? undefined : this.#runOfEntry.get(parent);
    if (entry.isSidechain !== true) return parentRun ?? session;
    const agent = stringOr(entry.agentId) ?? agentOfFile(this.#source.name);
    if (agent !== undefined) return `${session}/${agent}`;
    return parentRun ?? `${session}/sidechain-${++this.#sidechains}`;
  }

  end() {
    return this.#book.end();
  }
}
