/**
 * Deno entry: synchronous. The `.wasm` comes from a source-phase import (`import source`, see
 * deno-wasm.js), i.e. as a compiled WebAssembly.Module loaded like any module: no file-read
 * permission is needed. It is instantiated on the first `new LoopGuard()` (or `coreVersion()`,
 * `init()`), not at import.
 */
import wasmModule from "./deno-wasm.js";
import { coreVersionOf, guardOn, syncInit } from "../entry.js";
import { glueRuntime } from "./glue-runtime.js";

export * from "../public.js";

const runtime = glueRuntime(() => wasmModule);

// The same exports as every entry's (see entry.ts for why each entry spells them out).

/**
 * A loop guard: `check()` before each tool call, `record()` after it. Guards are independent; each
 * keeps the state of its runs in wasm memory until `free()` (or garbage collection). The
 * constructor throws LoopGuardError code `invalid_config`, naming the field, for an invalid config.
 */
export class LoopGuard extends guardOn(runtime) {}

/** The version of the Rust core inside the `.wasm`. */
export const coreVersion = coreVersionOf(runtime);

/** Not needed with this entry (it is synchronous); instantiates the `.wasm` now. The input is ignored. */
export const init = syncInit(runtime);
