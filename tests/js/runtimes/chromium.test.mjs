// Headless Chromium: a page on 127.0.0.1 imports "tool-loop-guard" through an import map that
// points at the package's `browser` entry and runs every scenario file, once for each way of
// calling init() (no input, URL, string, Response, Promise<Response>, ArrayBuffer, Uint8Array,
// WebAssembly.Module, a failed init retried) and once through `tool-loop-guard/inline`.
// Before init(), `new LoopGuard()` must throw LoopGuardError code not_initialized. One more page
// runs the portable bad-input cases and non-retention scan (../hostile-cases.mjs).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import * as api from "tool-loop-guard";
import { hostileCases } from "../hostile-cases.mjs";
import { assertCorpus, loadCorpus, pkgDir } from "./support.mjs";
import { launchChromium, startPageServer } from "./browser.mjs";

const corpus = loadCorpus();
const MODES = ["default", "url", "string", "response", "promise", "bytes", "view", "module", "retry", "inline"];
let server;
let chromium;

before(async () => {
  server = await startPageServer(pkgDir);
  chromium = await launchChromium(server.origin);
});

after(async () => {
  await chromium?.close();
  await server?.close();
});

test("the page's import map points at the browser entry (exports map, `browser` condition)", () => {
  assert.deepEqual(server.entries, { "tool-loop-guard": "./index.js", "tool-loop-guard/inline": "./entries/inline.js" });
});

for (const mode of MODES) {
  test(`Chromium: ${mode === "inline" ? "tool-loop-guard/inline" : `init() by ${mode}`}, then every scenario with the expected verdicts`, async (t) => {
    const { report, errors } = await chromium.open(`${server.origin}/?mode=${mode}`);
    assert.equal(report.error, undefined, report.error);
    assert.deepEqual(errors, []);
    if (mode !== "inline") {
      assert.deepEqual(report.notInitialized, ["LoopGuardError:not_initialized", "LoopGuardError:not_initialized"]);
    }
    if (mode === "default") assert.equal(report.sameWhileLoading, true, "init() while loading returns the same promise");
    const verdicts = await assertCorpus(report, corpus, `Chromium ${mode}`);
    t.diagnostic(`Chromium ${chromium.version}: ${corpus.length} scenarios, ${verdicts} verdicts in ${report.ms} ms`);
  });
}

test("Chromium: the bad-input outcomes equal Node's, and no marker is retained", async () => {
  const { report, errors } = await chromium.open(`${server.origin}/?mode=hostile`);
  assert.equal(report.error, undefined, report.error);
  assert.deepEqual(errors, []);
  assert.deepEqual(report.cases, hostileCases(api));
  assert.deepEqual(report.retained, []);
});

test("Chromium made no request outside 127.0.0.1", () => {
  assert.deepEqual(chromium.blocked, []);
});
