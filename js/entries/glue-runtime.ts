/**
 * The runtime of the ESM entries that instantiate the wasm-bindgen glue synchronously (Node
 * `import`, Deno, workerd, `./inline`): each supplies only how it gets the compiled module.
 */
import type { BytesHasher, TextHasher } from "../encode.js";
import { currentRuntime, setRuntime } from "../instance.js";
import type { RandomFill, WasmRuntime } from "../runtime.js";
import * as glue from "../tool_loop_guard.js";

/** A loader that instantiates `compiled()` on first use (and the same runtime after that). */
export function glueRuntime(
  compiled: () => WebAssembly.Module,
  hashText?: TextHasher,
  hashBytes?: BytesHasher,
  randomFill?: RandomFill,
): () => WasmRuntime {
  return () => {
    const ready = currentRuntime();
    if (ready !== undefined) return ready;
    glue.initSync({ module: compiled() });
    return setRuntime(glue, hashText, hashBytes, randomFill);
  };
}
