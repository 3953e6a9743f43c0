// Development check for speed work: two builds of the package must answer alike. Replays the
// real-records workloads (bench/real/) and the synthetic ones of bench/workloads.mjs through both,
// under the default, openclaw and strict presets, and compares every verdict and, after every
// call, the run's snapshot (exportRun holds every fingerprint of the run's window).
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
const [A, B] = await Promise.all([entry(dirA), entry(dirB)]);

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
function compare(label, steps, config, snapshotEvery) {
  const [a, b] = [new A.LoopGuard(config), new B.LoopGuard(config)];
  steps.forEach(({ call, outcome, endRun }, i) => {
    const where = `${label} call ${i}`;
    const [checkA, checkB] = [a.check(call), b.check(call)];
    same(`${where}: check`, JSON.stringify(checkA), JSON.stringify(checkB));
    if (checkA.action !== "block" && checkA.action !== "stop") same(`${where}: record`, JSON.stringify(a.record(outcome)), JSON.stringify(b.record(outcome)));
    if (i % snapshotEvery === 0 || endRun) {
      const snapshot = (guard) => Buffer.from(guard.exportRun(call.runId)).toString("hex");
      same(`${where}: snapshot`, snapshot(a), snapshot(b));
    }
    if (endRun) [a, b].forEach((guard) => guard.endRun(call.runId));
  });
  [a, b].forEach((guard) => guard.free());
}

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
for (const line of differences.slice(0, 10)) console.log(`DIFFERS ${line}`);
console.log(`${compared} verdicts and snapshots compared (presets default, openclaw, strict${long ? "; long runs at historySize 1,000 and 10,000" : ""}): ${differences.length} differ`);
process.exitCode = differences.length ? 1 : 0;
