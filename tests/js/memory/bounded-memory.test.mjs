// Bounded memory through the built package: a run of 1,000,000 calls keeps its state (snapshot)
// and the module's memory constant once its window is full; 1,000,000 distinct run ids through
// one guard stop growing memory once maxRuns runs are live (least recently used evicted), and
// with the default maxRuns (100,000) stay within the documented 128 MB. The wasm memory never
// shrinks, so its size at the end bounds its peak. Run once (by scripts/test.sh under the newest
// Node LTS): the .wasm and its allocator are the same in every engine.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { currentRuntime } from "../../../pkg/instance.js";

const MB = 1024 * 1024;
const memoryBytes = () => currentRuntime().memory.buffer.byteLength;

test("a run of 1,000,000 calls keeps its state size and the memory constant", () => {
  const guard = new LoopGuard();
  const step = (i) => {
    guard.check({ runId: "one", tool: "exec", args: { i: i % 5 } });
    guard.record({ runId: "one", tool: "exec", args: { i: i % 5 }, result: `output ${i}` });
  };
  for (let i = 0; i < 1000; i++) step(i);
  const [memory, state] = [memoryBytes(), guard.exportRun("one").length];
  for (let i = 1000; i < 1_000_000; i++) {
    step(i);
    if (i % 100_000 === 0) assert.equal(guard.exportRun("one").length, state, `state size after ${i} calls`);
  }
  assert.equal(guard.exportRun("one").length, state);
  assert.equal(memoryBytes(), memory, "memory grew during the run");
  guard.free();
});

test("1,000,000 run ids with maxRuns 1000: memory stops growing at 1000 live runs", () => {
  const guard = new LoopGuard({ maxRuns: 1000 });
  const call = (i) => guard.check({ runId: `run-${i}`, tool: "read_file", args: { i: i % 7 } });
  for (let i = 0; i < 10_000; i++) call(i);
  const memory = memoryBytes();
  for (let i = 10_000; i < 1_000_000; i++) call(i);
  assert.equal(memoryBytes(), memory, "memory grew after the run table was full");
  const stats = guard.stats();
  assert.equal(stats.liveRuns, 1000);
  assert.equal(stats.evictedRuns, 999_000);
  guard.free();
});

test("1,000,000 run ids with the default maxRuns: 100,000 live, within 128 MB", () => {
  const guard = new LoopGuard();
  for (let i = 0; i < 1_000_000; i++) guard.check({ runId: `run-${i}`, tool: "read_file", args: { i: i % 7 } });
  const stats = guard.stats();
  assert.equal(stats.liveRuns, 100_000);
  assert.equal(stats.evictedRuns, 900_000);
  assert.ok(memoryBytes() <= 128 * MB, `wasm memory ${(memoryBytes() / MB).toFixed(1)} MiB`);
  guard.free();
});
