// Declaration of deno-wasm.js (hand-written JavaScript, copied into pkg/ by scripts/build.mjs).
declare const wasmModule: WebAssembly.Module;
export default wasmModule;
