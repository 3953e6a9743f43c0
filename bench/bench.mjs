// `npm run bench`: ns per check+record through the built package (wrapper serialisation included)
// and, in the same process, through the plain-TypeScript reference guard (bench/reference.ts,
// node:crypto), on the workloads of benches/core.rs; plus memory per run. Prints figures only.
// Needs `npm run build` first; run with --expose-gc for the JS heap figure.
import { LoopGuard, coreVersion } from "tool-loop-guard";
import { ReferenceGuard } from "../build/bench/reference.js";
import * as glue from "../pkg/tool_loop_guard.js";

const TOOLS = ["read_file", "search", "list_dir", "grep", "fetch_url", "get_issue", "run_tests", "git_log"];

/** [call, outcome] pairs. */
function smallMixed(n) {
  return Array.from({ length: n }, (_, i) => {
    const call = {
      runId: `run-${i % 4}`,
      tool: TOOLS[i % TOOLS.length],
      args: { path: `src/module_${i % 13}/file_${i % 7}.rs`, limit: 200, offset: i % 5, recursive: i % 2 === 0 },
      callId: `call-${i}`,
    };
    const text = `${i % 17} lines matched in module ${i % 13} — first match at line ${i % 29}; nothing else changed since the previous call, see details for the counts`;
    return [call, { ...call, result: { content: [{ type: "text", text }], details: { matches: i % 17, durationMs: i } } }];
  });
}

function stuckLoop(n) {
  const args = { id: "T-1", status: "done", note: "finalise the task list and mark the item complete" };
  const result = "Task T-1 updated: status=done. No further changes are needed; the task list is up to date.";
  return Array.from({ length: n }, (_, i) => {
    const call = { runId: `run-${Math.floor(i / 25)}`, tool: "update_task", args, callId: `c${i}` };
    return [call, { ...call, result }];
  });
}

function textResults(n, bytes) {
  const text = "lorem ipsum dolor sit amet, ".repeat(Math.ceil(bytes / 28)).slice(0, bytes);
  return Array.from({ length: n }, (_, i) => {
    const call = { runId: `run-${i}`, tool: "read_file", args: { path: `big_${i}.log` } };
    return [call, { ...call, result: text }];
  });
}

/** Best ns per check+record over `rounds` fresh guards. */
function measure(makeGuard, pairs, rounds) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const guard = makeGuard();
    const start = process.hrtime.bigint();
    for (const [call, outcome] of pairs) {
      guard.check(call);
      guard.record(outcome);
    }
    best = Math.min(best, Number(process.hrtime.bigint() - start) / pairs.length);
    guard.free?.();
  }
  return best;
}

const workloads = [
  ["small mixed records (8 tools)", smallMixed(20_000), 5],
  ["stuck identical loop", stuckLoop(20_000), 5],
  ["64 KB text results", textResults(200, 64 * 1024), 5],
  ["1 MB text results", textResults(20, 1024 * 1024), 3],
];

const ns = (n) => `${Math.round(n).toLocaleString("en-US")} ns`;
console.log(`tool-loop-guard bench: core ${coreVersion()}, node ${process.version}, ${process.arch}`);
console.log(`${"workload".padEnd(32)}${"wasm (package)".padStart(16)}${"plain TS".padStart(14)}${"TS / wasm".padStart(12)}`);
for (const [name, pairs, rounds] of workloads) {
  const wasm = measure(() => new LoopGuard({ maxRuns: 1_000_000 }), pairs, rounds);
  const ts = measure(() => new ReferenceGuard(1_000_000), pairs, rounds);
  console.log(`${name.padEnd(32)}${ns(wasm).padStart(16)}${ns(ts).padStart(14)}${`${(ts / wasm).toFixed(2)}x`.padStart(12)}`);
}

// Memory per run: runs filled to their whole window (30 records of the small workload each).
const RUNS = 2_000;
const fill = (guard) => {
  const pairs = smallMixed(30);
  for (let r = 0; r < RUNS; r++) {
    for (const [call, outcome] of pairs) {
      guard.check({ ...call, runId: `mem-${r}` });
      guard.record({ ...outcome, runId: `mem-${r}` });
    }
  }
  return guard;
};
const memory = glue.initSync().memory;
const before = memory.buffer.byteLength;
const kept = fill(new LoopGuard({ maxRuns: 1_000_000 }));
console.log(`wasm linear memory per run (30-record window): ${Math.round((memory.buffer.byteLength - before) / RUNS).toLocaleString("en-US")} B (${RUNS} runs; grows in 64 KB pages, never shrinks)`);
kept.free();
if (globalThis.gc) {
  globalThis.gc();
  const heap = process.memoryUsage().heapUsed;
  const ref = fill(new ReferenceGuard(1_000_000));
  globalThis.gc();
  console.log(`plain TS heap per run (30-record window): ${Math.round((process.memoryUsage().heapUsed - heap) / RUNS).toLocaleString("en-US")} B`);
  void ref;
}
