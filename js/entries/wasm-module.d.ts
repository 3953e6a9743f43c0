// Build-time declaration for the workerd entry: a static `.wasm` import is a compiled module there.
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
