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
import { agentDojoRuns } from "./formats/agentdojo.mjs";
import { openHandsRuns } from "./formats/openhands.mjs";
import { reactWebShopRuns, reflexionHotpotQaRuns } from "./formats/react.mjs";
import { sweAgentRuns } from "./formats/swe-agent.mjs";
import { tauBenchRuns } from "./formats/tau-bench.mjs";
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

/** Reading one source's repository at its recorded commit: list matching files, show a file. */
function repoAt(gitDir, commit) {
  return { list: (pattern) => listFiles(gitDir, commit, pattern), show: (file) => git(gitDir, "show", `${commit}:${file}`) };
}

const EXTRACTORS = {
  "tau-bench": tauBenchRuns,
  "swe-agent": sweAgentRuns,
  agentdojo: agentDojoRuns,
  openhands: openHandsRuns,
  "react-webshop": reactWebShopRuns,
  "reflexion-hotpotqa": reflexionHotpotQaRuns,
};

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
    for (const run of EXTRACTORS[source.format](source, repoAt(gitDir, commit))) {
      if (run.calls.length === 0) continue;
      if (index.runs.some((r) => r.runId === run.runId)) throw new Error(`two runs are named ${run.runId}`);
      runs += 1;
      for (const call of run.calls) {
        const head = { runId: run.runId, tool: call.tool, args: call.args };
        if ("error" in call) {
          lines.push(JSON.stringify({ ...head, error: call.error }));
          fullLines.push(JSON.stringify({ ...head, error: call.error }));
        } else {
          lines.push(JSON.stringify({ ...head, result: compactResult(call.result) }));
          fullLines.push(JSON.stringify({ ...head, result: call.result }));
        }
      }
      index.runs.push({
        runId: run.runId, source: source.id, repo: source.repo, commit, path: run.path,
        system: run.system, model: run.model, taskId: run.taskId,
        ...(run.condition ? { condition: run.condition } : {}), solved: run.solved,
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
