// Deno (npm `deno`): the package resolves through the `deno` condition of its exports map, and every
// scenario file runs through it (and through `tool-loop-guard/inline`) with the expected verdicts.
// No --allow-net: the runtime cannot reach the network; reads are allowed inside the repository
// only (pkg/ is a symlink out of node_modules here; installed normally, the entry needs no
// permission at all, see packaging.test.mjs).
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertCorpus, binary, loadCorpus, pkgDir, root, run, runJson } from "./support.mjs";

const corpus = loadCorpus();
const cli = path.join(root, "tests", "js", "runtimes", "corpus-cli.mjs");
const deno = binary("deno");
const version = run(deno, ["--version"]).stdout.split("\n")[0];
const flags = ["run", "--no-prompt", "--no-lock", "--no-remote", "--node-modules-dir=manual", `--allow-read=${root}`];

for (const [specifier, entry] of [
  ["tool-loop-guard", "entries/deno.js"],
  ["tool-loop-guard/inline", "entries/inline.js"],
]) {
  test(`${version}: ${specifier} resolves to ${entry} and runs every scenario with the expected verdicts`, async (t) => {
    const report = runJson(deno, [...flags, cli, specifier]);
    assert.equal(report.resolved, pathToFileURL(path.join(pkgDir, entry)).href);
    const verdicts = await assertCorpus(report, corpus, `${report.runtime} ${specifier}`);
    t.diagnostic(`${report.runtime}: ${corpus.length} scenarios, ${verdicts} verdicts in ${report.ms} ms`);
  });
}
