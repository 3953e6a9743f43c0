// guard.metrics(): the Prometheus text exposition, read back with an independent parser
// (parse-prometheus-text-format) and compared with guard.stats() and with the verdicts the calls got.
import assert from "node:assert/strict";
import { test } from "node:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { LoopGuard } from "tool-loop-guard";
import { CONFIG } from "./support.mjs";

/** name -> the parsed family ({type, metrics: [{labels, value}]}). */
function scrape(guard) {
  return new Map(parsePrometheusTextFormat(guard.metrics()).map((family) => [family.name, family]));
}

function series(families, name) {
  return families.get(name).metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }));
}

/** Plays, in two runs, a stuck loop, a changing poll and a tool with an awkward name, 8 calls each; returns the verdict tallies. */
function play(guard) {
  const calls = new Map();
  const interventions = new Map();
  const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  const note = (verdict) => {
    if (verdict.detector !== null) count(interventions, `${verdict.detector}|${verdict.level}|${verdict.action}`);
  };
  for (const runId of ["run-a", "run-b"]) {
    for (const [tool, resultOf] of [
      ["status", () => "still running"],
      ["tail_log", (i) => `line ${i}`],
      ['we"ird\\tool\nname', () => "x"],
    ]) {
      for (let i = 0; i < 8; i += 1) {
        const result = resultOf(i);
        const verdict = guard.check({ runId, tool, args: { job: 1 } });
        count(calls, `${tool}|${verdict.action}`);
        note(verdict);
        if (verdict.action === "block" || verdict.action === "stop") continue;
        note(guard.record({ runId, tool, args: { job: 1 }, result }));
      }
    }
  }
  return { calls, interventions };
}

test("metrics() is valid Prometheus text whose counters match the verdicts and stats()", () => {
  const guard = new LoopGuard(CONFIG);
  const { calls, interventions } = play(guard);
  const families = scrape(guard);
  assert.equal(families.get("tool_loop_guard_calls_total").type, "COUNTER");
  assert.equal(families.get("tool_loop_guard_live_runs").type, "GAUGE");

  const callSeries = series(families, "tool_loop_guard_calls_total");
  assert.deepEqual(
    new Map(callSeries.map((s) => [`${s.labels.tool}|${s.labels.action}`, s.value])),
    calls,
    "one series per tool and action, counting the check verdicts (the awkward name escaped and read back)",
  );
  assert.ok(calls.get("status|block") > 0 && calls.get("status|stop") > 0, "the workload was refused and stopped");

  const interventionSeries = series(families, "tool_loop_guard_interventions_total");
  assert.deepEqual(
    new Map(interventionSeries.map((s) => [`${s.labels.detector}|${s.labels.level}|${s.labels.action}`, s.value])),
    interventions,
  );

  const stats = guard.stats();
  assert.equal(callSeries.reduce((sum, s) => sum + s.value, 0), stats.checks);
  assert.equal(series(families, "tool_loop_guard_records_total")[0].value, stats.records);
  assert.equal(series(families, "tool_loop_guard_live_runs")[0].value, stats.liveRuns);
  assert.equal(stats.liveRuns, 2);
  for (const family of families.values()) {
    for (const metric of family.metrics) {
      assert.deepEqual(
        Object.keys(metric.labels ?? {}).filter((label) => /run/i.test(label)),
        [],
        `${family.name} has no run label`,
      );
    }
  }
  guard.endRun("run-a");
  assert.equal(series(scrape(guard), "tool_loop_guard_live_runs")[0].value, 1);
  guard.free();
});

test("a fresh guard exposes every metric family with no call series", () => {
  const guard = new LoopGuard();
  const families = scrape(guard);
  for (const name of ["calls_total", "interventions_total", "records_total", "live_runs", "evicted_runs_total"]) {
    assert.ok(families.has(`tool_loop_guard_${name}`), name);
  }
  assert.deepEqual(families.get("tool_loop_guard_calls_total").metrics, []);
  guard.free();
});
