// wasm-opt's optimisation of the shipped .wasm: run by scripts/build.mjs, and with -g (the same
// .wasm with its function names) by scripts/first-verdict-functions.mjs. The target_features
// section that wasm-bindgen writes names only reference-types (scripts/build.mjs says why), so the
// features the Rust target uses are named here; the shipped .wasm carries no section.
//
// -O3 inlines every function that has a single caller, whatever its size, which undid the Rust
// side's out-of-line error paths and made the first path's functions large: V8 compiles a wasm
// function whole on its first call, so a fresh process's first verdict compiled them all. Capped
// at 400 (binaryen's size units), the first verdict compiled ~97 KB of wasm, not ~148 KB
// (scripts/first-verdict-functions.mjs lists them).
export const WASM_OPT_FLAGS = [
  "-O3",
  "--one-caller-inline-max-function-size=400",
  "--converge",
  "--strip-producers",
  "--strip-target-features",
  "--enable-bulk-memory",
  "--enable-nontrapping-float-to-int",
  "--enable-sign-ext",
  "--enable-mutable-globals",
  "--enable-multivalue",
  "--enable-reference-types",
];
