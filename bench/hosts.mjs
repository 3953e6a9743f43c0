// `npm run bench` (second part; `npm run bench:hosts` alone): what the example hosts pay to keep a
// run's state outside the process. In-process (Node, the package's Node entry): the snapshot size
// of a full window and the cost per tool call of restore + check + record + persist against a warm
// guard. End to end on 127.0.0.1: a tool call (POST /check + POST /record) through
// examples/cloudflare-worker in workerd (Durable Object storage on local disk) and through
// examples/node-gateway over Redis (AOF with `appendfsync always`, then `everysec`), beside a bare
// node:http round trip. Figures only: nothing is asserted. Needs pkg/ (`npm run build`) and the
// setup (workerd, redis-server).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { bearer } from "../tests/js/hosts/callers.mjs";
import { startGateway } from "../tests/js/hosts/gateway-host.mjs";
import { startRedis } from "../tests/js/hosts/redis.mjs";
import { workerHost } from "../tests/js/hosts/worker-host.mjs";
import { startProcess } from "../tests/js/runtimes/support.mjs";
import { bytes, duration, printTable } from "./format.mjs";
import { loadPackage } from "./package-handles.mjs";
import { median } from "./timing.mjs";
import { incident, smallMixed } from "./workloads.mjs";

const HISTORY_SIZE = 30;
const IN_PROCESS_CALLS = 4000;
const IN_PROCESS_ROUNDS = 11;
const HTTP_WARMUP_CALLS = 30;
const HTTP_CALLS = 150;
const HTTP_RUNS = 2;
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

function log(message) {
  process.stderr.write(`[bench:hosts] ${message}\n`);
}

const { LoopGuard } = await loadPackage();

/** The mixed workload's steps, all in one run. */
function mixedRun(steps, runId) {
  return smallMixed(steps).map(({ call, outcome }) => ({ call: { ...call, runId }, outcome: { ...outcome, runId } }));
}

/** Bytes of exportRun after `steps` (check, then record unless refused) in a guard of historySize 30. */
function snapshotSize(steps) {
  const guard = new LoopGuard({ historySize: HISTORY_SIZE });
  for (const { call, outcome } of steps) {
    const verdict = guard.check(call);
    if (verdict.action !== "block" && verdict.action !== "stop") guard.record(outcome);
  }
  const size = guard.exportRun(steps[0].call.runId).length;
  guard.free();
  return size;
}

/**
 * ns per tool call over `steps` (one run, its window full after a warm-up) when the state stays in
 * the guard (`warm`), when it is exported after each record and each check that does not simply
 * allow (a Durable Object: `persistRecord`),
 * and when every request restores it first and exports it after (the Redis gateway: `stateless`).
 */
function inProcessCosts(steps) {
  const runId = steps[0].call.runId;
  const models = {
    warm: (guard, { call, outcome }) => {
      if (refused(guard.check(call))) return;
      guard.record(outcome);
    },
    persistRecord: (guard, { call, outcome }) => {
      const verdict = guard.check(call);
      if (verdict.action !== "allow") guard.exportRun(runId);
      if (refused(verdict)) return;
      guard.record(outcome);
      guard.exportRun(runId);
    },
    stateless: (guard, step, state) => {
      const request = (op) => {
        guard.importRun(state.snap);
        const verdict = op();
        state.snap = guard.exportRun(runId);
        guard.endRun(runId);
        return verdict;
      };
      if (refused(request(() => guard.check(step.call)))) return;
      request(() => guard.record(step.outcome));
    },
  };
  const samples = Object.fromEntries(Object.keys(models).map((name) => [name, []]));
  for (let round = 0; round < IN_PROCESS_ROUNDS; round++) {
    for (const [name, model] of Object.entries(models)) {
      const guard = new LoopGuard({ historySize: HISTORY_SIZE });
      const state = {};
      for (const step of steps.slice(0, HISTORY_SIZE)) models.warm(guard, step);
      state.snap = guard.exportRun(runId);
      const timed = steps.slice(HISTORY_SIZE);
      const start = performance.now();
      for (const step of timed) model(guard, step, state);
      samples[name].push(((performance.now() - start) * 1e6) / timed.length);
      guard.free();
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

const refused = (verdict) => verdict.action === "block" || verdict.action === "stop";

/** POSTs JSON to `url`; the parsed answer (a non-200 answer throws). */
async function post(url, body) {
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...bearer() } });
  const answer = await response.json();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** CPU time (ms, user + system) a process has used so far, from /proc (Linux). */
function cpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/**
 * A tool call (check, then record unless refused) against `base`, sequentially: after one warm-up
 * run, HTTP_RUNS runs of HTTP_CALLS mixed calls. Returns the median and 90th percentile wall time
 * (ms) and the CPU time the server processes `pids` used per call (ms): unlike wall time on a
 * shared machine, that does not grow with other people's load.
 */
async function httpCallCosts(base, pids) {
  const drive = async (runId, calls, samples) => {
    for (const { call, outcome } of mixedRun(calls, runId)) {
      const start = performance.now();
      if (!refused(await post(`${base}/check`, call))) await post(`${base}/record`, outcome);
      samples?.push(performance.now() - start);
    }
  };
  const tag = Date.now();
  await drive(`warm-up-${tag}`, HTTP_WARMUP_CALLS);
  const samples = [];
  const cpuBefore = pids.map(cpuMs);
  for (let r = 0; r < HTTP_RUNS; r++) await drive(`bench-${r}-${tag}`, HTTP_CALLS, samples);
  const cpu = pids.reduce((sum, pid, i) => sum + cpuMs(pid) - cpuBefore[i], 0);
  samples.sort((a, b) => a - b);
  return { median: median(samples), p90: samples[Math.floor(samples.length * 0.9)], cpu: cpu / samples.length, calls: samples.length };
}

/** A node:http server in its own process answering every POST with a verdict-sized JSON body: the HTTP floor. */
async function echoServer() {
  const body = JSON.stringify({ action: "allow", level: "ok", detector: null, count: 0, threshold: null, tool: "read_file", runId: "r", message: null });
  const code = `const s = require("node:http").createServer((q, r) => { q.resume(); q.on("end", () => r.writeHead(200, { "content-type": "application/json" }).end(${JSON.stringify(body)})); });
s.listen(0, "127.0.0.1", () => console.log("port " + s.address().port));`;
  const proc = startProcess(process.execPath, ["-e", code]);
  while (!/port \d+/.test(proc.output())) {
    if (proc.exitStatus() !== undefined) throw new Error(`the echo server exited: ${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { url: `http://127.0.0.1:${/port (\d+)/.exec(proc.output())[1]}`, pid: () => proc.child.pid, stop: proc.stop };
}

/**
 * Starts a host (`start()` -> {url, pids, stop()}), times tool calls against it, stops it, and
 * adds its row: wall time per call, and the CPU its `processes` spent per call.
 */
async function hostRow(label, processes, start) {
  log(label);
  const host = await start();
  try {
    const cost = await httpCallCosts(host.url, host.pids);
    rows.push([label, `${ms(cost.median)} (p90 ${ms(cost.p90)}); CPU ${ms(cost.cpu)} (${processes})`, `per tool call, ${cost.calls} calls over ${HTTP_RUNS} runs`]);
  } finally {
    await host.stop();
  }
}

const ms = (value) => `${value.toFixed(2)} ms`;
const rows = [];

log("snapshot sizes");
const incidentRun = incident(31).map(({ call, outcome }) => ({ call: { ...call, runId: "incident" }, outcome: { ...outcome, runId: "incident" } }));
const mixed = mixedRun(IN_PROCESS_CALLS, "mixed");
rows.push(["snapshot of a full window (historySize 30): update_task incident, 1 tool", bytes(snapshotSize(incidentRun)), "exportRun().length"]);
rows.push(["snapshot of a full window (historySize 30): mixed run, 8 tools", bytes(snapshotSize(mixed.slice(0, 200))), "exportRun().length"]);

log(`in-process: ${IN_PROCESS_CALLS} mixed calls × ${IN_PROCESS_ROUNDS} interleaved rounds × 3 models`);
const costs = inProcessCosts(mixed);
rows.push(["in-process, state kept in the guard: check + record", duration(costs.warm), `per tool call, median of ${IN_PROCESS_ROUNDS} interleaved rounds`]);
rows.push([
  "in-process, Durable Object: check + record + exportRun",
  `${duration(costs.persistRecord)} (+${duration(costs.persistRecord - costs.warm)})`,
  "per tool call; importRun once per object start",
]);
rows.push([
  "in-process, Redis gateway: (importRun + op + exportRun) × 2",
  `${duration(costs.stateless)} (+${duration(costs.stateless - costs.warm)})`,
  "per tool call: check and record each restore and persist",
]);

await hostRow("bare node:http, no guard (HTTP floor)", "server", async () => {
  const echo = await echoServer();
  return { url: echo.url, pids: [echo.pid()], stop: echo.stop };
});
await hostRow("Worker + Durable Object (workerd, SQLite on local disk)", "workerd", async () => {
  const worker = await workerHost();
  return { url: worker.url, pids: [worker.pid()], stop: worker.stop };
});
for (const appendfsync of ["always", "everysec"]) {
  await hostRow(`Node gateway + Redis (AOF, appendfsync ${appendfsync}, disk)`, "gateway + redis-server", async () => {
    const redis = await startRedis({ under: os.tmpdir(), appendfsync });
    const gateway = await startGateway({ redisUrl: redis.url, config: { historySize: HISTORY_SIZE } });
    return { url: gateway.url, pids: [gateway.pid(), redis.pid()], stop: async () => (await gateway.stop(), await redis.stop()) };
  });
}

const cpu = os.cpus();
console.log(`\ntool-loop-guard hosts bench: Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? "?"}, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}, ${new Date().toISOString()}`);
console.log(`a tool call = POST /check + POST /record (HTTP: sequential, one agent loop, keep-alive, after ${HTTP_WARMUP_CALLS} warm-up calls); CPU = the server processes' user + system time per call\n`);
printTable(["host cost", "measured", "what"], rows);
