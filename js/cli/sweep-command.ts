/**
 * `tool-loop-guard sweep`: the runs of every input, read once, replayed under each setting of a
 * grid (presets × config values) and tallied per setting: runs refused and stopped, refusals that
 * withheld new information and costless ones, and the same on the runs marked as fine (`--ok`),
 * so a team picks its settings from its own logs. Combinations the config rejects (a critical
 * threshold not above the warning threshold) are listed as skipped. Exit code 0, or 2 for bad
 * input, or when no setting is valid.
 */
import { LoopGuardError } from "../errors.js";
import { LoopGuard } from "../entries/node.js";
import { replayTrajectory, type SweepRow, sweepRow, sweepSettings, tallyRun, type Trajectory } from "../replay/index.js";
import { TrajectorySink } from "./collect.js";
import { readInputs } from "./inputs.js";
import { type SweepOptions, UsageError } from "./options.js";
import type { Output } from "./output.js";
import { paint, plural } from "./render.js";

const COLUMNS: [string, (row: SweepRow) => string][] = [
  ["runs", (r) => String(r.runs)],
  ["refused", (r) => String(r.runsRefused)],
  ["stopped", (r) => String(r.runsStopped)],
  ["refusals withheld/costless", (r) => `${r.withheld}/${r.costless}`],
  ["ok runs", (r) => String(r.okRuns)],
  ["ok refused", (r) => String(r.okRunsRefused)],
  ["ok refusals withheld/costless", (r) => `${r.okWithheld}/${r.okCostless}`],
];

/** A combination of the grid that the config rejects. */
interface InvalidSetting {
  label: string;
  invalid: string;
}

export async function sweepCommand(options: SweepOptions, out: Output): Promise<number> {
  const runs: Trajectory[] = [];
  const bad = await readInputs(
    options.files,
    options.format,
    () => new TrajectorySink(),
    (_input, sink) => {
      runs.push(...(sink as TrajectorySink).trajectories);
    },
  );
  const known = new Set(runs.map((r) => r.runId));
  const unknown = [...options.ok].filter((id) => !known.has(id));
  if (unknown.length > 0) process.stderr.write(`tool-loop-guard: warning: ${unknown.length} --ok run id(s) match no run: ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ", …" : ""}\n`);

  const rows: (SweepRow | InvalidSetting)[] = [];
  for (const setting of sweepSettings(options.config, options.presets, options.grid)) {
    let guard: LoopGuard;
    try {
      guard = new LoopGuard(setting.config);
    } catch (error) {
      // A grid crosses its axes, so some combinations break a rule of the config: listed, skipped.
      if (!(error instanceof LoopGuardError) || error.code !== "invalid_config") throw error;
      rows.push({ label: setting.label, invalid: error.message });
      continue;
    }
    const row = sweepRow(setting);
    for (const [n, trajectory] of runs.entries()) {
      // The guard's run id is unique per run read, so equal ids in two files never meet.
      const report = replayTrajectory(guard, trajectory, { timeline: false, guardRunId: `${n}:${trajectory.runId}` });
      tallyRun(row, report.summary, options.ok.has(trajectory.runId));
    }
    guard.free();
    rows.push(row);
  }

  if (rows.every((row) => "invalid" in row)) throw new UsageError(`no setting of the grid is a valid config (${(rows[0] as InvalidSetting).invalid})`);
  if (options.json) {
    for (const row of rows) out.write(`${JSON.stringify({ type: "setting", ...row })}\n`);
  } else {
    const p = paint(out.colour);
    const labelWidth = Math.max(7, ...rows.map((r) => r.label.length));
    const widths = COLUMNS.map(([title]) => title.length);
    out.write(`${p.bold([`${"setting".padEnd(labelWidth)}`, ...COLUMNS.map(([title]) => title)].join("  "))}\n`);
    for (const row of rows) {
      if ("invalid" in row) {
        out.write(`${row.label.padEnd(labelWidth)}  ${p.dim(`skipped, not a valid config: ${row.invalid}`)}\n`);
        continue;
      }
      const cells = COLUMNS.map(([, cell], i) => cell(row).padStart(widths[i] as number));
      out.write(`${[row.label.padEnd(labelWidth), ...cells].join("  ")}\n`);
    }
    out.write(`${plural(runs.length, "run")}, ${options.ok.size} marked as fine (--ok); "ok" columns count those runs only\n`);
  }
  return bad > 0 ? 2 : 0;
}
