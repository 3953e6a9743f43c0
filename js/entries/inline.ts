/**
 * `tool-loop-guard/inline`: synchronous, for environments without file or URL access to the
 * package (single-file bundles, some sandboxes). The `.wasm` is embedded as base64 and compiled
 * from those bytes on the first `new LoopGuard()` (or `coreVersion()`, `init()`), not at import.
 * Not usable in Cloudflare Workers (workerd), which refuse to compile wasm from bytes: use the
 * main entry there. Uses only `atob` and WebAssembly, no Node built-ins.
 */
import { coreVersionOf, guardOn, syncInit } from "../entry.js";
import { glueRuntime } from "./glue-runtime.js";
import wasmBase64 from "../tool_loop_guard_bg_base64.js";

export * from "../public.js";

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const runtime = glueRuntime(() => new WebAssembly.Module(decodeBase64(wasmBase64)));

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
