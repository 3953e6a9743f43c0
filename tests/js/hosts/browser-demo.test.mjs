// examples/browser-demo in headless Chromium (Debian's, driven by playwright-core), served by its
// own serve.mjs on 127.0.0.1 and kept off every other address (browser.mjs: resolver rules and a
// request filter). The page loads the package's browser entry through its import map; each
// scripted agent, played to the end with each preset, shows the verdicts of the same replay
// in-process (so the incident is refused at the same call), and the refusal text the model gets.
// A screenshot of the incident under the strict preset is saved to build/test-artifacts/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { BROWSER_CONDITIONS, launchChromium } from "../runtimes/browser.mjs";
import { manifestOf, offlineEnv, pkgDir, resolveExport, root, startProcess } from "../runtimes/support.mjs";
import { callsOf, firstRefusal, loadTrace, replayInProcess } from "./trace.mjs";

const demoDir = path.join(root, "examples", "browser-demo");
const artifacts = path.join(root, "build", "test-artifacts");
const AGENTS = ["01-update-task-incident.json", "02-polling-with-progress.json", "04-ping-pong.json", "05-edit-test-session.json"];
let server;
let origin;
let chromium;
let page;
const errors = [];

before(async () => {
  server = startProcess(process.execPath, [path.join(demoDir, "serve.mjs")], { env: offlineEnv({ PORT: "0" }) });
  const deadline = Date.now() + 20_000;
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

/** Plays the selected agent with `preset` (policy enforce) to the end; the rows' verdicts and the summary. */
async function playToEnd(agent, preset) {
  await page.selectOption("#agent", agent);
  await page.selectOption("#preset", preset);
  await page.selectOption("#policy", "enforce");
  await page.click("#reset");
  await page.click("#run-all");
  return page.evaluate(() => ({
    rows: [...document.querySelectorAll("#timeline tbody tr")].map((tr) => ({ n: Number(tr.dataset.n), check: tr.dataset.check, record: tr.dataset.record ?? "" })),
    refusedAt: document.getElementById("summary").dataset.refusedAt,
    run: Number(document.getElementById("summary").dataset.run),
  }));
}

/** The rows the page should show for `steps` (an in-process replay) of a script of `total` calls. */
function expectedRows(steps, total) {
  const rows = steps.map((s) => ({ n: s.n, check: s.check.action, record: s.record?.action ?? "" }));
  for (let n = steps.length + 1; n <= total; n++) rows.push({ n, check: "", record: "" });
  return rows;
}

test("the page's import map loads the package's browser entry (exports map, `browser` condition)", () => {
  const html = fs.readFileSync(path.join(demoDir, "index.html"), "utf8");
  const importMap = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)[1]);
  const entry = resolveExport(manifestOf(pkgDir), ".", BROWSER_CONDITIONS);
  assert.equal(importMap.imports["tool-loop-guard"], `./vendor/tool-loop-guard/${path.posix.normalize(entry)}`);
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
      const shown = await playToEnd(agent, preset);
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
  await playToEnd("01-update-task-incident.json", "strict");
  await page.click(`#timeline tbody tr[data-n="${refusedAt}"]`);
  assert.equal(await page.getAttribute(".message", "data-kind"), "refusal");
  assert.equal(await page.textContent("#message"), JSON.stringify(expected[refusedAt - 1].check.refusal, null, 2));
  fs.mkdirSync(artifacts, { recursive: true });
  const file = path.join(artifacts, "browser-demo.png");
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width: 1100, height: 1080 } });
  t.diagnostic(`screenshot: ${path.relative(root, file)} (${fs.statSync(file).size} bytes)`);
});

test("no page error, and no request left 127.0.0.1", () => {
  assert.deepEqual(errors, []);
  assert.deepEqual(chromium.blocked, []);
});
