#!/usr/bin/env node
// Proves that the committed compact fixtures replay exactly like the full conversion: every run's
// refusals (index, action, detector, count) and first warning are the same under every preset.
//
//   node eval/build-devset.mjs --mirrors <dir> --full /tmp/devset-full
//   node eval/check-compact.mjs /tmp/devset-full
import fs from "node:fs";
import path from "node:path";
import { LoopGuard } from "tool-loop-guard";
import { loadRuns, replayRun } from "./devset.mjs";

const fullDir = process.argv[2];
if (!fullDir) throw new Error("usage: node eval/check-compact.mjs <dir of the full conversion>");
const here = path.dirname(new URL(import.meta.url).pathname);
const index = JSON.parse(fs.readFileSync(path.join(here, "index.json"), "utf8"));
const compact = loadRuns(index.sources.map((s) => path.join(here, s.file)));
const full = loadRuns(index.sources.map((s) => path.join(fullDir, `${s.id}.jsonl`)));

let differences = 0;
for (const preset of ["default", "strict"]) {
  const a = new LoopGuard({ preset });
  const b = new LoopGuard({ preset });
  for (const [runId, trajectory] of compact) {
    const x = JSON.stringify(replayRun(a, trajectory));
    const y = JSON.stringify(replayRun(b, full.get(runId)));
    if (x !== y) {
      differences += 1;
      console.log(`${preset} ${runId}: compact ${x} / full ${y}`);
    }
  }
  a.free();
  b.free();
}
console.log(`${compact.size} runs x 2 presets: ${differences} differences between compact and full replays`);
process.exit(differences ? 1 : 0);
