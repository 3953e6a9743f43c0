// Runs the portable bad-input cases and the non-retention scan (../hostile-cases.mjs) through a
// package specifier inside whatever runtime executes this file (Deno, Bun, Node) and prints one
// JSON line: {runtime, cases, retained}. The wasm memory is read through the package's own
// instance.js at the root of the package (one module instance).
// Usage: <runtime> hostile-cli.mjs [specifier]
import process from "node:process";
import { hostileCases, nonRetentionScan } from "../hostile-cases.mjs";
import { runtimeName } from "./runtime-name.mjs";

const [specifier = "tool-loop-guard"] = process.argv.slice(2);
const api = await import(specifier);
const { currentRuntime } = await import(new URL("./instance.js", import.meta.resolve("tool-loop-guard/package.json")).href);
const runtime = runtimeName();
const cases = hostileCases(api);
const retained = nonRetentionScan(api, () => currentRuntime().memory);
console.log(JSON.stringify({ runtime, cases, retained }));
