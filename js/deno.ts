/**
 * Deno entry: reads the `.wasm` next to this file synchronously (needs read permission for the
 * package directory), so the package is ready on import without Node built-ins.
 */
import { install } from "./instance.js";
import * as glue from "./tool_loop_guard.js";

declare const Deno: { readFileSync(path: URL): Uint8Array<ArrayBuffer> };

const bytes = Deno.readFileSync(new URL("./tool_loop_guard_bg.wasm", import.meta.url));
glue.initSync({ module: new WebAssembly.Module(bytes) });
install(glue);

export * from "./public.js";
export { alreadyInitialised as init } from "./instance.js";
