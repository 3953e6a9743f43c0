// `npm run bench:soak [minutes]` (default 10): mixed traffic through one guard of the built package
// for that long, printing the process RSS, the V8 heap and the wasm memory ten times (and the
// drift from the first sample, taken after a tenth of the time as warm-up). Figures only: nothing is asserted (the
// bounds themselves are tested in tests/js/memory/). Traffic: 2,000 rotating run ids over a
// 500-run table (maxRuns), 8 tools, short and 64 KiB results, errors, refusals, endRun, and
// exportRun/importRun of a run every 1,000 steps.
import { bytes } from "./format.mjs";
import { loadPackage, wasmMemory } from "./package-handles.mjs";

const minutes = Number(process.argv[2] ?? 10);
const { LoopGuard, glue } = await loadPackage();
const guard = new LoopGuard({ maxRuns: 500 });
const spare = new LoopGuard({ maxRuns: 500 });
const memory = wasmMemory(glue);
const TOOLS = ["read_file", "exec", "process_poll", "search", "write_file", "list_dir", "fetch", "no_such_tool"];
const large = "x".repeat(64 * 1024);

let step = 0;
function traffic() {
  const runId = `run-${step % 2000}`;
  const tool = TOOLS[(step * 7) % TOOLS.length];
  const call = { runId, tool, args: { path: `/w/${step % 13}`, n: step % 3 }, callId: `c${step}` };
  const verdict = guard.check(call);
  if (verdict.action === "allow" || verdict.action === "warn") {
    const outcome =
      step % 17 === 0
        ? { ...call, error: new Error(`ENOENT ${step % 5}`) }
        : { ...call, result: step % 101 === 0 ? `${large}${step}` : `output ${step % 11}` };
    guard.record(outcome);
  }
  if (step % 997 === 0) guard.endRun(runId);
  if (step % 1000 === 0) spare.importRun(guard.exportRun(runId));
  step += 1;
}

const sample = (label) => {
  const { rss, heapUsed } = process.memoryUsage();
  return { label, rss, heapUsed, wasm: memory?.buffer.byteLength ?? 0, steps: step };
};
const samples = [sample("start")];
const end = Date.now() + minutes * 60_000;
const every = (minutes * 60_000) / 10;
let nextSample = Date.now() + every;
while (Date.now() < end) {
  for (let i = 0; i < 1000; i++) traffic();
  if (Date.now() >= nextSample) {
    samples.push(sample(`${Math.round((samples.length * every) / 1000)} s`));
    nextSample += every;
  }
}
if (samples.length < 11) samples.push(sample(`${Math.round((minutes * 60_000) / 1000)} s`));

console.log(`tool-loop-guard soak: ${minutes} min of mixed traffic, Node ${process.version}, ${step.toLocaleString("en")} steps`);
console.log("| at | steps | RSS | V8 heap used | wasm memory |");
console.log("|---|---|---|---|---|");
for (const s of samples) console.log(`| ${s.label} | ${s.steps.toLocaleString("en")} | ${bytes(s.rss)} | ${bytes(s.heapUsed)} | ${bytes(s.wasm)} |`);
const warm = samples[Math.min(1, samples.length - 1)];
const last = samples.at(-1);
console.log(`\ndrift after the first sample: RSS ${bytes(last.rss - warm.rss)}, wasm memory ${bytes(last.wasm - warm.wasm)}`);
