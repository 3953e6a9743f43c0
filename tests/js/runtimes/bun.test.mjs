// Bun (npm `bun`): the package resolves through the `bun` condition of its exports map (the Node
// ESM entry), and every scenario file runs through it (and through `tool-loop-guard/inline`)
// with the expected verdicts. --no-install: Bun never fetches a missing package.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { assertCorpus, binary, loadCorpus, pkgDir, root, run, runJson } from "./support.mjs";

const corpus = loadCorpus();
const cli = path.join(root, "tests", "js", "runtimes", "corpus-cli.mjs");
const bun = binary("bun");
const version = `bun ${run(bun, ["--version"]).stdout.trim()}`;

for (const [specifier, entry] of [
  ["tool-loop-guard", "entries/node.js"],
  ["tool-loop-guard/inline", "entries/inline.js"],
]) {
  test(`${version}: ${specifier} resolves to ${entry} and runs every scenario with the expected verdicts`, async (t) => {
    const report = runJson(bun, ["--no-install", cli, specifier]);
    assert.equal(report.resolved, pathToFileURL(path.join(pkgDir, entry)).href);
    const verdicts = await assertCorpus(report, corpus, `${report.runtime} ${specifier}`);
    t.diagnostic(`${report.runtime}: ${corpus.length} scenarios, ${verdicts} verdicts in ${report.ms} ms`);
  });
}
