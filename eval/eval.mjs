#!/usr/bin/env node
// `npm run eval`: replays the development set (eval/runs/, its sources listed in eval/index.json)
// under each preset with `policy: "shadow"`, so every would-be refusal of every run is seen and
// judged against what the refused call really returned (eval/devset.mjs defines costless, heavy
// loops and their onset). Prints, per preset, by family and by detector: vetoes and the share that
// cost nothing, solved runs whose first refusal withheld information, heavy loops refused and the
// median lag from onset to the first refusal, heavy loops warned within 3 calls of onset, and the
// hand labels (eval/labels.json). Needs the built package (`npm run build`).
//
//   node eval/eval.mjs [--json] [--slice N] [--preset name ...] [--family name ...]
//                      [--vetoes N] [--seed S] [--detector id] [--withheld]
//
// --slice N replays only the first N runs of each source; --vetoes N prints N would-be vetoes
// drawn at random (seed S, default 1; only `--detector`'s, only withheld ones with --withheld),
// with the refused call's real result and the same call's previous one, to be read one by one.
import fs from "node:fs";
import path from "node:path";
import { LoopGuard } from "tool-loop-guard";
import { EARLY_WARNING_CALLS, heavyLoop, loadRuns, resultHead, shadowReplay } from "./devset.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);
const PRESETS = ["default", "strict", "openclaw"];

function parseArgs(argv) {
  const options = { json: false, slice: null, presets: [], families: [], vetoes: 0, seed: 1, detector: null, withheld: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") options.json = true;
    else if (arg === "--slice") options.slice = Number(argv[++i]);
    else if (arg === "--preset") options.presets.push(argv[++i]);
    else if (arg === "--family") options.families.push(argv[++i]);
    else if (arg === "--vetoes") options.vetoes = Number(argv[++i]);
    else if (arg === "--seed") options.seed = Number(argv[++i]);
    else if (arg === "--detector") options.detector = argv[++i];
    else if (arg === "--withheld") options.withheld = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

const median = (values) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Loads the set: every run of every source in eval/index.json, in order, with what its run line
 * says of it (`meta`: solved, family, model, task, …); optionally the first N per source.
 */
function loadSet(slice, families) {
  const index = JSON.parse(fs.readFileSync(path.join(here, "index.json"), "utf8"));
  const runs = [];
  const seen = new Set();
  for (const source of index.sources) {
    let taken = 0;
    for (const trajectory of loadRuns([path.join(here, source.file)]).values()) {
      if (seen.has(trajectory.runId)) throw new Error(`run ${trajectory.runId} appears in two sources`);
      seen.add(trajectory.runId);
      const family = trajectory.meta.family ?? source.family ?? source.id;
      if (families.length && !families.includes(family)) continue;
      if (slice !== null && taken >= slice) break;
      taken += 1;
      runs.push({ meta: { ...trajectory.meta, runId: trajectory.runId, source: source.id }, family, trajectory });
    }
  }
  const labelsFile = path.join(here, "labels.json");
  const labels = fs.existsSync(labelsFile) ? JSON.parse(fs.readFileSync(labelsFile, "utf8")).runs : [];
  return { runs, labels: new Map(labels.map((l) => [l.runId, l])) };
}

function emptyFigures() {
  return {
    runs: 0, calls: 0, solved: 0, solvedFirstWithheld: 0, runsVetoed: 0, vetoes: 0, costless: 0,
    heavy: 0, heavyRefused: 0, heavyWarnedEarly: 0, lags: [], resultBytes: 0, notResent: 0,
    labelled: { loop: 0, loopRefused: 0, legitimate: 0, legitimateRefused: 0, mixed: 0, mixedRefused: 0 },
  };
}

function emptyDetector() {
  return { vetoes: 0, costless: 0, solvedVetoes: 0, solvedWithheld: 0, runs: new Set() };
}

function add(figures, run, replay, heavy, label) {
  const { vetoes, warnings, calls } = replay;
  figures.runs += 1;
  figures.calls += calls.length;
  figures.vetoes += vetoes.length;
  figures.resultBytes += replay.resultBytes;
  figures.notResent += replay.notResent;
  figures.costless += vetoes.filter((v) => v.costless).length;
  if (vetoes.length) figures.runsVetoed += 1;
  if (run.meta.solved === true) {
    figures.solved += 1;
    if (vetoes.length && !vetoes[0].costless) figures.solvedFirstWithheld += 1;
  }
  if (heavy) {
    figures.heavy += 1;
    const first = vetoes.find((v) => v.index >= heavy.onset);
    if (first) {
      figures.heavyRefused += 1;
      figures.lags.push(first.index - heavy.onset);
    }
    if (warnings.some((w) => w.index >= heavy.onset && w.index <= heavy.onset + EARLY_WARNING_CALLS)) figures.heavyWarnedEarly += 1;
  }
  if (label) {
    figures.labelled[label.label] += 1;
    if (vetoes.length) figures.labelled[`${label.label}Refused`] += 1;
  }
}

function finish(figures) {
  const { lags, ...rest } = figures;
  return { ...rest, medianLag: median(lags) };
}

function evaluate(preset, set) {
  const guard = new LoopGuard({ preset, policy: "shadow", ...(preset === "openclaw" ? {} : { sameAs: true }) });
  const total = emptyFigures();
  const byFamily = new Map();
  const byDetector = new Map();
  const vetoes = [];
  for (const run of set.runs) {
    const replay = shadowReplay(guard, run.trajectory, run.meta.runId);
    const heavy = heavyLoop(replay.calls);
    const label = set.labels.get(run.meta.runId);
    add(total, run, replay, heavy, label);
    if (!byFamily.has(run.family)) byFamily.set(run.family, emptyFigures());
    add(byFamily.get(run.family), run, replay, heavy, label);
    for (const veto of replay.vetoes) {
      const id = veto.detector ?? "none";
      if (!byDetector.has(id)) byDetector.set(id, emptyDetector());
      const d = byDetector.get(id);
      d.vetoes += 1;
      d.runs.add(run.meta.runId);
      if (veto.costless) d.costless += 1;
      if (run.meta.solved === true) {
        d.solvedVetoes += 1;
        if (!veto.costless) d.solvedWithheld += 1;
      }
      vetoes.push({ runId: run.meta.runId, family: run.family, solved: run.meta.solved, ...veto });
    }
  }
  guard.free();
  return {
    preset,
    total: finish(total),
    byFamily: Object.fromEntries([...byFamily].map(([k, v]) => [k, finish(v)])),
    byDetector: Object.fromEntries([...byDetector].map(([k, { runs, ...v }]) => [k, { ...v, runs: runs.size }])),
    vetoes,
  };
}

const pct = (n, d) => (d === 0 ? "—" : `${((100 * n) / d).toFixed(d >= 1000 ? 1 : 0)} %`);

function row(name, f) {
  const l = f.labelled;
  return `| ${name} | ${f.runs} | ${f.solved} | ${f.vetoes} | ${pct(f.costless, f.vetoes)} | ${f.solvedFirstWithheld} | ${f.heavy} | ${f.heavyRefused} (${pct(f.heavyRefused, f.heavy)}) | ${f.medianLag ?? "—"} | ${f.heavyWarnedEarly} (${pct(f.heavyWarnedEarly, f.heavy)}) | ${l.loopRefused}/${l.loop} · ${l.mixedRefused}/${l.mixed} · ${l.legitimateRefused}/${l.legitimate} |`;
}

function printTables(results, elapsedMs, set) {
  const labelled = set.runs.filter((r) => set.labels.has(r.meta.runId)).length;
  console.log(`development set: ${set.runs.length} runs (${labelled} hand-labelled), replayed under policy "shadow" in ${(elapsedMs / 1000).toFixed(1)} s`);
  for (const { preset, total, byFamily, byDetector } of results) {
    console.log(`\n## preset: ${preset}\n`);
    console.log("| family | runs | solved | vetoes | costless | solved runs, first veto withheld | heavy loops | heavy refused | median lag | heavy warned ≤ 3 calls | labelled refused: loop · mixed · legitimate |");
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    console.log(row("**all**", total));
    for (const [family, f] of Object.entries(byFamily).sort()) console.log(row(family, f));
    if (total.notResent > 0) {
      const bytes = (f) => `${(f.notResent / 1e6).toFixed(2)} of ${(f.resultBytes / 1e6).toFixed(1)} MB (${pct(f.notResent, f.resultBytes)})`;
      const families = Object.entries(byFamily).filter(([, f]) => f.resultBytes > 0).map(([name, f]) => `${name} ${bytes(f)}`);
      console.log(`\nresult bytes repeating an earlier identical result of the same call (sameAs; not resent by a host that drops them): ${bytes(total)}; ${families.join("; ")}`);
    }
    console.log("\n| detector | vetoes | costless | runs | vetoes in solved runs | of them withheld |");
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const [id, d] of Object.entries(byDetector).sort()) {
      console.log(`| ${id} | ${d.vetoes} | ${pct(d.costless, d.vetoes)} | ${d.runs} | ${d.solvedVetoes} | ${d.solvedWithheld} |`);
    }
  }
}

/** A small deterministic generator, so a sample of vetoes can be drawn again. */
function sampler(seed) {
  let state = BigInt(seed) || 1n;
  return (n) => {
    state ^= state << 13n; state &= (1n << 64n) - 1n;
    state ^= state >> 7n;
    state ^= state << 17n; state &= (1n << 64n) - 1n;
    return Number(state % BigInt(n));
  };
}

function printVetoes(results, options) {
  for (const { preset, vetoes } of results) {
    let pool = vetoes.filter((v) => (options.detector === null || v.detector === options.detector) && (!options.withheld || !v.costless));
    const next = sampler(options.seed);
    const picked = [];
    while (picked.length < options.vetoes && pool.length) picked.push(pool.splice(next(pool.length), 1)[0]);
    picked.sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : a.index - b.index));
    console.log(`\n## ${picked.length} would-be vetoes under preset ${preset}\n`);
    for (const v of picked) {
      console.log(`- ${v.runId} call ${v.index} (${v.family}${v.solved === true ? ", solved" : ""}): ${v.action} by ${v.detector} (count ${v.count}), ${v.costless ? "costless" : "WITHHELD"}`);
      console.log(`  call: ${v.tool} ${JSON.stringify(v.step.args ?? {}).slice(0, 200)}`);
      console.log(`  real result: ${resultHead(v.step)}`);
      console.log(`  previous result of this call: ${v.previous ? resultHead(v.previous) : "(never made before)"}`);
      console.log(`  message: ${v.message}`);
    }
  }
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const set = loadSet(options.slice, options.families);
  const results = (options.presets.length ? options.presets : PRESETS).map((preset) => evaluate(preset, set));
  const elapsed = performance.now() - started;
  if (options.json) {
    const brief = results.map(({ vetoes, ...rest }) => rest);
    console.log(JSON.stringify({ runs: set.runs.length, elapsedMs: Math.round(elapsed), results: brief }, null, 1));
  } else {
    printTables(results, elapsed, set);
  }
  if (options.vetoes > 0) printVetoes(results, options);
}

main();
