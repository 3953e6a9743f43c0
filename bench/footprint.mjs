// Rows (g) and (h) of the bench, run by bench/run.mjs in a child process so the wasm instance
// starts fresh: 100,000 live runs at historySize 30, each given 30 small check+record calls in
// one guard; prints JSON with the wasm memory size before and after and the guard's live runs.
// With arguments `<historySize> <records>` (row (g2)): 20,000 runs of that many records at that
// historySize instead.
import { loadPackage, wasmMemory } from "./package-handles.mjs";

const [historySize, records] = process.argv.slice(2).map(Number);
const RUNS = historySize === undefined ? 100_000 : 20_000;
const RECORDS = records ?? 30;
const TOOLS = ["read_file", "search_web", "list_dir"];

const { LoopGuard, glue } = await loadPackage();
const guard = new LoopGuard({ historySize: historySize ?? RECORDS, maxRuns: RUNS });
const memory = wasmMemory(glue);
if (memory === undefined) {
  process.stdout.write(JSON.stringify({ error: "the glue does not expose the wasm memory" }));
} else {
  const before = memory.buffer.byteLength;
  for (let run = 0; run < RUNS; run++) {
    const runId = `run-${run}`;
    for (let i = 0; i < RECORDS; i++) {
      const call = { runId, tool: TOOLS[i % TOOLS.length], args: { path: `/workspace/file_${i}.ts` }, callId: `c${i}` };
      guard.check(call);
      guard.record({ ...call, result: `contents of file ${i}` });
    }
  }
  const after = memory.buffer.byteLength;
  process.stdout.write(JSON.stringify({ runs: RUNS, records: RECORDS, before, after, liveRuns: guard.stats().liveRuns ?? null }));
}
