/**
 * Sweeps: the same runs replayed under a grid of settings, tallied per setting so a team can pick
 * settings from its own logs. A setting is a preset plus values at config paths
 * (`warningThreshold`, `detectors.stall`, `tools.bash.kind`); the tally counts runs refused and,
 * on runs marked as fine, refusals that withheld information apart from costless ones.
 */
import type { LoopGuardConfig } from "../types.js";
import type { RunSummary } from "./engine.js";

export interface SweepSetting {
  /** e.g. `preset=strict warningThreshold=3`. */
  label: string;
  config: LoopGuardConfig;
}

/** One axis of the grid: a config path (dots between keys) and its values. */
export interface GridAxis {
  path: string;
  values: unknown[];
}

/** A copy of `config` with `value` at the dotted `path`. */
export function withValueAt(config: LoopGuardConfig, path: string, value: unknown): LoopGuardConfig {
  const copy = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  const keys = path.split(".");
  let node = copy;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node[key] = typeof next === "object" && next !== null && !Array.isArray(next) ? next : {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
  return copy as LoopGuardConfig;
}

/**
 * Every combination of the presets (none: the base config as it is) and the grid's values, in
 * order: presets outermost, then the axes as given.
 */
export function sweepSettings(base: LoopGuardConfig, presets: string[], grid: GridAxis[]): SweepSetting[] {
  let settings: SweepSetting[] =
    presets.length === 0
      ? [{ label: base.preset === undefined ? "base" : `preset=${base.preset}`, config: base }]
      : presets.map((preset) => ({ label: `preset=${preset}`, config: withValueAt(base, "preset", preset) }));
  for (const axis of grid) {
    settings = settings.flatMap((setting) =>
      axis.values.map((value) => ({ label: `${setting.label} ${axis.path}=${JSON.stringify(value)}`, config: withValueAt(setting.config, axis.path, value) })),
    );
  }
  return settings;
}

/** The tally of one setting. */
export interface SweepRow {
  label: string;
  config: LoopGuardConfig;
  runs: number;
  calls: number;
  runsRefused: number;
  runsStopped: number;
  refusals: number;
  withheld: number;
  costless: number;
  /** Runs marked as fine, and among them the refused ones and their refusals by cost. */
  okRuns: number;
  okRunsRefused: number;
  okWithheld: number;
  okCostless: number;
}

export function sweepRow(setting: SweepSetting): SweepRow {
  return {
    label: setting.label,
    config: setting.config,
    runs: 0,
    calls: 0,
    runsRefused: 0,
    runsStopped: 0,
    refusals: 0,
    withheld: 0,
    costless: 0,
    okRuns: 0,
    okRunsRefused: 0,
    okWithheld: 0,
    okCostless: 0,
  };
}

/** Adds one run's summary to a setting's tally; `ok`: the run is marked as fine. */
export function tallyRun(row: SweepRow, summary: RunSummary, ok: boolean): void {
  const refused = summary.refusals.length > 0;
  row.runs++;
  row.calls += summary.calls;
  if (refused) row.runsRefused++;
  if (summary.stoppedAt !== null) row.runsStopped++;
  row.refusals += summary.refusals.length;
  row.withheld += summary.withheld;
  row.costless += summary.costless;
  if (!ok) return;
  row.okRuns++;
  if (refused) row.okRunsRefused++;
  row.okWithheld += summary.withheld;
  row.okCostless += summary.costless;
}
