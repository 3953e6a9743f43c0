// The compiled `.wasm` for the Deno entry, by a source-phase import: Deno loads it like any module
// (no --allow-read needed, unlike reading the file). Plain JavaScript, copied into pkg/entries/ as it is,
// because TypeScript cannot emit `import source` yet; declared by deno-wasm.d.ts.
import source wasmModule from "../tool_loop_guard_bg.wasm";

export default wasmModule;
