#!/usr/bin/env node
// Regenerates the development set (eval/runs/*.jsonl.gz and eval/index.json) from fetched copies
// of the public repositories listed in SOURCES below. Usage:
//
//   node eval/build-devset.mjs --mirrors /work/.mirror            # <dir>/<owner>+<name>/repo (bare git)
//   node eval/build-devset.mjs --repo owner/name=/path/to/git-dir # one repository at a given place
//   node eval/build-devset.mjs ... --full /tmp/devset-full        # also write the uncompacted conversion
//
// Every run is converted to the project's JSONL record form, one line per tool call:
// {runId, tool, args, result?|error?}. Arguments are kept verbatim. A result text longer than
// COMPACT_TEXT_BYTES UTF-8 bytes is replaced by {content:[{type:"text", textSha256}]}, the form the
// package accepts for long texts and fingerprints identically (docs/semantics.md, "Fingerprints");
// `eval/check-compact.mjs` proves the replay verdicts of both forms are the same.
// The files are read with `git show <commit>:<path>` from the commit recorded in the index, so the
// output is reproducible from the same snapshots. Nothing fetched is copied verbatim into the repo
// except the tool calls' arguments and short result texts, i.e. the converted trajectory data.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { SOURCES } from "./sources.mjs";

/** Result texts above this many UTF-8 bytes are stored as their SHA-256 (the core hashes them anyway above 4096). */
export const COMPACT_TEXT_BYTES = 4096;

function parseArgs(argv) {
  const options = { mirrors: null, repos: new Map(), full: null, out: path.dirname(new URL(import.meta.url).pathname) };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--mirrors") options.mirrors = value;
    else if (flag === "--repo") {
      const [name, dir] = value.split("=");
      options.repos.set(name, dir);
    } else if (flag === "--full") options.full = value;
    else if (flag === "--out") options.out = value;
    else throw new Error(`unknown flag ${flag}`);
  }
  return options;
}

function gitDirOf(options, repo) {
  if (options.repos.has(repo)) return options.repos.get(repo);
  if (options.mirrors) return path.join(options.mirrors, repo.replace("/", "+"), "repo");
  throw new Error(`no place given for ${repo}: pass --mirrors or --repo ${repo}=<git dir>`);
}

const git = (gitDir, ...args) =>
  execFileSync("git", ["--git-dir", gitDir, ...args], { maxBuffer: 1 << 30, encoding: "utf8" });

/** Every blob path of the commit matching the source's pattern, skipping blobs the snapshot lacks. */
function listFiles(gitDir, commit, pattern) {
  return git(gitDir, "ls-tree", "-r", "--name-only", commit)
    .split("\n")
    .filter((p) => pattern.test(p))
    .filter((p) => {
      try {
        execFileSync("git", ["--git-dir", gitDir, "cat-file", "-e", `${commit}:${p}`], { stdio: "ignore" });
        return true;
      } catch {
        return false;
      }
    })
    .sort();
}

const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

/** The compact form of a result: long texts become their digest. */
export function compactResult(result) {
  if (typeof result === "string" && Buffer.byteLength(result, "utf8") > COMPACT_TEXT_BYTES) {
    return { content: [{ type: "text", textSha256: sha256(result) }] };
  }
  return result;
}

// ---- format converters: each returns [{tool, args, result}] for one run ----

/**
 * tau-bench: assistant `tool_calls`, each answered by a `tool` message: by `tool_call_id` when the
 * run has ids, else in order (some agents built on tau-bench record calls without ids).
 */
function tauBenchCalls(traj) {
  const byId = new Map();
  for (const m of traj) if (m.role === "tool" && m.tool_call_id) byId.set(m.tool_call_id, m.content);
  const calls = [];
  const waiting = []; // calls without an id, answered by the next tool messages without one
  for (const m of traj) {
    if (m.role === "tool" && !m.tool_call_id) {
      const call = waiting.shift();
      if (call) call.result = m.content ?? "";
    }
    if (m.role !== "assistant") continue;
    for (const tc of m.tool_calls ?? []) {
      let args;
      try {
        args = JSON.parse(tc.function.arguments || "{}");
      } catch {
        args = { _unparsed: tc.function.arguments }; // not JSON (e.g. a Python dict literal): kept as written
      }
      const call = { tool: tc.function.name, args, result: tc.id ? (byId.get(tc.id) ?? "") : "" };
      if (!tc.id) waiting.push(call);
      calls.push(call);
    }
  }
  return calls;
}

/** SWE-agent tools that are not plain shell commands (ACI commands and function-calling tools). */
const SWE_AGENT_TOOLS = new Set([
  "str_replace_editor", "submit", "open", "goto", "scroll_up", "scroll_down", "create", "edit",
  "search_dir", "search_file", "find_file", "filemap", "insert", "append", "debug_start",
  "debug_step", "debug_stop", "debug_continue", "debug_add_breakpoint", "connect_start",
  "connect_sendline", "connect_stop", "decompile", "disassemble", "exit_forfeit",
]);

/**
 * SWE-agent `.traj`: one call per `trajectory` step. The action's first word names the tool when it
 * is one of SWE-agent's own commands; anything else is a shell command of the `bash` tool. The
 * whole action text is the argument (`{command}`), the observation the result.
 */
function sweAgentCalls(traj) {
  const calls = [];
  for (const step of traj.trajectory ?? []) {
    const action = typeof step.action === "string" ? step.action.trim() : "";
    if (!action) continue;
    const first = action.split(/\s+/, 1)[0];
    const tool = SWE_AGENT_TOOLS.has(first) ? first : "bash";
    calls.push({ tool, args: { command: action }, result: step.observation ?? "" });
  }
  return calls;
}

// ---- per-source run extraction ----

function* tauBenchRuns(source, gitDir, commit) {
  for (const file of source.files) {
    const entries = JSON.parse(git(gitDir, "show", `${commit}:${file.path}`));
    for (const entry of entries) {
      yield {
        runId: `${source.id}/${file.tag}/task${entry.task_id}-t${entry.trial}`,
        path: file.path,
        system: file.system,
        model: file.model ?? source.model,
        taskId: `${source.domain}/${entry.task_id}`,
        solved: entry.reward === 1,
        solvedHow: "reward == 1 in the result entry",
        exit: null,
        calls: tauBenchCalls(entry.traj ?? []),
      };
    }
  }
}

function* sweAgentRuns(source, gitDir, commit) {
  for (const file of listFiles(gitDir, commit, source.pattern)) {
    const traj = JSON.parse(git(gitDir, "show", `${commit}:${file}`));
    const meta = source.describe(file);
    yield {
      runId: `${source.id}/${meta.task}`,
      path: file,
      system: source.system,
      model: meta.model,
      taskId: meta.task,
      solved: meta.solved ?? null,
      solvedHow: meta.solvedHow ?? "unknown: no evaluation report published with this trajectory",
      exit: traj.info?.exit_status ?? null,
      calls: sweAgentCalls(traj),
    };
  }
}

const EXTRACTORS = { "tau-bench": tauBenchRuns, "swe-agent": sweAgentRuns };

function main() {
  const options = parseArgs(process.argv.slice(2));
  const runsDir = path.join(options.out, "runs");
  fs.mkdirSync(runsDir, { recursive: true });
  if (options.full) fs.mkdirSync(options.full, { recursive: true });
  const index = { generatedBy: "eval/build-devset.mjs", compactTextBytes: COMPACT_TEXT_BYTES, sources: [], runs: [] };
  for (const source of SOURCES) {
    const gitDir = gitDirOf(options, source.repo);
    const commit = source.commit;
    const lines = [];
    const fullLines = [];
    let runs = 0;
    for (const run of EXTRACTORS[source.format](source, gitDir, commit)) {
      if (run.calls.length === 0) continue;
      if (index.runs.some((r) => r.runId === run.runId)) throw new Error(`two runs are named ${run.runId}`);
      runs += 1;
      for (const call of run.calls) {
        const record = { runId: run.runId, tool: call.tool, args: call.args, result: call.result };
        fullLines.push(JSON.stringify(record));
        lines.push(JSON.stringify({ ...record, result: compactResult(call.result) }));
      }
      index.runs.push({
        runId: run.runId, source: source.id, repo: source.repo, commit, path: run.path,
        system: run.system, model: run.model, taskId: run.taskId, solved: run.solved,
        solvedHow: run.solvedHow, exit: run.exit, calls: run.calls.length,
      });
    }
    const file = `${source.id}.jsonl.gz`;
    const gz = zlib.gzipSync(lines.join("\n") + "\n", { level: 9 });
    fs.writeFileSync(path.join(runsDir, file), gz);
    if (options.full) fs.writeFileSync(path.join(options.full, `${source.id}.jsonl`), fullLines.join("\n") + "\n");
    index.sources.push({ id: source.id, repo: source.repo, commit, format: source.format, file: `runs/${file}`, runs, bytes: gz.length });
    console.log(`${source.id}: ${runs} runs, ${lines.length} calls, ${(gz.length / 1024).toFixed(0)} KiB`);
  }
  // One source or run a line: diffs of a rebuilt index stay readable.
  const list = (items) => items.map((item) => JSON.stringify(item)).join(",\n");
  const head = `{"generatedBy": ${JSON.stringify(index.generatedBy)}, "compactTextBytes": ${index.compactTextBytes},`;
  fs.writeFileSync(path.join(options.out, "index.json"), `${head}\n"sources": [\n${list(index.sources)}\n],\n"runs": [\n${list(index.runs)}\n]}\n`);
  console.log(`index: ${index.runs.length} runs`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) main();
