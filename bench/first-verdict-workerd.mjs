// Row (k) in workerd (Cloudflare Workers' runtime, the build npm `workerd` pins): what a cold
// Worker isolate pays before its first answer, as JSON. Run by bench/run.mjs; alone:
//   node bench/first-verdict-workerd.mjs [workerd processes, default 8]
//
// What a cold isolate pays, in two parts:
// - At isolate start, before any request: workerd reads the Worker's modules and compiles the
//   `.wasm` module declared in them (a Worker cannot compile wasm from bytes at run time, so the
//   package's workerd entry imports the compiled module); a Worker that imports the package
//   statically also evaluates its modules then. Measured as `startupMs`: the time from starting
//   workerd to its sockets answering, with Workers that carry the package against Workers that do
//   not (interleaved, one process each).
// - In the first request: evaluating the package's modules (here imported dynamically, so that the
//   request holds it and it can be timed), instantiating the `.wasm` on the first `new
//   LoopGuard()` (V8 then compiles each wasm function lazily on its first call, as in Node), the
//   first check and the first record. Measured inside the Worker (`inside`) and from outside as
//   the first request's latency minus the median latency of the same request repeated on the now
//   warm isolate (`coldMinusWarmMs`; both over HTTP on 127.0.0.1, whose cost cancels).
//
// Each Worker is its own workerd service, so its own isolate, and each workerd process serves two:
// `first` is the first isolate of its process to run the package, the cold start proper;
// `sameProcess` is the second, whose wasm functions V8 finds already compiled (its native module
// cache shares compiled code between isolates of a process that load the same `.wasm` bytes), so
// it pays little more than instantiating and running.
//
// Timers: in production Workers `performance.now()` and `Date.now()` advance only across I/O
// (a Spectre mitigation), so a Worker cannot time its own CPU work. This local workerd (same build)
// does advance them during a request, in whole milliseconds (`performance.now()` is `Date.now()`,
// `timeOrigin` 0); they stand still while the top level of a module is evaluated. So `inside`
// figures are whole-ms readings (each step ± 1 ms) and the outside difference is the finer one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { binary, freePorts, pkgDir, startProcess } from "../tests/js/runtimes/support.mjs";
import { COMPATIBILITY_DATE, packageModules } from "../tests/js/runtimes/workerd.mjs";
import { requireBuiltPackage } from "./package-handles.mjs";
import { median } from "./timing.mjs";

const PROCESSES = Number(process.argv[2] ?? 8);
/** Workers (isolates) per workerd process: the first cold, the second sharing its compiled code. */
const ISOLATES = 2;
/** Requests repeated on each isolate once it is warm: their median latency is subtracted. */
const WARM_REQUESTS = 3;

// The Worker: GET /ready answers without touching the package; GET /first imports it, constructs
// a guard, checks and records the same small call as bench/first-verdict.mjs, and returns the
// whole-ms readings of each step.
const WORKER = `
export default {
  async fetch(request) {
    if (new URL(request.url).pathname !== "/first") return new Response("ready");
    const t0 = performance.now();
    const { LoopGuard } = await import("tool-loop-guard");
    const t1 = performance.now();
    const guard = new LoopGuard();
    const t2 = performance.now();
    const call = { runId: "first", tool: "read_file", args: { path: "src/main.ts" }, callId: "c1" };
    const checked = guard.check(call);
    const recorded = guard.record({ ...call, result: "export const main = () => 1;\\n" });
    const t3 = performance.now();
    guard.free();
    return Response.json({
      verdicts: [checked.action, recorded.action],
      importMs: t1 - t0, constructMs: t2 - t1, firstCallMs: t3 - t2, totalMs: t3 - t0,
    });
  },
};
`;

/** Starts workerd with `count` Workers (with the package's modules or not); resolves when all answer. */
async function startWorkers(count, withPackage) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-first-verdict-"));
  const ports = await freePorts(count);
  const { modules } = withPackage ? packageModules(pkgDir) : { modules: [] };
  const embedded = modules.map((m, i) => {
    if (m.text !== undefined) return `(name = ${JSON.stringify(m.name)}, esModule = ${JSON.stringify(m.text)})`;
    const local = `m${i}-${path.basename(m.file)}`;
    fs.copyFileSync(m.file, path.join(dir, local));
    return `(name = ${JSON.stringify(m.name)}, ${m.type} = embed ${JSON.stringify(local)})`;
  });
  const main = `(name = "worker.mjs", esModule = ${JSON.stringify(WORKER)})`;
  const services = ['(name = "offline", network = (allow = []))'];
  const sockets = [];
  ports.forEach((port, w) => {
    services.push(`(name = "w${w}", worker = (modules = [${[main, ...embedded].join(", ")}], compatibilityDate = "${COMPATIBILITY_DATE}", globalOutbound = "offline"))`);
    sockets.push(`(name = "s${w}", address = "127.0.0.1:${port}", http = (), service = "w${w}")`);
  });
  fs.writeFileSync(
    path.join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";\nconst config :Workerd.Config = (services = [${services.join(", ")}], sockets = [${sockets.join(", ")}]);\n`,
  );
  const started = performance.now();
  const proc = startProcess(binary("workerd"), ["serve", "config.capnp"], { cwd: dir });
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  for (const url of urls) await waitReady(url, proc);
  const startupMs = performance.now() - started;
  return {
    urls,
    startupMs,
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls GET /ready (which leaves the package untouched) until it answers. */
async function waitReady(url, proc) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitStatus() !== undefined) throw new Error(`workerd exited (${proc.exitStatus()}):\n${proc.output()}`);
    try {
      await (await fetch(`${url}/ready`)).text();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} did not answer: ${error}\n${proc.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** GET `url`: {ms: latency seen from here, body}. */
async function timedGet(url) {
  const started = performance.now();
  const response = await fetch(url);
  const body = await response.json();
  return { ms: performance.now() - started, body };
}

requireBuiltPackage();
const samples = { first: [], sameProcess: [] };
const startups = { with: [], without: [] };
for (let p = 0; p < PROCESSES; p++) {
  const bare = await startWorkers(ISOLATES, false);
  startups.without.push(bare.startupMs);
  await bare.stop();
  const workers = await startWorkers(ISOLATES, true);
  startups.with.push(workers.startupMs);
  try {
    for (const [i, url] of workers.urls.entries()) {
      await fetch(`${url}/ready`).then((r) => r.text()); // the connection and the Worker's own module are warm
      const cold = await timedGet(`${url}/first`);
      const warm = [];
      for (let r = 0; r < WARM_REQUESTS; r++) warm.push((await timedGet(`${url}/first`)).ms);
      if (cold.body.verdicts?.join() !== "allow,allow") throw new Error(`unexpected answer: ${JSON.stringify(cold.body)}`);
      (i === 0 ? samples.first : samples.sameProcess).push({ inside: cold.body, coldMinusWarmMs: cold.ms - median(warm) });
    }
  } finally {
    await workers.stop();
  }
}

/** Medians (and the range of the totals) of one kind of sample. */
function summary(kind) {
  const mid = (pick) => median(kind.map(pick));
  const totals = kind.map((s) => s.inside.totalMs);
  return {
    inside: {
      importMs: mid((s) => s.inside.importMs),
      constructMs: mid((s) => s.inside.constructMs),
      firstCallMs: mid((s) => s.inside.firstCallMs),
      totalMs: mid((s) => s.inside.totalMs),
      totalRangeMs: [Math.min(...totals), Math.max(...totals)],
    },
    coldMinusWarmMs: mid((s) => s.coldMinusWarmMs),
  };
}

process.stdout.write(
  JSON.stringify({
    processes: PROCESSES,
    first: summary(samples.first),
    sameProcess: summary(samples.sameProcess),
    startupMs: median(startups.with) - median(startups.without),
  }),
);
