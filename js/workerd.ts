/**
 * Cloudflare Workers (workerd) entry: the `.wasm` is imported statically, so the runtime hands it
 * over as a compiled WebAssembly.Module (Workers cannot compile wasm from bytes at run time).
 */
import { install } from "./instance.js";
import * as glue from "./tool_loop_guard.js";
import wasmModule from "./tool_loop_guard_bg.wasm";

glue.initSync({ module: wasmModule });
install(glue);

export * from "./public.js";
export { alreadyInitialised as init } from "./instance.js";
