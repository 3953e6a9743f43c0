// Headless Chromium (Debian's /usr/bin/chromium, driven by npm playwright-core) on pages served
// from 127.0.0.1. The page imports the package by name through an import map that points at the
// package's `browser` entry (resolved from its exports map), and runs the scenario corpus.
// Chromium is kept off the network by SETUP.md's flags (its host resolver maps every name except
// 127.0.0.1 to nothing) and by a request filter that aborts and records any request to another origin.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { chromium } from "playwright-core";
import { binary, loadCorpus, manifestOf, resolveExport, root } from "./support.mjs";

/** The conditions browser bundlers and import maps use. */
export const BROWSER_CONDITIONS = ["browser", "import", "default"];

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
};

/** A file below `dir` named by the URL path `rel`, or null (no escaping `dir`). */
function fileIn(dir, rel) {
  const file = path.resolve(dir, `.${path.posix.normalize(`/${rel}`)}`);
  if (!file.startsWith(dir + path.sep)) return null;
  return fs.existsSync(file) && fs.statSync(file).isFile() ? file : null;
}

/**
 * Serves, on 127.0.0.1: `/` the test page (an import map for `tool-loop-guard` and
 * `tool-loop-guard/inline`, then tests/js/runtimes/browser-page.mjs), `/pkg/...` the package
 * directory, `/tests/js/...` the runner modules, `/scenarios.json` the corpus.
 * Returns {origin, entries, close()}.
 */
export async function startPageServer(pkgDir) {
  const manifest = manifestOf(pkgDir);
  const entries = {
    [manifest.name]: resolveExport(manifest, ".", BROWSER_CONDITIONS),
    [`${manifest.name}/inline`]: resolveExport(manifest, "./inline", BROWSER_CONDITIONS),
  };
  const importMap = { imports: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, `/pkg/${path.posix.normalize(v)}`])) };
  const page = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>tool-loop-guard in the browser</title>
<script type="importmap">${JSON.stringify(importMap)}</script>
<script type="module" src="/tests/js/runtimes/browser-page.mjs"></script>
<p>Runs the scenario corpus through tool-loop-guard; the result is in window.__report.</p>
</html>
`;
  const corpus = JSON.stringify(loadCorpus());
  const testsDir = path.join(root, "tests", "js");
  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, "http://127.0.0.1");
    const send = (status, type, body) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(body);
    };
    if (pathname === "/") return send(200, TYPES[".html"], page);
    if (pathname === "/scenarios.json") return send(200, TYPES[".json"], corpus);
    let file = null;
    if (pathname.startsWith("/pkg/")) file = fileIn(pkgDir, pathname.slice(5));
    else if (pathname.startsWith("/tests/js/") && pathname.endsWith(".mjs")) file = fileIn(testsDir, pathname.slice(10));
    if (file === null) return send(404, "text/plain; charset=utf-8", "not found");
    return send(200, TYPES[path.extname(file)] ?? "application/octet-stream", fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    entries,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Launches Chromium with a context whose requests may only go to `origin`. Returns {browser,
 * version, open(url) -> {report, errors}, blocked: [urls], close()}.
 */
export async function launchChromium(origin) {
  const browser = await chromium.launch({
    executablePath: binary("chromium"),
    headless: true,
    args: CHROMIUM_FLAGS,
    timeout: 60_000,
  });
  const blocked = [];
  let context;
  try {
    context = await browser.newContext();
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      blocked.push(url);
      return route.abort("blockedbyclient");
    });
  } catch (error) {
    await browser.close();
    throw error;
  }
  return {
    version: browser.version(),
    blocked,
    /** The browser context (its requests filtered as above), for pages driven by hand. */
    context,
    /** Loads `url`, waits for window.__report, returns it with the page's errors. */
    async open(url, timeoutMs = 60_000) {
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
      page.on("console", (message) => message.type() === "error" && errors.push(`console: ${message.text()}`));
      try {
        await page.goto(url);
        await page.waitForFunction(() => window.__report !== undefined, null, { timeout: timeoutMs });
        return { report: await page.evaluate(() => window.__report), errors };
      } finally {
        await page.close();
      }
    },
    close: () => browser.close(),
  };
}
