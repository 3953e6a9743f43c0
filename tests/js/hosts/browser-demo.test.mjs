// examples/browser-demo in headless Chromium (Debian's, driven by playwright-core), served by its
// own serve.mjs on 127.0.0.1 and kept off every other address (browser.mjs: resolver rules and a
// request filter). The page loads the package's browser entry and its replay engine through its
// import map; each scripted agent, played to the end with each preset, shows the verdicts of the
// same run replayed in-process by a plain host loop (so the incident is refused at the same call)
// and the refusal text the model gets; traces pasted in other formats (OpenAI Chat, this project's
// JSONL with two runs) are read by the package's readers and show the in-process engine's
// timeline; unreadable text is reported. A screenshot of the incident under the strict preset is
// saved to build/test-artifacts/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { readTrajectories, replayTrajectory } from "tool-loop-guard/replay";
import { BROWSER_CONDITIONS, launchChromium } from "../runtimes/browser.mjs";
import { manifestOf, offlineEnv, pkgDir, resolveExport, root, startProcess } from "../runtimes/support.mjs";
import { callsOf, firstRefusal, loadTrace, replayInProcess } from "./trace.mjs";

const demoDir = path.join(root, "examples", "browser-demo");
const samplesDir = path.join(root, "tests", "replay", "samples");
const artifacts = path.join(root, "build", "test-artifacts");
const AGENTS = ["01-update-task-incident.json", "02-polling-with-progress.json", "04-ping-pong.json", "05-edit-test-session.json"];
let server;
let origin;
let chromium;
let page;
const errors = [];

before(async () => {
  server = startProcess(process.execPath, [path.join(demoDir, "serve.mjs")], { env: offlineEnv({ PORT: "0" }) });
  const deadline = Date.now() + 90_000;
  let match;
  while ((match = /serving (http:\/\/[^/\s]+)\//.exec(server.output())) === null) {
    if (server.exitStatus() !== undefined || Date.now() > deadline) assert.fail(`serve.mjs did not start:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  origin = match[1];
  chromium = await launchChromium(origin);
  page = await chromium.context.newPage();
  await page.setViewportSize({ width: 1100, height: 900 });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => message.type() === "error" && errors.push(`console: ${message.text()}`));
});

after(async () => {
  await chromium?.close();
  await server?.stop();
});

/** The timeline the page shows: each row's call number and verdict actions, the summary's figures. */
function shownTimeline() {
  return page.evaluate(() => ({
    rows: [...document.querySelectorAll("#timeline tbody tr[data-n]")].map((tr) => ({ n: Number(tr.dataset.n), check: tr.dataset.check, record: tr.dataset.record ?? "" })),
    refusedAt: document.getElementById("summary").dataset.refusedAt,
    run: Number(document.getElementById("summary").dataset.run),
  }));
}

/** Sets the preset (policy enforce), plays the loaded run to the end, and reads the timeline. */
async function playToEnd(preset) {
  await page.selectOption("#preset", preset);
  await page.selectOption("#policy", "enforce");
  await page.click("#reset");
  await page.click("#run-all");
  return shownTimeline();
}

/** The rows for `steps` ([{n, check, record?}] of an in-process replay) of a run of `total` calls. */
function expectedRows(steps, total) {
  const rows = steps.map((s) => ({ n: s.n, check: s.check.action, record: s.record?.action ?? "" }));
  for (let n = steps.length + 1; n <= total; n++) rows.push({ n, check: "", record: "" });
  return rows;
}

/** The same rows from the replay engine's report of a run, in this process. */
function engineRows(run, preset) {
  const guard = new LoopGuard({ preset, policy: "enforce" });
  const report = replayTrajectory(guard, run, { guardRunId: "demo" });
  guard.free();
  const steps = report.timeline.filter((row) => !("event" in row)).map((row) => ({ n: row.index, check: row.check, record: row.record ?? undefined }));
  return { rows: expectedRows(steps, report.summary.calls), refusedAt: report.summary.firstRefusal };
}

/** Pastes `text` into the page and replays it. */
async function paste(text) {
  await page.evaluate(() => (document.getElementById("paste").open = true));
  await page.fill("#paste-text", text);
  await page.click("#paste-replay");
}

test("the page's import map loads the package's browser entry (exports map, `browser` condition)", () => {
  const html = fs.readFileSync(path.join(demoDir, "index.html"), "utf8");
  const importMap = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)[1]);
  for (const subpath of [".", "./replay"]) {
    const entry = resolveExport(manifestOf(pkgDir), subpath, BROWSER_CONDITIONS);
    const name = subpath === "." ? "tool-loop-guard" : `tool-loop-guard/${subpath.slice(2)}`;
    assert.equal(importMap.imports[name], `./vendor/tool-loop-guard/${path.posix.normalize(entry)}`);
  }
});

test("the demo loads with no network beyond its own server and no error", async (t) => {
  await page.goto(`${origin}/`);
  await page.waitForSelector("body[data-ready]");
  assert.equal(await page.getAttribute("body", "data-ready"), "true", await page.textContent("#about"));
  t.diagnostic(`Chromium ${chromium.version}`);
});

for (const agent of AGENTS) {
  for (const preset of ["default", "strict"]) {
    test(`${agent}, preset ${preset}: every call shows the in-process verdicts`, async (t) => {
      const trace = loadTrace(agent);
      const expected = await replayInProcess(callsOf(trace, "demo"), { preset, policy: "enforce" });
      await page.selectOption("#agent", agent);
      const shown = await playToEnd(preset);
      assert.deepEqual(shown.rows, expectedRows(expected, trace.calls.length));
      assert.equal(shown.refusedAt, String(firstRefusal(expected) ?? ""));
      t.diagnostic(`first refusal: ${firstRefusal(expected) ?? "none"}; tools run ${shown.run} of ${trace.calls.length}`);
    });
  }
}

test("the incident's refusal is shown as the model receives it; screenshot saved", async (t) => {
  const trace = loadTrace("01-update-task-incident.json");
  const expected = await replayInProcess(callsOf(trace, "demo"), { preset: "strict", policy: "enforce" });
  const refusedAt = firstRefusal(expected);
  await page.selectOption("#agent", "01-update-task-incident.json");
  await playToEnd("strict");
  await page.click(`#timeline tbody tr[data-n="${refusedAt}"]`);
  assert.equal(await page.getAttribute(".message", "data-kind"), "refusal");
  assert.equal(await page.textContent("#message"), JSON.stringify(expected[refusedAt - 1].check.refusal, null, 2));
  fs.mkdirSync(artifacts, { recursive: true });
  const file = path.join(artifacts, "browser-demo.png");
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width: 1100, height: 1080 } });
  t.diagnostic(`screenshot: ${path.relative(root, file)} (${fs.statSync(file).size} bytes)`);
});

test("a pasted OpenAI Chat trace is read by the package's readers and replays as in-process", async (t) => {
  const text = fs.readFileSync(path.join(samplesDir, "openai-chat.json"), "utf8");
  const [run] = readTrajectories(text, { name: "pasted" });
  await paste(text);
  assert.match(await page.textContent("#paste-status"), /read 1 run as openai-chat/);
  for (const preset of ["default", "strict"]) {
    const expected = engineRows(run, preset);
    assert.deepEqual((await playToEnd(preset)).rows, expected.rows, `preset ${preset}`);
  }
  t.diagnostic(`${run.steps.length} steps of ${run.format}`);
});

test("a pasted JSONL trace with two runs: each replays as in-process, the looping one refused at the same call", async (t) => {
  const text = fs.readFileSync(path.join(samplesDir, "gateway.jsonl"), "utf8");
  const runs = readTrajectories(text, { name: "pasted" });
  await paste(text);
  assert.equal(await page.isVisible("#paste-run"), true, "a run selector for several runs");
  const refusals = [];
  for (const [i, run] of runs.entries()) {
    await page.selectOption("#paste-run", String(i));
    const expected = engineRows(run, "strict");
    const shown = await playToEnd("strict");
    assert.deepEqual(shown.rows, expected.rows, run.runId);
    assert.equal(shown.refusedAt, String(expected.refusedAt ?? ""));
    refusals.push(`${run.runId}: ${expected.refusedAt ?? "none"}`);
  }
  assert.ok(refusals.some((r) => !r.endsWith("none")), "one of the runs is refused");
  t.diagnostic(`first refusals (strict): ${refusals.join(", ")}`);
});

test("unreadable pasted text is reported and the loaded run stays", async () => {
  const before = await shownTimeline();
  await paste("{ this is not a trace");
  assert.equal(await page.getAttribute("#paste-status", "class"), "error");
  assert.match(await page.textContent("#paste-status"), /pasted/);
  assert.deepEqual(await shownTimeline(), before);
});

test("no page error, and no request left 127.0.0.1", () => {
  assert.deepEqual(errors, []);
  assert.deepEqual(chromium.blocked, []);
});
