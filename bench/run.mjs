// `npm run bench`: times the built package (../pkg, Node entry) against the plain-TypeScript
// baseline guard (bench/baseline, compiled here into bench/out) in one process, and prints every
// row of issue 6's targets table with the measured figure. Figures only: nothing is asserted.
// `node bench/run.mjs --check` instead checks the baseline against the package (see check.mjs).
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { printCheck } from "./check.mjs";
import { bytes, duration, met, printTable, ratio } from "./format.mjs";
import { WASM_GZIP_BUDGET } from "../scripts/wasm-budget.mjs";
import { designFloor, handOverSide, refusedSteps } from "./floor.mjs";
import { jsonFormSide } from "./forms.mjs";
import { nativeSha256Ns } from "./hashing.mjs";
import { loadPackage, WASM_FILE } from "./package-handles.mjs";
import { compareSides, median } from "./timing.mjs";
import { largeText, smallMixed, stuckLoop } from "./workloads.mjs";
import { floorSide, loadRealWorkloads, presetSides, timeRealWorkloads, workloadLabel } from "./real.mjs";
import { costByHistorySize, errorAgainstResult, HISTORY_SIZES, longRuns } from "./window.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = 5;
const REAL_ROUNDS = 5;
const INSTANTIATE_SAMPLES = 11;
const KB = 1024;
const MB = 1024 * 1024;

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Compiles bench/baseline with the workspace's TypeScript and imports it. */
async function loadBaseline() {
  const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", path.join(here, "baseline", "tsconfig.json")], { stdio: "inherit" });
  if (result.status !== 0) throw new Error("compiling bench/baseline failed");
  return (await import("./out/baseline/guard.js")).BaselineGuard;
}

/** Runs a bench/*.mjs script in a fresh Node process and parses the JSON it prints. */
function child(script, ...args) {
  const result = spawnSync(process.execPath, [path.join(here, script), ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (result.status !== 0) throw new Error(`${script} exited with status ${result.status}`);
  return JSON.parse(result.stdout);
}

const handles = await loadPackage();
const { LoopGuard, coreVersion } = handles;
const BaselineGuard = await loadBaseline();
const sides = [
  { name: "package", create: () => new LoopGuard(), dispose: (guard) => guard.free() },
  { name: "baseline", create: () => new BaselineGuard(), dispose: () => {} },
];

if (process.argv.includes("--check")) {
  printCheck(sides);
  process.exit(0);
}

/**
 * The real-records table: per workload, µs per call of both presets, of the wrapper's hand-over
 * alone (the default preset's steps handed to a core that answers at once: the part of a call the
 * core's speed cannot change) and of the hash-once floor, and how many times the floor each preset
 * costs.
 */
async function printRealRecords() {
  const workloads = loadRealWorkloads();
  const { sha256Hex } = await import(new URL("../pkg/entries/node-crypto.js", import.meta.url).href);
  const largeTexts = { hash: sha256Hex, above: handles.glue.maxScannedTextBytes() };
  const handOvers = new Map();
  for (const workload of workloads) handOvers.set(workload, await handOverSide(handles.glue, refusedSteps(LoopGuard, workload.pass), largeTexts));
  const timed = timeRealWorkloads(workloads, (workload) => [...presetSides(LoopGuard), handOvers.get(workload), floorSide(workload)], REAL_ROUNDS, log);
  const us = (ns) => (ns / 1000).toFixed(2);
  const realRows = timed.map(({ workload, ns }) => [
    workloadLabel(workload),
    us(ns.default),
    us(ns.openclaw),
    us(ns["hand-over"]),
    us(ns.floor),
    ratio(ns.default / ns.floor),
    ratio(ns.openclaw / ns.floor),
  ]);
  console.log(`real records (bench/real, bench/real/SOURCES.md): µs per call (check + record), median of ${REAL_ROUNDS} interleaved rounds; hand-over = the wrapper alone, to a core that answers at once; floor = SHA-256 of the record's bytes once (${typeof crypto.hash === "function" ? "crypto.hash" : "createHash"})\n`);
  printTable(["workload (mean record, calls)", "default", "preset openclaw", "hand-over", "floor", "default / floor", "openclaw / floor"], realRows);
  console.log("");
  for (const { workload, tally } of timed) console.log(`${workload.id}: verdicts default ${JSON.stringify(tally.default)}; openclaw ${JSON.stringify(tally.openclaw)}`);
}

if (process.argv.includes("--real")) {
  console.log(`tool-loop-guard bench (real records only): Node ${process.version}, core ${coreVersion()}\n`);
  await printRealRecords();
  process.exit(0);
}

const rows = [];
const details = [];

/**
 * A speed row: package vs baseline on `steps`, `target` = the minimum speed-up. With `withFloor`
 * the design's floor (see floor.mjs) is timed alongside, and the row shows it and the speed-up it
 * would allow. With `withJsonForm` the JSON form alone (see forms.mjs) is timed alongside too, for
 * a detail line.
 */
async function speedRow(label, steps, target, { withFloor = false, withJsonForm = false } = {}) {
  const floor = withFloor ? await designFloor(handles, steps) : undefined;
  const jsonForm = withJsonForm ? await jsonFormSide(handles.glue) : undefined;
  const timed = [...sides, ...(floor === undefined ? [] : [floor.side]), ...(jsonForm === undefined ? [] : [jsonForm])];
  log(`${label}: ${steps.length} steps × (1 warm-up + ${ROUNDS} rounds) per side`);
  const result = compareSides(timed, steps, ROUNDS);
  const { package: pkg, baseline: base } = result;
  const speedup = base.ns / pkg.ns;
  const floorNs = floor === undefined ? undefined : result[floor.side.name].ns + floor.shaNs;
  const floorCell = floorNs === undefined ? "" : `; floor ${duration(floorNs)}, at most ${ratio(base.ns / floorNs)}`;
  rows.push([label, `${ratio(speedup)} (package ${duration(pkg.ns)}, baseline ${duration(base.ns)}${floorCell})`, `≥ ${target}× faster`, met(speedup >= target)]);
  const tallies = sides.map(({ name }) => `${name} ${JSON.stringify(result[name].tally)}`).join("; ");
  details.push(`${label}: ${steps.length} steps per pass; verdicts ${tallies}`);
  if (jsonForm !== undefined) {
    const jsonNs = result[jsonForm.name].ns;
    const same = JSON.stringify(result[jsonForm.name].tally) === JSON.stringify(pkg.tally) ? "the same verdicts" : "DIFFERENT verdicts";
    details.push(`${label}: every record as the JSON form ${duration(jsonNs)} per step, ${ratio(jsonNs / pkg.ns)} the package's, ${same} (bench/forms.mjs)`);
  }
  if (floor !== undefined) {
    details.push(
      `${label}: floor ${duration(floorNs)} per step = wrapper hand-over ${duration(result[floor.side.name].ns)} + in-wasm SHA-256 of the argument and result bytes ${duration(floor.shaNs)} (bench/floor.mjs)`,
    );
  }
  return pkg.ns;
}

await speedRow("(a) small mixed records (8 tools, ~100 B args, ~230 B results)", smallMixed(10_000), 3, { withFloor: true, withJsonForm: true });
await speedRow("(b) stuck identical loop (runs of 25 calls)", stuckLoop(10_000), 3, { withFloor: true, withJsonForm: true });
await speedRow("(c) 64 KiB text results", largeText(400, 64 * KB), 1.5, { withJsonForm: true });
const mibSteps = largeText(30, MB);
const mibNs = await speedRow("(d) 1 MiB text results", mibSteps, 1.5);

log("(l) 2,000-call runs of real records at historySize 30, 1,000 and 10,000");
for (const workload of loadRealWorkloads().filter((w) => ["customer-service", "multi-turn-calls"].includes(w.id))) {
  const byHistory = costByHistorySize(LoopGuard, longRuns(workload.pass, 2), ROUNDS);
  const [small, mid, large] = HISTORY_SIZES.map((h) => byHistory[h]);
  rows.push([
    `(l) ${workload.id}, 2,000-call runs: historySize 30 / 1,000 / 10,000`,
    `${duration(small)} / ${duration(mid)} (${ratio(mid / small)}) / ${duration(large)} (${ratio(large / small)})`,
    "1,000 ≤ 1.3×, 10,000 ≤ 2× of 30",
    met(mid / small <= 1.3 && large / small <= 2),
  ]);
}

log("(m) an outcome as a thrown error against the same text as a result, 1 / 4 / 16 KB");
const errorPath = errorAgainstResult(LoopGuard, ROUNDS);
rows.push([
  "(m) error outcome / same text as result, 1 / 4 / 16 KB",
  Object.entries(errorPath).map(([kb, { error, result }]) => `${kb} KB ${ratio(error / result)} (${duration(error)} vs ${duration(result)})`).join("; "),
  "≤ 1.3× at each size",
  met(Object.values(errorPath).every(({ error, result }) => error / result <= 1.3)),
]);

log("(e) node:crypto SHA-256 of the same 1 MiB");
const mibBytes = Buffer.from(mibSteps[0].outcome.result.content[0].text, "utf8");
const nativeNs = nativeSha256Ns(mibBytes, 31);
rows.push([
  "(e) 1 MiB vs host native SHA-256",
  `${ratio(mibNs / nativeNs)} native (package ${duration(mibNs)}, node:crypto ${duration(nativeNs)})`,
  "≤ 1.5× native",
  met(mibNs / nativeNs <= 1.5),
]);

log("(f) 1 MiB through the portable entry (no native hasher), in a fresh process");
const portable = child("portable.mjs", String(ROUNDS));
const portableCell = `package ${duration(portable.ns)} via the portable entry`;
rows.push(
  portable.wasmShaNs === null
    ? ["(f) 1 MiB, native hashing unavailable", `n/a: no in-wasm sha256 export to compare (${portableCell})`, "≤ 1.5× wasm SHA-256", met(undefined)]
    : [
        "(f) 1 MiB, native hashing unavailable",
        `${ratio(portable.ns / portable.wasmShaNs)} wasm SHA-256 (${portableCell}, in-wasm SHA-256 ${duration(portable.wasmShaNs)})`,
        "≤ 1.5× wasm SHA-256",
        met(portable.ns / portable.wasmShaNs <= 1.5),
      ],
);

log("(g, h) 100,000 live runs × 30 records in a fresh process");
const footprint = child("footprint.mjs");
if (footprint.error !== undefined) {
  rows.push(["(g) wasm memory per run, historySize 30", `n/a (${footprint.error})`, "≤ 8 KB", met(undefined)]);
  rows.push(["(h) 100,000 concurrent runs", "n/a", "fit in 128 MB", met(undefined)]);
} else {
  const perRun = (footprint.after - footprint.before) / footprint.runs;
  rows.push([
    "(g) wasm memory per run, historySize 30",
    `${bytes(perRun)} (growth ${bytes(footprint.after - footprint.before)} over ${footprint.runs.toLocaleString("en")} runs)`,
    "≤ 8 KB",
    met(perRun <= 8 * KB),
  ]);
  rows.push([
    "(h) 100,000 concurrent runs",
    `${bytes(footprint.after)} wasm memory in total (${footprint.liveRuns} live runs)`,
    "fit in 128 MB",
    met(footprint.after <= 128 * MB),
  ]);
}

log("(g2) one-call runs at historySize 30, 1,000 and 10,000, each in a fresh process");
const oneCall = [30, 1000, 10_000].map((historySize) => {
  const measured = child("footprint.mjs", String(historySize), "1");
  return { historySize, perRun: measured.error === undefined ? (measured.after - measured.before) / measured.runs : undefined };
});
rows.push([
  "(g2) wasm memory per one-call run, historySize 30 / 1,000 / 10,000",
  oneCall.map((m) => (m.perRun === undefined ? "n/a" : bytes(Math.round(m.perRun)))).join(" / "),
  "≤ 2 KB at any historySize",
  met(oneCall.every((m) => m.perRun !== undefined) ? oneCall.every((m) => m.perRun <= 2 * KB) : undefined),
]);

log(`(k) first verdict in ${INSTANTIATE_SAMPLES} fresh processes`);
const firsts = Array.from({ length: INSTANTIATE_SAMPLES }, () => child("first-verdict.mjs"));
const firstOf = (clock, step) => median(firsts.map((s) => s[clock][step]));
const firstRow = (clock) =>
  `${firstOf(clock, "totalMs").toFixed(1)} ms (import ${firstOf(clock, "importMs").toFixed(1)}, construct ${firstOf(clock, "constructMs").toFixed(1)}, first check + record ${firstOf(clock, "firstCallMs").toFixed(1)})`;

log("(k) first verdict in cold workerd isolates (bench/first-verdict-workerd.mjs)");
let workerdFirst;
try {
  workerdFirst = child("first-verdict-workerd.mjs");
} catch (error) {
  log(`(k) in workerd: not measured (${error.message})`);
}
function workerdFirstRow(kind) {
  if (workerdFirst === undefined) return "n/a (workerd did not run)";
  const { inside, coldMinusWarmMs } = workerdFirst[kind];
  return `${inside.totalMs} ms inside the Worker, whole ms (import ${inside.importMs}, construct ${inside.constructMs}, first check + record ${inside.firstCallMs}); first request − warm ones ${coldMinusWarmMs.toFixed(1)} ms (medians of ${workerdFirst.processes} processes)`;
}

log(`(i) compile + init in ${INSTANTIATE_SAMPLES} fresh processes`);
const inits = Array.from({ length: INSTANTIATE_SAMPLES }, () => child("instantiate.mjs"));
const initMs = median(inits.map((s) => s.compileMs + s.initMs));
rows.push([
  "(i) instantiate (compile + init) in Node",
  `${initMs.toFixed(2)} ms (compile ${median(inits.map((s) => s.compileMs)).toFixed(2)}, init ${median(inits.map((s) => s.initMs)).toFixed(2)}; file read ${median(inits.map((s) => s.readMs)).toFixed(2)} not included)`,
  "≤ 5 ms",
  met(initMs <= 5),
]);

rows.push(["(k) first verdict in a fresh process, wall time", firstRow("wall"), "≤ 10 ms", met(firstOf("wall", "totalMs") <= 10)]);
rows.push(["(k) the same, CPU time of the process", firstRow("cpu"), "", met(undefined)]);
rows.push([
  "(k) first verdict in workerd: a cold isolate's first request (import + construct + first check and record), the first isolate of its process",
  workerdFirstRow("first"),
  "≤ 10 ms",
  met(workerdFirst === undefined ? undefined : workerdFirst.first.inside.totalMs <= 10),
]);
rows.push(["(k) the same, a second isolate of the process (V8 shares the compiled wasm code)", workerdFirstRow("sameProcess"), "", met(undefined)]);
rows.push(["(k) workerd: what the package adds to the start of a process with two such Workers", workerdFirst === undefined ? "n/a" : `+${workerdFirst.startupMs.toFixed(1)} ms`, "", met(undefined)]);

const wasm = fs.readFileSync(WASM_FILE);
const gzipped = zlib.gzipSync(wasm, { level: 9 }).length;
rows.push(["(j) .wasm size, gzipped", `${bytes(gzipped)} = ${gzipped} B (raw ${bytes(wasm.length)})`, `≤ ${bytes(WASM_GZIP_BUDGET)} (scripts/wasm-budget.mjs)`, met(gzipped <= WASM_GZIP_BUDGET)]);

const cpu = os.cpus();
const built = fs.statSync(WASM_FILE).mtime.toISOString();
console.log(`tool-loop-guard bench: Node ${process.version}, ${os.platform()} ${os.arch()}, ${cpu.length} × ${cpu[0]?.model ?? "?"}, ${new Date().toISOString()}`);
console.log(`package: core ${coreVersion()}, .wasm built ${built}; baseline: bench/baseline (plain TypeScript, node:crypto)`);
console.log(`speed rows: ns per check+record step (a refused call is not recorded), median of ${ROUNDS} interleaved rounds after a warm-up; 1 KB = 1024 B\n`);
printTable(["workload", "measured", "target", "met?"], rows);
console.log("");
for (const line of details) console.log(line);
console.log("");
await printRealRecords();
