#!/usr/bin/env node
// Regenerates the development set (eval/runs/*.jsonl.gz or .br, and eval/index.json) from fetched copies
// of the public repositories listed in eval/sources.mjs. Usage (after `npm run build`):
//
//   node eval/build-devset.mjs --mirrors /work/.mirror            # <dir>/<owner>+<name>/repo (bare git)
//   node eval/build-devset.mjs --repo owner/name=/path/to/git-dir # one repository at a given place
//   node eval/build-devset.mjs ... --full /tmp/devset-full        # also write the uncompacted conversion
//   node eval/build-devset.mjs ... --only id,id                   # rebuild these sources, keep the others
//
// Every file is read with `git show <commit>:<path>` at the commit the source names and converted by
// the package's own trajectory readers (tool-loop-guard/replay, one reader per format), so the set
// is what `tool-loop-guard replay` reads from the same files. Each run becomes this project's JSONL
// (js/replay/formats/jsonl.ts): a `{"event":"run","runId","meta"}` line with what the source knows
// (solved, model, agent, family) and one line per call: {runId, tool, args, result?|error?, at?}.
// Arguments and errors are kept verbatim; a result text longer than the source's cut-off (64 KiB of
// UTF-8 unless the source says less) becomes {content:[{type:"text", textSha256}]}, the form the
// package fingerprints identically (docs/semantics.md, "Fingerprints"); eval/check-compact.mjs
// proves the replay verdicts of both forms are the same. Call ids are dropped (their pairing is
// done). A file whose bytes equal a file converted before it (a copy of the same trajectory in
// another repository) is left out, and so is a run without a call. Nothing fetched is copied into
// the repository except the converted tool calls.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { readTrajectories, runLine, stepLine } from "tool-loop-guard/replay";
import { SOURCES } from "./sources.mjs";

/** Result texts above this many UTF-8 bytes are stored as their SHA-256, unless a source sets less. */
export const COMPACT_TEXT_BYTES = 65536;

/** Tools only one tau-bench domain has: they tell a results file's domain when the source does not. */
const DOMAIN_TOOLS = {
  airline: ["search_direct_flight", "search_onestop_flight", "get_reservation_details", "book_reservation", "cancel_reservation", "update_reservation_flights"],
  retail: ["find_user_id_by_email", "find_user_id_by_name_zip", "get_order_details", "get_product_details", "cancel_pending_order", "return_delivered_order_items"],
};

function parseArgs(argv) {
  const here = path.dirname(new URL(import.meta.url).pathname);
  const options = { mirrors: null, repos: new Map(), full: null, only: null, out: here };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--mirrors") options.mirrors = value;
    else if (flag === "--repo") {
      const [name, dir] = value.split("=");
      options.repos.set(name, dir);
    } else if (flag === "--full") options.full = value;
    else if (flag === "--only") options.only = new Set(value.split(","));
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

const git = (gitDir, ...args) => execFileSync("git", ["--git-dir", gitDir, ...args], { maxBuffer: 1 << 30, encoding: "utf8" });

/** A repository at one commit: its paths, a file's text, a JSON file (or null when it is absent). */
function repoAt(gitDir, commit) {
  const paths = git(gitDir, "ls-tree", "-r", "--name-only", commit).split("\n").filter(Boolean);
  const has = (file) => {
    try {
      execFileSync("git", ["--git-dir", gitDir, "cat-file", "-e", `${commit}:${file}`], { stdio: "ignore" });
      return true;
    } catch {
      return false; // not in the commit, or absent from the snapshot (files of 4 MiB and more)
    }
  };
  const show = (file) => git(gitDir, "show", `${commit}:${file}`);
  const blob = (file) => git(gitDir, "rev-parse", `${commit}:${file}`).trim();
  const cache = new Map();
  const json = (file) => {
    if (!cache.has(file)) cache.set(file, JSON.parse(show(file)));
    return cache.get(file);
  };
  return {
    /** The source's files present in the snapshot, sorted; the ones listed but absent are named. */
    files(spec) {
      const wanted = spec instanceof RegExp ? paths.filter((p) => spec.test(p)) : spec;
      const present = wanted.filter(has).sort();
      return { present, absent: wanted.filter((p) => !present.includes(p)) };
    },
    show,
    blob,
    json,
    jsonOrNull: (file) => (has(file) ? json(file) : null),
  };
}

const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

/** The compact form of a result: a text longer than `limit` UTF-8 bytes becomes its digest. */
export function compactResult(result, limit = COMPACT_TEXT_BYTES) {
  if (typeof result === "string" && Buffer.byteLength(result, "utf8") > limit) {
    return { content: [{ type: "text", textSha256: sha256(result) }] };
  }
  return result;
}

/** A call step as written to the set: without its call id; the result compacted when `limit` is set. */
function storedStep(step, limit) {
  const { callId, ...rest } = step;
  if (limit !== undefined && "result" in rest) rest.result = compactResult(rest.result, limit);
  return rest;
}

/** The domain of a tau-bench results file, from the tools its runs call. */
function tauDomain(trajectories) {
  const called = new Set(trajectories.flatMap((t) => t.steps.map((s) => s.tool)));
  return Object.keys(DOMAIN_TOOLS).find((domain) => DOMAIN_TOOLS[domain].some((tool) => called.has(tool))) ?? "unknown";
}

/**
 * Every run of one source: its trajectories read by the package's readers, with what their run lines say of them.
 * `converted` maps the git blob of every file converted so far to where it was: a copy is skipped.
 */
function* sourceRuns(source, repo, converted, copies) {
  const { present, absent } = repo.files(source.files);
  if (absent.length) console.log(`  ${source.id}: ${absent.length} files absent from the snapshot (4 MiB or more)${absent.length <= 3 ? `: ${absent.join(", ")}` : ""}`);
  for (const file of present) {
    const blob = repo.blob(file);
    if (converted.has(blob)) {
      copies.push(`${file} = ${converted.get(blob)}`);
      continue;
    }
    converted.set(blob, `${source.id}:${file}`);
    const text = repo.show(file);
    const pieces = source.split ? source.split(text, file) : [{ name: file, text, info: null }];
    for (const piece of pieces) {
      const trajectories = readTrajectories(piece.text, { name: piece.name, ...(source.format ? { format: source.format } : {}) });
      const domain = source.format === "tau-bench" ? tauDomain(trajectories) : undefined;
      for (const trajectory of trajectories) {
        const fields = source.run(trajectory, { path: file, info: piece.info, repo, domain });
        if (fields) yield { trajectory, file, fields };
      }
    }
  }
}

function writeIndex(out, index) {
  // One source a line: diffs of a rebuilt index stay readable. What each run is (solved, model,
  // task, where it came from) is its run line's meta, in its source's file, and nowhere else.
  const list = (items) => items.map((item) => JSON.stringify(item)).join(",\n");
  const head = `{"generatedBy": ${JSON.stringify(index.generatedBy)}, "compactTextBytes": ${index.compactTextBytes},`;
  fs.writeFileSync(path.join(out, "index.json"), `${head}\n"sources": [\n${list(index.sources)}\n]}\n`);
}

/** A committed file stays under this size: a source whose gzip is larger is written with brotli. */
const MAX_FIXTURE_BYTES = 2_000_000;

/** The compressed fixture of a source's lines: `[file name, bytes]`, gzip unless that is too large. */
function packedFixture(id, text) {
  const gz = zlib.gzipSync(text, { level: 9 });
  if (gz.length <= MAX_FIXTURE_BYTES) return [`${id}.jsonl.gz`, gz];
  const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_PARAM_SIZE_HINT } = zlib.constants;
  const params = { [BROTLI_PARAM_QUALITY]: 11, [BROTLI_PARAM_LGWIN]: 24, [BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text) };
  return [`${id}.jsonl.br`, zlib.brotliCompressSync(text, { params })];
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const runsDir = path.join(options.out, "runs");
  fs.mkdirSync(runsDir, { recursive: true });
  if (options.full) fs.mkdirSync(options.full, { recursive: true });
  const previous = options.only ? JSON.parse(fs.readFileSync(path.join(options.out, "index.json"), "utf8")) : null;
  const index = { generatedBy: "eval/build-devset.mjs", compactTextBytes: COMPACT_TEXT_BYTES, sources: [] };
  const converted = new Map(); // git blob of every file converted -> "<source id>:<path>"
  const ids = new Set();
  for (const source of SOURCES) {
    if (options.only && !options.only.has(source.id)) {
      const kept = previous.sources.find((s) => s.id === source.id);
      if (!kept) throw new Error(`--only: ${source.id} has no earlier build to keep`);
      index.sources.push(kept);
      continue;
    }
    const limit = source.compactTextBytes ?? COMPACT_TEXT_BYTES;
    const repo = repoAt(gitDirOf(options, source.repo), source.commit);
    const lines = [];
    const fullLines = [];
    let runs = 0;
    let calls = 0;
    const duplicates = [];
    for (const { trajectory, file, fields } of sourceRuns(source, repo, converted, duplicates)) {
      const steps = trajectory.steps;
      const callCount = steps.filter((s) => !("event" in s)).length;
      if (callCount === 0) continue;
      const runId = `${source.id}/${fields.key}`;
      if (ids.has(runId)) throw new Error(`two runs are named ${runId}`);
      ids.add(runId);
      runs += 1;
      calls += callCount;
      const meta = {
        ...trajectory.meta,
        family: source.family,
        agent: fields.system ?? source.system,
        model: fields.model ?? trajectory.meta.model ?? null,
        taskId: fields.taskId,
        solved: fields.solved,
        solvedHow: fields.solvedHow,
      };
      const from = { format: trajectory.format, file: `${source.repo}@${source.commit.slice(0, 12)}:${file}` };
      lines.push(runLine(runId, meta, from));
      fullLines.push(runLine(runId, meta, from));
      for (const step of steps) {
        lines.push(stepLine(runId, "event" in step ? step : storedStep(step, limit)));
        fullLines.push(stepLine(runId, "event" in step ? step : storedStep(step)));
      }
    }
    const [fileName, packed] = packedFixture(source.id, lines.join("\n") + "\n");
    fs.writeFileSync(path.join(runsDir, fileName), packed);
    if (options.full) fs.writeFileSync(path.join(options.full, `${source.id}.jsonl`), fullLines.join("\n") + "\n");
    index.sources.push({
      id: source.id,
      family: source.family,
      repo: source.repo,
      commit: source.commit,
      format: source.format ?? "detected",
      file: `runs/${fileName}`,
      compactTextBytes: limit,
      runs,
      calls,
      copiesLeftOut: duplicates.length,
      bytes: packed.length,
    });
    console.log(`${source.id}: ${runs} runs, ${calls} calls, ${(packed.length / 1024).toFixed(0)} KiB${duplicates.length ? `, ${duplicates.length} copied files left out` : ""}`);
  }
  writeIndex(options.out, index);
  const total = index.sources.reduce((n, s) => n + s.bytes, 0);
  const runs = index.sources.reduce((n, s) => n + s.runs, 0);
  console.log(`index: ${index.sources.length} sources, ${runs} runs, ${(total / 1048576).toFixed(1)} MiB compressed`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) main();
