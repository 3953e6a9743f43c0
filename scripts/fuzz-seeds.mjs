#!/usr/bin/env node
// Writes the seed corpora of the fuzz targets (fuzz/) from the scenario corpus, into the directory
// given (one sub-directory per target): the call and outcome records of every step (json_reader),
// their args (canonical), results and errors (outcome) and every scenario's config (config).
// snapshot and guard_ops build their own structured inputs and start from one empty seed.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = process.argv[2];
if (!out) throw new Error("usage: node scripts/fuzz-seeds.mjs <corpus directory>");

const seeds = { json_reader: new Set(), canonical: new Set(), outcome: new Set(), config: new Set(), snapshot: new Set([""]), guard_ops: new Set([""]) };
const RECORD_KEYS = ["runId", "tool", "args", "callId", "at", "result", "error"];
const scenarios = path.join(root, "tests", "scenarios");
for (const file of fs.readdirSync(scenarios).filter((name) => name.endsWith(".json"))) {
  const scenario = JSON.parse(fs.readFileSync(path.join(scenarios, file), "utf8"));
  if (scenario.config !== undefined) seeds.config.add(JSON.stringify(scenario.config));
  for (const step of scenario.steps ?? []) {
    const record = Object.fromEntries(RECORD_KEYS.filter((key) => key in step).map((key) => [key, step[key]]));
    seeds.json_reader.add(JSON.stringify(record));
    if (step.args !== undefined) seeds.canonical.add(JSON.stringify(step.args));
    for (const key of ["result", "error"]) if (step[key] !== undefined) seeds.outcome.add(JSON.stringify(step[key]));
  }
}
for (const [target, texts] of Object.entries(seeds)) {
  const dir = path.join(out, target);
  fs.mkdirSync(dir, { recursive: true });
  for (const text of texts) fs.writeFileSync(path.join(dir, crypto.createHash("sha1").update(text).digest("hex")), text);
  console.log(`[fuzz-seeds] ${target}: ${texts.size} seeds`);
}
