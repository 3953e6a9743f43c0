// The real-records benchmark (bench/real/*.jsonl.gz, see bench/real/SOURCES.md): every call of
// every run of a workload replayed as a gateway does it (check, then record with the full result
// unless refused, endRun after the run's last call), timed for the package's two presets and for the
// cost floor, i.e. hashing each record's bytes once with the runtime's fastest SHA-256. Used by
// bench/run.mjs and by scripts/openclaw-speed.mjs, which adds OpenClaw's own detector as a side.
import crypto from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";
import { compareSides } from "./timing.mjs";

const REAL_DIR = new URL("real/", import.meta.url);
const { readTrajectories } = await import(new URL("../pkg/replay/index.js", import.meta.url).href);
const { WORKLOADS } = await import(new URL("real/sources.mjs", import.meta.url).href);

/** Calls per timed pass at the least: small workloads are replayed several times per pass. */
const MIN_CALLS_PER_PASS = 4000;
const ALLOW = { action: "allow" };

/** The bytes a record carries: its arguments as JSON and its result (or error) text. */
function recordBytes({ args, result, error }) {
  const outcome = error ?? result;
  const text = typeof outcome === "string" ? outcome : outcome === undefined ? "" : JSON.stringify(outcome);
  return Buffer.from(JSON.stringify(args ?? {}) + text, "utf8");
}

/**
 * The steps of one workload ({call, outcome, endRun}, bench/timing.mjs's form), its mean record
 * size in bytes and its calls. Calls get the reader's call id or one of their own (a gateway has
 * one) and a time one second after the previous call.
 */
function stepsOf(id) {
  const text = zlib.gunzipSync(fs.readFileSync(new URL(`${id}.jsonl.gz`, REAL_DIR))).toString("utf8");
  const steps = [];
  let bytes = 0;
  for (const [r, run] of readTrajectories(text, { name: `${id}.jsonl`, format: "jsonl" }).entries()) {
    const calls = run.steps.filter((step) => typeof step.tool === "string");
    calls.forEach((step, i) => {
      const call = { runId: `run-${r}`, tool: step.tool, args: step.args ?? {}, callId: step.callId ?? `call-${r}-${i}`, at: 1_800_000_000_000 + steps.length * 1000 };
      const outcome = step.error === undefined ? { ...call, result: step.result } : { ...call, error: step.error };
      const floorBytes = recordBytes(step);
      bytes += floorBytes.length;
      steps.push({ call, outcome, floorBytes, endRun: i === calls.length - 1 });
    });
  }
  return { steps, meanBytes: bytes / steps.length };
}

/** Every workload of bench/real/sources.mjs whose fixture is present, with its steps. */
export function loadRealWorkloads() {
  return WORKLOADS.filter(({ id }) => fs.existsSync(new URL(`${id}.jsonl.gz`, REAL_DIR))).map((workload) => {
    const { steps, meanBytes } = stepsOf(workload.id);
    const repeat = Math.max(1, Math.ceil(MIN_CALLS_PER_PASS / steps.length));
    return { ...workload, calls: steps.length, meanBytes, pass: Array.from({ length: repeat }, () => steps).flat() };
  });
}

/** The runtime's fastest SHA-256 of bytes: the one-shot crypto.hash where it exists. */
const sha256 = typeof crypto.hash === "function" ? (bytes) => crypto.hash("sha256", bytes, "buffer") : (bytes) => crypto.createHash("sha256").update(bytes).digest();

/** The cost floor as a bench side: every record's bytes hashed once, nothing else. */
export function floorSide(workload) {
  const bytesOf = new WeakMap(workload.pass.map((step) => [step.outcome, step.floorBytes]));
  const guard = {
    check: () => ALLOW,
    record(outcome) {
      sha256(bytesOf.get(outcome));
      return ALLOW;
    },
    endRun() {},
  };
  return { name: "floor", create: () => guard, dispose: () => {} };
}

/**
 * The floor with the hand-over a host cannot avoid: each record's arguments and outcome made JSON
 * text (a string outcome as it is), encoded to UTF-8 and hashed once (`recordBytes`, timed).
 */
export function floorWithStringifySide() {
  const guard = {
    check: () => ALLOW,
    record(outcome) {
      sha256(recordBytes(outcome));
      return ALLOW;
    },
    endRun() {},
  };
  return { name: "floor+stringify", create: () => guard, dispose: () => {} };
}

/** The package's `default` and `preset: "openclaw"` guards as bench sides. */
export function presetSides(LoopGuard) {
  return [
    { name: "default", create: () => new LoopGuard(), dispose: (guard) => guard.free() },
    { name: "openclaw", create: () => new LoopGuard({ preset: "openclaw" }), dispose: (guard) => guard.free() },
  ];
}

/**
 * Times `sides` on each workload: {workload, ns: {side: ns per call}, tally: {side: verdict counts}}
 * per workload, medians of `rounds` interleaved passes (timed by `clock`, see `compareSides`).
 */
export function timeRealWorkloads(workloads, sidesOf, rounds, log = () => {}, clock = undefined) {
  return workloads.map((workload) => {
    const sides = sidesOf(workload);
    log(`${workload.id}: ${workload.pass.length} calls per pass × (1 warm-up + ${rounds} rounds) × ${sides.length} sides`);
    const result = compareSides(sides, workload.pass, rounds, clock);
    const ns = Object.fromEntries(sides.map(({ name }) => [name, result[name].ns]));
    const tally = Object.fromEntries(sides.map(({ name }) => [name, result[name].tally]));
    return { workload, ns, tally };
  });
}

/** The workload's label: its family, mean record size and calls. */
export function workloadLabel({ family, meanBytes, calls }) {
  const size = meanBytes >= 1024 ? `${(meanBytes / 1024).toFixed(1)} KB` : `${Math.round(meanBytes)} B`;
  return `${family} (${size}, ${calls} calls)`;
}
