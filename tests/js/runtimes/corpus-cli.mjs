// Runs the scenario corpus through a package specifier inside whatever runtime executes this file
// (Node, Deno, Bun) and prints one JSON line: the runtime, the file the specifier resolved to, the
// core version, whether its windows are keyed and the per-scenario results. Usage: <runtime> corpus-cli.mjs [specifier] [scenarios-dir]
// The specifier is resolved by the runtime itself, from the directory the runtime resolves this
// file's imports in, so its own export conditions pick the entry.
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { runCorpus, windowKeyed } from "../scenario-runner.mjs";
import { runtimeName } from "./runtime-name.mjs";

const [specifier = "tool-loop-guard", dir = new URL("../../scenarios/", import.meta.url).pathname] = process.argv.slice(2);
const corpus = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((file) => ({ file, scenario: JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) }));

const api = await import(specifier);
const runtime = runtimeName();
const started = performance.now();
const results = runCorpus(corpus, api);
console.log(
  JSON.stringify({
    runtime,
    resolved: import.meta.resolve(specifier),
    coreVersion: api.coreVersion(),
    ms: Math.round(performance.now() - started),
    windowKeyed: windowKeyed(api),
    results,
  }),
);
