/**
 * Cloudflare Workers (workerd) entry: synchronous. The `.wasm` is imported statically, so workerd
 * (or wrangler's bundler) hands it over as a compiled WebAssembly.Module: Workers cannot compile
 * wasm from bytes at run time. It is instantiated on the first `new LoopGuard()` (or
 * `coreVersion()`, `init()`), not at import.
 */
import { coreVersionOf, guardOn, syncInit } from "../entry.js";
import { glueRuntime } from "./glue-runtime.js";
import wasmModule from "../tool_loop_guard_bg.wasm";

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
