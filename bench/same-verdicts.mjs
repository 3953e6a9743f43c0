// Development check for speed work: two builds of the package must answer alike. Replays the
// real-records workloads (bench/real/) and the synthetic ones of bench/workloads.mjs through both,
// under the default, openclaw and strict presets, and compares every verdict and, after every
// call, the run's snapshot (exportRun holds every fingerprint of the run's window).
//
// A build whose windows digest with a run's keyed SipHash (snapshot format TLGS 6 / TLGO 2) has its
// instance's secret withdrawn first, so that its windows digest with SHA-256 as older builds' do:
// then snapshots are compared without their version byte and window-hash marker. The workloads
// are then replayed once more with the secrets in place (as the package runs), verdicts only.
//
//   node bench/same-verdicts.mjs <pkg dir A> [<pkg dir B>, default ../pkg] [--long]
//
// --long adds bench/window.mjs's 2,000-call runs of every real workload at historySize 1,000 and
// 10,000 (default preset; a snapshot every 50 calls and at each run's end), where the window
// holds what the short runs never reach.
//
// e.g. A = a pkg/ built from the commit before the change (git worktree add, npm run build).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadRealWorkloads } from "./real.mjs";
import { longRuns } from "./window.mjs";
import { largeText, smallMixed, stuckLoop } from "./workloads.mjs";

const long = process.argv.includes("--long");
const [dirA, dirB = new URL("../pkg", import.meta.url).pathname] = process.argv.slice(2).filter((arg) => arg !== "--long");
if (!dirA) {
  console.error("usage: node bench/same-verdicts.mjs <pkg dir A> [<pkg dir B>]");
  process.exit(2);
}
const entry = (dir) => import(pathToFileURL(path.join(path.resolve(dir), "entries", "node.js")).href);
const glue = (dir) => import(pathToFileURL(path.join(path.resolve(dir), "tool_loop_guard.js")).href);
const [A, B] = await Promise.all([entry(dirA), entry(dirB)]);
const glues = await Promise.all([glue(dirA), glue(dirB)]);
// A first guard of each build instantiates its wasm (and gives it a secret).
for (const { LoopGuard } of [A, B]) new LoopGuard().free();
/** Windows digest with SHA-256 (`keyed` false) or under keys from a new random secret. */
const keyWindows = (keyed) => {
  for (const g of glues) g.setWindowSecret?.(keyed ? crypto.getRandomValues(new Uint8Array(16)) : new Uint8Array(0));
};

/** Whether a snapshot's format has the window-hash field after the run id. */
const hasWindowHash = (bytes) => {
  const magic = Buffer.from(bytes.subarray(0, 4)).toString("latin1");
  return (magic === "TLGS" && bytes[4] >= 6) || (magic === "TLGO" && bytes[4] >= 2);
};
/**
 * A snapshot as hex without what differs by format version alone: the version byte, a SHA-256
 * window's hash marker, and the checksum over them.
 */
function comparable(bytes) {
  const idEnd = bytes[5] === 1 ? 10 + Buffer.from(bytes).readUInt32LE(6) : 6;
  const hashEnd = hasWindowHash(bytes) ? idEnd + (bytes[idEnd] === 0 ? 1 : 17) : idEnd;
  return Buffer.concat([bytes.subarray(0, 4), bytes.subarray(5, idEnd), bytes.subarray(hashEnd, bytes.length - 32)]).toString("hex");
}

const workloads = loadRealWorkloads().map((w) => ({ id: w.id, steps: w.pass.slice(0, w.calls) }));
workloads.push({ id: "small-mixed", steps: smallMixed(3000) }, { id: "stuck", steps: stuckLoop(3000) }, { id: "large", steps: largeText(40, 70_000) });

let compared = 0;
const differences = [];
const same = (what, a, b) => {
  compared++;
  if (a !== b && differences.length < 10) differences.push(`${what}\n  A ${a.slice(0, 300)}\n  B ${b.slice(0, 300)}`);
  else if (a !== b) differences.push(what);
};
/** Replays `steps` through a guard of each build made with `config`, comparing as it goes. */
function compare(label, steps, config, snapshotEvery = 0) {
  const [a, b] = [new A.LoopGuard(config), new B.LoopGuard(config)];
  steps.forEach(({ call, outcome, endRun }, i) => {
    const where = `${label} call ${i}`;
    const [checkA, checkB] = [a.check(call), b.check(call)];
    same(`${where}: check`, JSON.stringify(checkA), JSON.stringify(checkB));
    if (checkA.action !== "block" && checkA.action !== "stop") same(`${where}: record`, JSON.stringify(a.record(outcome)), JSON.stringify(b.record(outcome)));
    if (snapshotEvery > 0 && (i % snapshotEvery === 0 || endRun)) {
      const snapshot = (guard) => comparable(guard.exportRun(call.runId));
      same(`${where}: snapshot`, snapshot(a), snapshot(b));
    }
    if (endRun) [a, b].forEach((guard) => guard.endRun(call.runId));
  });
  [a, b].forEach((guard) => guard.free());
}

keyWindows(false);
for (const preset of [undefined, "openclaw", "strict"]) {
  for (const { id, steps } of workloads) {
    compare(`${id} ${preset ?? "default"}`, steps, preset === undefined ? undefined : { preset }, 1);
  }
}
if (long) {
  for (const workload of loadRealWorkloads()) {
    for (const historySize of [1000, 10_000]) {
      compare(`${workload.id} historySize ${historySize}`, longRuns(workload.pass, 2), { historySize }, 50);
    }
  }
}
keyWindows(true);
for (const preset of [undefined, "openclaw", "strict"]) {
  for (const { id, steps } of workloads) {
    compare(`${id} ${preset ?? "default"}, keyed windows`, steps, preset === undefined ? undefined : { preset });
  }
}
for (const line of differences.slice(0, 10)) console.log(`DIFFERS ${line}`);
console.log(`${compared} verdicts and snapshots compared (presets default, openclaw, strict${long ? "; long runs at historySize 1,000 and 10,000" : ""}; verdicts again with keyed windows): ${differences.length} differ`);
process.exitCode = differences.length ? 1 : 0;
