// Row (i) of the bench, run by bench/run.mjs in fresh child processes (a warm process would reuse
// V8's compiled module): the package's Node init path timed step by step — read the .wasm, compile
// it (`new WebAssembly.Module`), instantiate and start it through the glue's initSync — as JSON.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { GLUE, requireBuiltPackage, WASM_FILE } from "./package-handles.mjs";

requireBuiltPackage();
const glue = await import(GLUE.href);
const t0 = performance.now();
const bytes = fs.readFileSync(WASM_FILE);
const t1 = performance.now();
const module = new WebAssembly.Module(bytes);
const t2 = performance.now();
glue.initSync({ module });
const t3 = performance.now();
process.stdout.write(JSON.stringify({ readMs: t1 - t0, compileMs: t2 - t1, initMs: t3 - t2 }));
