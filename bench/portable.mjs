// Row (f) of the bench, run by bench/run.mjs in a child process: 1 MiB text results through the
// package's portable entry (pkg/index.js, what browsers and Workers without nodejs_compat load),
// which has no native hasher, so the core hashes every byte with its own SHA-256 inside wasm.
// Prints JSON: ns per check+record, and the in-wasm SHA-256 of the same bytes if exported.
import fs from "node:fs";
import { wasmSha256Ns } from "./hashing.mjs";
import { GLUE, inWasmSha256, PORTABLE_ENTRY, requireBuiltPackage, WASM_FILE } from "./package-handles.mjs";
import { compareSides } from "./timing.mjs";
import { largeText } from "./workloads.mjs";

const ROUNDS = Number(process.argv[2] ?? 5);
const MB = 1024 * 1024;

requireBuiltPackage();
const { init, LoopGuard } = await import(PORTABLE_ENTRY.href);
await init(new WebAssembly.Module(fs.readFileSync(WASM_FILE)));
const glue = await import(GLUE.href);

const steps = largeText(30, MB);
const side = { name: "portable", create: () => new LoopGuard(), dispose: (guard) => guard.free() };
const { ns } = compareSides([side], steps, ROUNDS).portable;
const bytes = Buffer.from(steps[0].outcome.result.content[0].text, "utf8");
process.stdout.write(JSON.stringify({ ns, wasmShaNs: wasmSha256Ns(inWasmSha256(glue), bytes, 11) ?? null }));
