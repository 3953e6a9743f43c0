#!/usr/bin/env node
// Regenerates the captured replay in README.md ("Replay your own logs"): the command shown there,
// run for real on a trajectory of the development set, its output pasted between the
// `<!-- replay-capture -->` markers. Run after `npm run build` whenever verdicts change:
//
//   npm run readme:replay            rewrite README.md
//   npm run readme:replay -- --check exit 1 when README.md shows output the build no longer gives
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURE = "eval/runs/taubench-apollo.jsonl.gz";
/** What README.md shows; the script runs exactly this (the bin of the built pkg/, stdin from zcat). */
const COMMAND = `zcat ${FIXTURE} | node pkg/cli/main.js replay -`;
const START = "<!-- replay-capture:start -->";
const END = "<!-- replay-capture:end -->";

const input = zlib.gunzipSync(fs.readFileSync(path.join(root, FIXTURE)));
const bin = path.join(root, "pkg", "cli", "main.js");
const result = spawnSync(process.execPath, [bin, "replay", "-"], { input, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
if (result.status !== 0 && result.status !== 1) throw new Error(`replay exited with ${result.status}: ${result.stderr}`);
const block = `${START}\n\`\`\`console\n$ ${COMMAND}\n${result.stdout.trimEnd()}\n$ echo $?\n${result.status}\n\`\`\`\n${END}`;

const readmePath = path.join(root, "README.md");
const readme = fs.readFileSync(readmePath, "utf8");
const from = readme.indexOf(START);
const to = readme.indexOf(END);
if (from === -1 || to < from) throw new Error(`README.md has no ${START} … ${END} block`);
const updated = `${readme.slice(0, from)}${block}${readme.slice(to + END.length)}`;
if (process.argv.includes("--check")) {
  if (updated !== readme) {
    console.error("README.md's captured replay is stale: run npm run readme:replay");
    process.exit(1);
  }
  console.log("README.md's captured replay is current");
} else {
  fs.writeFileSync(readmePath, updated);
  console.log(`README.md: captured \`${COMMAND}\` (exit code ${result.status})`);
}
