// workerd (Cloudflare Workers' runtime): a Worker that imports "tool-loop-guard" through the
// `workerd` condition of the exports map runs every scenario file POSTed to it on 127.0.0.1.
// Its outbound network is disabled; `tool-loop-guard/inline` is shown to be unusable there. A third
// Worker runs the portable bad-input cases and non-retention scan (../hostile-cases.mjs).
import assert from "node:assert/strict";
import http from "node:http";
import path from "node:path";
import { after, before, test } from "node:test";
import * as api from "tool-loop-guard";
import { hostileCases } from "../hostile-cases.mjs";
import { assertCorpus, binary, loadCorpus, pkgDir, run, root } from "./support.mjs";
import { packageModules, startWorkerd } from "./workerd.mjs";

const corpus = loadCorpus();
const here = path.join(root, "tests", "js", "runtimes");
let server;
let entries;

before(async () => {
  const main = packageModules(pkgDir, ["."]);
  const inline = packageModules(pkgDir, ["./inline"]);
  entries = { ...main.entries, ...inline.entries };
  server = await startWorkerd([
    {
      modules: [
        // At the root: workerd looks a bare specifier up as a module name relative to the importer's
        // directory, so "tool-loop-guard" from "worker.mjs" is the module "tool-loop-guard".
        { name: "worker.mjs", file: path.join(here, "workerd-worker.mjs") },
        { name: "scenario-runner.mjs", file: path.join(root, "tests", "js", "scenario-runner.mjs") },
        ...main.modules,
      ],
    },
    { modules: [{ name: "worker.mjs", file: path.join(here, "workerd-inline-worker.mjs") }, ...inline.modules] },
    {
      modules: [
        { name: "worker.mjs", file: path.join(here, "workerd-hostile-worker.mjs") },
        { name: "hostile-cases.mjs", file: path.join(root, "tests", "js", "hostile-cases.mjs") },
        ...main.modules,
      ],
    },
  ]);
});

after(async () => {
  await server?.stop();
});

test(`workerd (${run(binary("workerd"), ["--version"]).stdout.trim()}) resolves the package to its workerd entry`, () => {
  assert.equal(entries["."], "./entries/workerd.js");
  assert.equal(entries["./inline"], "./entries/inline.js");
});

test("workerd runs every scenario through the workerd entry with the expected verdicts", async (t) => {
  const response = await fetch(`${server.urls[0]}/corpus`, { method: "POST", body: JSON.stringify(corpus) });
  assert.equal(response.status, 200, server.output());
  const report = await response.json();
  const verdicts = await assertCorpus(report, corpus, "workerd");
  assert.match(report.coreVersion, /^\d+\.\d+\.\d+/);
  t.diagnostic(`${corpus.length} scenarios, ${verdicts} verdicts in ${report.ms} ms`);
});

test("the Worker's outbound network is disabled (globalOutbound allows nothing, not even 127.0.0.1)", async () => {
  let hits = 0;
  const target = http.createServer((_req, res) => {
    hits += 1;
    res.end("reached");
  });
  await new Promise((resolve) => target.listen(0, "127.0.0.1", resolve));
  try {
    const to = `http://127.0.0.1:${target.address().port}/`;
    const report = await (await fetch(`${server.urls[0]}/outbound?to=${encodeURIComponent(to)}`)).json();
    assert.equal(report.reached, false, JSON.stringify(report));
    assert.equal(hits, 0);
  } finally {
    await new Promise((resolve) => target.close(resolve));
  }
});

test("tool-loop-guard/inline is unusable in workerd (no wasm compiled from bytes), as documented", async (t) => {
  const report = await (await fetch(`${server.urls[1]}/`)).json();
  assert.equal(report.constructed, false, JSON.stringify(report));
  assert.match(report.message, /code generation|disallowed|not allowed/i, JSON.stringify(report));
  t.diagnostic(`${report.name}: ${report.message}`);
});

test("workerd: the bad-input outcomes equal Node's, and no marker is retained", async () => {
  const response = await fetch(`${server.urls[2]}/`);
  assert.equal(response.status, 200, server.output());
  const report = await response.json();
  assert.deepEqual(report.cases, hostileCases(api));
  assert.deepEqual(report.retained, []);
});
