#!/usr/bin/env node
// `npm run eval`: replays the development set (eval/runs/*.jsonl.gz, described by eval/index.json)
// under every preset the config accepts and prints, per preset, the figures issue 11 asks for:
// runs refused, solved runs refused (withheld information vs costless), heavy loops refused and the
// median lag from a heavy loop's onset to the first refusal, the same against the hand labels
// (eval/labels.json), and a per-source breakdown. The runs are read and replayed by the package
// itself (tool-loop-guard/replay, see eval/devset.mjs), so the figures are the ones
// `tool-loop-guard replay` gives. Needs the built package (`npm run build`).
//
//   node eval/eval.mjs [--json] [--slice N] [--preset name ...]
//
// --slice N replays only the first N runs of each source (a quick smoke run); --json prints the
// figures as JSON instead of tables.
import fs from "node:fs";
import path from "node:path";
import { LoopGuard } from "tool-loop-guard";
import { heavyLoop, loadRuns, replayRun } from "./devset.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);
/** Presets tried; the ones the config rejects (not there yet) are skipped and named in the output. */
const CANDIDATE_PRESETS = ["default", "strict", "openclaw"];

function parseArgs(argv) {
  const options = { json: false, slice: null, presets: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--json") options.json = true;
    else if (argv[i] === "--slice") options.slice = Number(argv[++i]);
    else if (argv[i] === "--preset") options.presets.push(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return options;
}

function presetsAvailable(wanted) {
  const available = [];
  const missing = [];
  for (const preset of wanted) {
    try {
      new LoopGuard({ preset }).free();
      available.push(preset);
    } catch {
      missing.push(preset);
    }
  }
  return { available, missing };
}

const median = (values) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Loads the set: index entries joined with their records, optionally the first N per source. */
function loadSet(slice) {
  const index = JSON.parse(fs.readFileSync(path.join(here, "index.json"), "utf8"));
  const records = loadRuns(index.sources.map((s) => path.join(here, s.file)));
  const perSource = new Map();
  const runs = [];
  for (const meta of index.runs) {
    const taken = perSource.get(meta.source) ?? 0;
    if (slice !== null && taken >= slice) continue;
    perSource.set(meta.source, taken + 1);
    const trajectory = records.get(meta.runId);
    if (!trajectory) throw new Error(`run ${meta.runId} is in the index but not in ${meta.source}'s fixture`);
    runs.push({ meta, trajectory, heavy: heavyLoop(trajectory) });
  }
  const labelsFile = path.join(here, "labels.json");
  const labels = fs.existsSync(labelsFile) ? JSON.parse(fs.readFileSync(labelsFile, "utf8")).runs : [];
  return { runs, labels: new Map(labels.map((l) => [l.runId, l])) };
}

function emptyFigures() {
  return {
    runs: 0, refused: 0, solved: 0, solvedRefused: 0, solvedWithheld: 0, solvedCostlessOnly: 0,
    heavy: 0, heavyRefused: 0, lags: [], callsSaved: 0,
    labelled: { loop: 0, loopRefused: 0, legitimate: 0, legitimateRefused: 0, mixed: 0, mixedRefused: 0 },
  };
}

function add(figures, run, outcome, label) {
  const refused = outcome.refusals.length > 0;
  figures.runs += 1;
  figures.callsSaved += outcome.calls - outcome.ran;
  if (refused) figures.refused += 1;
  if (run.meta.solved === true) {
    figures.solved += 1;
    if (refused) {
      figures.solvedRefused += 1;
      if (outcome.refusals.some((r) => !r.costless)) figures.solvedWithheld += 1;
      else figures.solvedCostlessOnly += 1;
    }
  }
  if (run.heavy) {
    figures.heavy += 1;
    const first = outcome.refusals.find((r) => r.index >= run.heavy.onset);
    if (first) {
      figures.heavyRefused += 1;
      figures.lags.push(first.index - run.heavy.onset);
    }
  }
  if (label) {
    const kind = label.label;
    figures.labelled[kind] += 1;
    if (refused) figures.labelled[`${kind}Refused`] += 1;
  }
}

function finish(figures) {
  const { lags, ...rest } = figures;
  return { ...rest, medianLag: median(lags) };
}

function evaluate(preset, set) {
  const guard = new LoopGuard({ preset });
  const total = emptyFigures();
  const bySource = new Map();
  const perRun = [];
  for (const run of set.runs) {
    const outcome = replayRun(guard, run.trajectory);
    const label = set.labels.get(run.meta.runId);
    add(total, run, outcome, label);
    if (!bySource.has(run.meta.source)) bySource.set(run.meta.source, emptyFigures());
    add(bySource.get(run.meta.source), run, outcome, label);
    perRun.push({ runId: run.meta.runId, heavyOnset: run.heavy?.onset ?? null, ...outcome });
  }
  guard.free();
  return {
    preset,
    total: finish(total),
    bySource: Object.fromEntries([...bySource].map(([k, v]) => [k, finish(v)])),
    perRun,
  };
}

const pct = (n, d) => (d === 0 ? "—" : `${((100 * n) / d).toFixed(0)} %`);

function printTables(results, missing, elapsedMs, set) {
  const labelled = set.runs.filter((r) => set.labels.has(r.meta.runId)).length;
  console.log(`development set: ${set.runs.length} runs (${labelled} hand-labelled), replayed in ${(elapsedMs / 1000).toFixed(1)} s`);
  if (missing.length) console.log(`presets not accepted by this build (skipped): ${missing.join(", ")}`);
  for (const { preset, total: t, bySource } of results) {
    const lag = t.medianLag === null ? "—" : String(t.medianLag);
    const l = t.labelled;
    console.log(`\n## preset: ${preset}\n`);
    console.log("| runs | refused | solved | solved & refused: withheld | solved & refused: costless only | heavy loops | heavy refused | median lag | labelled loop refused | labelled legitimate refused | labelled mixed refused |");
    console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    console.log(`| ${t.runs} | ${t.refused} | ${t.solved} | ${t.solvedWithheld} (${pct(t.solvedWithheld, t.solved)}) | ${t.solvedCostlessOnly} | ${t.heavy} | ${t.heavyRefused} (${pct(t.heavyRefused, t.heavy)}) | ${lag} | ${l.loopRefused}/${l.loop} | ${l.legitimateRefused}/${l.legitimate} | ${l.mixedRefused}/${l.mixed} |`);
    console.log("\n| source | runs | refused | solved | solved & refused (withheld / costless only) | heavy | heavy refused | median lag |");
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const [source, s] of Object.entries(bySource)) {
      console.log(`| ${source} | ${s.runs} | ${s.refused} | ${s.solved} | ${s.solvedWithheld} / ${s.solvedCostlessOnly} | ${s.heavy} | ${s.heavyRefused} | ${s.medianLag ?? "—"} |`);
    }
  }
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const { available, missing } = presetsAvailable(options.presets.length ? options.presets : CANDIDATE_PRESETS);
  const started = performance.now();
  const set = loadSet(options.slice);
  const results = available.map((preset) => evaluate(preset, set));
  const elapsed = performance.now() - started;
  if (options.json) {
    console.log(JSON.stringify({ runs: set.runs.length, presetsSkipped: missing, elapsedMs: Math.round(elapsed), results }, null, 1));
  } else {
    printTables(results, missing, elapsed, set);
  }
}

main();
