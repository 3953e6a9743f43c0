// tool-loop-guard/otel on a real OpenTelemetry SDK meter (@opentelemetry/sdk-metrics with a
// MetricReader collected on demand): the instruments report what guard.metrics() reports.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { LoopGuard } from "tool-loop-guard";
import { observeGuardMetrics } from "tool-loop-guard/otel";
import { CONFIG } from "./support.mjs";

/** A reader whose collect() the test calls. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  async onForceFlush() {}
  async onShutdown() {}
}

/** instrument name -> [{attributes, value}] from one collection. */
async function collect(reader) {
  const { resourceMetrics, errors } = await reader.collect();
  assert.deepEqual(errors, []);
  const out = new Map();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      out.set(metric.descriptor.name, {
        descriptor: metric.descriptor,
        points: metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
      });
    }
  }
  return out;
}

/** A stuck loop in one run; adds the check verdicts' actions to `tally`. */
function playStuckLoop(guard, runId, tally) {
  for (let i = 0; i < 8; i += 1) {
    const verdict = guard.check({ runId, tool: "status", args: { job: 1 } });
    tally[verdict.action] = (tally[verdict.action] ?? 0) + 1;
    if (verdict.action === "block" || verdict.action === "stop") continue;
    guard.record({ runId, tool: "status", args: { job: 1 }, result: "still running" });
  }
}

test("the OpenTelemetry instruments carry the guard's counters, labelled as in metrics()", async () => {
  const guard = new LoopGuard(CONFIG);
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ readers: [reader] });
  const unregister = observeGuardMetrics(guard, provider.getMeter("tool-loop-guard-test"));

  const checks = {};
  playStuckLoop(guard, "run-a", checks);
  playStuckLoop(guard, "run-b", checks);
  const stats = guard.stats();
  let metrics = await collect(reader);

  const calls = metrics.get("tool_loop_guard.calls");
  assert.equal(calls.descriptor.type, "OBSERVABLE_COUNTER");
  assert.ok(calls.descriptor.description.length > 0, "the core's HELP text is the description");
  const byAction = Object.fromEntries(calls.points.map((p) => [p.attributes.action, p.value]));
  assert.deepEqual(byAction, checks, "calls by the action of their check verdict");
  assert.ok(checks.block > 0 && checks.stop > 0);
  assert.ok(calls.points.every((p) => p.attributes.tool === "status"));

  const interventions = metrics.get("tool_loop_guard.interventions").points;
  assert.ok(interventions.some((p) => p.attributes.detector === "generic_repeat" && p.attributes.action === "block"));
  assert.equal(
    interventions.reduce((sum, p) => sum + p.value, 0),
    Object.values(stats.byDetector).reduce((sum, n) => sum + n, 0),
  );
  assert.equal(metrics.get("tool_loop_guard.live_runs").points[0].value, 2);
  assert.equal(metrics.get("tool_loop_guard.records").points[0].value, stats.records);

  guard.endRun("run-a");
  metrics = await collect(reader);
  assert.equal(metrics.get("tool_loop_guard.live_runs").points[0].value, 1, "each collection reads the guard anew");

  unregister();
  await provider.shutdown();
  guard.free();
});
