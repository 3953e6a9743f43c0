/**
 * `tool-loop-guard/otel`: the guard's counters as OpenTelemetry metrics, on a meter from
 * `@opentelemetry/api` (1.x; optional peer). Observable instruments read `guard.metrics()` at each
 * collection, so the counts are the core's own, with the same labels as the Prometheus text
 * (attributes `tool`, `action`, `detector`, `level`; never a run id). No runtime import of the API:
 * the meter is used through its shape.
 */

/** The observable instrument handles the meter returns (opaque here). */
type Observable = object;

/** What `addBatchObservableCallback` hands the callback (`BatchObservableResult`). */
interface BatchObservableResultLike {
  observe(observable: Observable, value: number, attributes?: Record<string, string>): void;
}

type BatchCallback = (result: BatchObservableResultLike) => void;

/** The part of an OpenTelemetry `Meter` used here. */
export interface MeterLike {
  createObservableCounter(name: string, options?: { description?: string; unit?: string }): Observable;
  createObservableGauge(name: string, options?: { description?: string; unit?: string }): Observable;
  addBatchObservableCallback(callback: BatchCallback, observables: Observable[]): void;
  removeBatchObservableCallback(callback: BatchCallback, observables: Observable[]): void;
}

/** Any entry's `LoopGuard`. */
export interface MetricsSource {
  metrics(): string;
}

/** Instrument name and kind for each Prometheus metric name the core writes. */
const INSTRUMENTS: Record<string, { name: string; kind: "counter" | "gauge"; unit: string }> = {
  tool_loop_guard_calls_total: { name: "tool_loop_guard.calls", kind: "counter", unit: "{call}" },
  tool_loop_guard_interventions_total: { name: "tool_loop_guard.interventions", kind: "counter", unit: "{verdict}" },
  tool_loop_guard_records_total: { name: "tool_loop_guard.records", kind: "counter", unit: "{record}" },
  tool_loop_guard_live_runs: { name: "tool_loop_guard.live_runs", kind: "gauge", unit: "{run}" },
  tool_loop_guard_evicted_runs_total: { name: "tool_loop_guard.evicted_runs", kind: "counter", unit: "{run}" },
};

/** One sample line of the exposition text: metric name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of the core's exposition text (its `# HELP` texts become the descriptions). */
function parseExposition(text: string): { samples: Sample[]; help: Map<string, string> } {
  const samples: Sample[] = [];
  const help = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.startsWith("# HELP ")) {
      const rest = line.slice("# HELP ".length);
      const space = rest.indexOf(" ");
      help.set(rest.slice(0, space), rest.slice(space + 1));
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const brace = line.indexOf("{");
    const valueAt = line.lastIndexOf(" ");
    const name = line.slice(0, brace === -1 ? valueAt : brace);
    const labels: Record<string, string> = {};
    if (brace !== -1) {
      // label="value" pairs; values escape \\, \" and \n.
      const pattern = /(\w+)="((?:[^"\\]|\\.)*)"/g;
      for (const [, label, raw] of line.slice(brace, valueAt).matchAll(pattern)) {
        labels[label!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      }
    }
    samples.push({ name, labels, value: Number(line.slice(valueAt + 1)) });
  }
  return { samples, help };
}

/**
 * Registers observable instruments for the guard's counters on `meter`; returns a function that
 * unregisters them. Each collection calls `guard.metrics()` once.
 */
export function observeGuardMetrics(guard: MetricsSource, meter: MeterLike): () => void {
  const { help } = parseExposition(guard.metrics());
  const observables = new Map<string, Observable>();
  for (const [promName, { name, kind, unit }] of Object.entries(INSTRUMENTS)) {
    const options = { description: help.get(promName) ?? "", unit };
    observables.set(promName, kind === "gauge" ? meter.createObservableGauge(name, options) : meter.createObservableCounter(name, options));
  }
  const callback: BatchCallback = (result) => {
    for (const sample of parseExposition(guard.metrics()).samples) {
      const observable = observables.get(sample.name);
      if (observable !== undefined) result.observe(observable, sample.value, sample.labels);
    }
  };
  const list = [...observables.values()];
  meter.addBatchObservableCallback(callback, list);
  return () => meter.removeBatchObservableCallback(callback, list);
}
