#!/usr/bin/env node
// Rebuilds the real-records benchmark set (bench/real/<workload>.jsonl.gz) from fetched copies of
// the public repositories in bench/real/sources.mjs (cited in bench/real/SOURCES.md):
//
//   node bench/real/build.mjs --mirrors /work/.mirror    # <dir>/<owner>+<name>/repo (bare git)
//
// Each file is read with `git show <commit>:<path>` at the pinned commit and converted by the
// package's own trajectory readers (`readTrajectories` of tool-loop-guard/replay, so build the
// package first); runs are taken in path order until the workload holds `maxCalls` calls. Unlike
// eval/, result texts are kept whole: long texts are what the benchmark is about. The output is the
// package's JSONL form, a `run` line then one line per call ({runId, tool, args, result | error,
// callId}); `at` is left out (the benchmark gives every call its own time).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { WORKLOADS } from "./sources.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { readTrajectories } = await import(new URL("../../pkg/replay/index.js", import.meta.url).href);

function mirrorsDir(argv) {
  const at = argv.indexOf("--mirrors");
  if (at === -1 || argv[at + 1] === undefined) throw new Error("usage: node bench/real/build.mjs --mirrors <dir of <owner>+<name>/repo>");
  return argv[at + 1];
}

const git = (gitDir, ...args) => execFileSync("git", ["--git-dir", gitDir, ...args], { maxBuffer: 1 << 30, encoding: "utf8" });

/** The source's paths at its commit, sorted, without the blobs the snapshot lacks. */
function filesOf(gitDir, { commit, pattern }) {
  const present = (file) => {
    try {
      execFileSync("git", ["--git-dir", gitDir, "cat-file", "-e", `${commit}:${file}`], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  };
  return git(gitDir, "ls-tree", "-r", "--name-only", commit)
    .split("\n")
    .filter((file) => pattern.test(file) && present(file))
    .sort();
}

/** The JSONL lines of one converted run (null when it has no call). */
function runLines(trajectory, runId, meta) {
  const calls = trajectory.steps.filter((step) => typeof step.tool === "string");
  if (calls.length === 0) return null;
  const lines = [JSON.stringify({ event: "run", runId, meta })];
  for (const { tool, args, result, error, callId } of calls) {
    lines.push(JSON.stringify({ runId, tool, args, ...(error === undefined ? { result } : { error }), ...(callId === undefined ? {} : { callId }) }));
  }
  return { lines, calls: calls.length };
}

function buildWorkload(mirrors, workload) {
  const out = [];
  let calls = 0;
  for (const source of workload.sources) {
    const gitDir = path.join(mirrors, source.repo.replace("/", "+"), "repo");
    for (const file of filesOf(gitDir, source)) {
      if (calls >= workload.maxCalls) break;
      const text = git(gitDir, "show", `${source.commit}:${file}`);
      const document = source.reshape === undefined ? text : JSON.stringify(source.reshape(JSON.parse(text)));
      let trajectories;
      try {
        trajectories = readTrajectories(document, { name: file, format: source.format });
      } catch (error) {
        console.warn(`skipped ${source.repo} ${file}: ${error.message}`);
        continue;
      }
      trajectories.forEach((trajectory, i) => {
        if (calls >= workload.maxCalls) return;
        const runId = `${source.repo}/${file}${trajectories.length > 1 ? `#${i}` : ""}`;
        const run = runLines(trajectory, runId, { repo: source.repo, commit: source.commit, file });
        if (run === null) return;
        out.push(...run.lines);
        calls += run.calls;
      });
    }
  }
  return { text: `${out.join("\n")}\n`, calls };
}

const mirrors = mirrorsDir(process.argv.slice(2));
for (const workload of WORKLOADS) {
  const { text, calls } = buildWorkload(mirrors, workload);
  const gz = zlib.gzipSync(text, { level: 9 });
  fs.writeFileSync(path.join(here, `${workload.id}.jsonl.gz`), gz);
  console.log(`${workload.id}: ${calls} calls, ${(text.length / 1024).toFixed(0)} KB of JSONL, ${(gz.length / 1024).toFixed(0)} KB gzipped`);
}
