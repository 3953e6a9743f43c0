/**
 * Node.js entry for `import` (also used by Bun): compiles the `.wasm` shipped next to this file
 * synchronously, so the package is ready on import. Large result texts are hashed with node:crypto.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { install } from "./instance.js";
import * as glue from "./tool_loop_guard.js";

const bytes = readFileSync(new URL("./tool_loop_guard_bg.wasm", import.meta.url));
glue.initSync({ module: new WebAssembly.Module(bytes) });
install(glue, (text) => createHash("sha256").update(text).digest("hex"));

export * from "./public.js";
export { alreadyInitialised as init } from "./instance.js";
