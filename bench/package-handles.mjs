// Where the bench finds the built package (../pkg, the Node entry) and the handles it needs beyond
// the public API: the wasm instance's memory, an in-wasm sha256 if the bindings export one, and
// the .wasm file. The public entry exposes none of these; the wasm-bindgen web glue's initSync()
// returns the already-initialised instance's exports when called again.
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const PKG_URL = new URL("../pkg/", import.meta.url);
export const NODE_ENTRY = new URL("entries/node.js", PKG_URL);
export const PORTABLE_ENTRY = new URL("index.js", PKG_URL);
export const GLUE = new URL("tool_loop_guard.js", PKG_URL);
export const WASM_FILE = fileURLToPath(new URL("tool_loop_guard_bg.wasm", PKG_URL));

/** Fails with a clear message when pkg/ has not been built. */
export function requireBuiltPackage() {
  if (!fs.existsSync(fileURLToPath(NODE_ENTRY)) || !fs.existsSync(WASM_FILE)) {
    throw new Error("pkg/ is not built: run `npm run build` first");
  }
}

/** {LoopGuard, coreVersion, glue}: the package's Node entry (initialises the wasm on import) and its glue. */
export async function loadPackage() {
  requireBuiltPackage();
  const { LoopGuard, coreVersion } = await import(NODE_ENTRY.href);
  const glue = await import(GLUE.href);
  return { LoopGuard, coreVersion, glue };
}

/**
 * The live wasm instance's linear memory (call it once the package has instantiated the wasm, e.g.
 * after `new LoopGuard()`), or undefined when the glue does not hand it out.
 */
export function wasmMemory(glue) {
  const memory = typeof glue.wasmMemory === "function" ? glue.wasmMemory() : glue.initSync?.()?.memory;
  return memory instanceof WebAssembly.Memory ? memory : undefined;
}

/** SHA-256 of bytes computed inside the wasm module, when the bindings export `sha256(bytes)`. */
export function inWasmSha256(glue) {
  return typeof glue.sha256 === "function" ? glue.sha256 : undefined;
}
