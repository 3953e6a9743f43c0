/**
 * Portable entry (`browser` and `default` conditions): no Node built-ins, nothing runs at import.
 * `await init()` once before `new LoopGuard()`; it loads the `.wasm` next to this file unless given
 * a URL, a fetch Response, the bytes or a compiled WebAssembly.Module. Unlike the runtime-specific
 * entries in entries/, it sits at the package root, where pages without a bundler import it by
 * path (`node_modules/tool-loop-guard/index.js`).
 */
import { coreVersionOf, guardOn } from "./entry.js";
import { currentRuntime, notInitialized, setRuntime } from "./instance.js";
import type { WasmRuntime } from "./runtime.js";
import initGlue, * as glue from "./tool_loop_guard.js";
import type { InitInput } from "./types.js";

export * from "./public.js";

let pending: Promise<void> | undefined;

/**
 * Loads and instantiates the `.wasm` once. Idempotent: a call while loading returns the same
 * promise, a call after success resolves at once (its input is ignored), a failed load may be
 * retried. Without `input` it fetches `tool_loop_guard_bg.wasm` next to this module.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void> {
  if (currentRuntime() !== undefined) return Promise.resolve();
  pending ??= initGlue({ module_or_path: input ?? new URL("./tool_loop_guard_bg.wasm", import.meta.url) }).then(
    () => {
      setRuntime(glue);
    },
    (error: unknown) => {
      pending = undefined;
      throw error;
    },
  );
  return pending;
}

function runtime(): WasmRuntime {
  return currentRuntime() ?? notInitialized();
}

/**
 * A loop guard: `check()` before each tool call, `record()` after it. Guards are independent; each
 * keeps the state of its runs in wasm memory until `free()` (or garbage collection). The
 * constructor throws LoopGuardError: `invalid_config` (naming the field), or `not_initialized`
 * before `init()` has finished.
 */
export class LoopGuard extends guardOn(runtime) {}

/** The version of the Rust core inside the `.wasm`. */
export const coreVersion = coreVersionOf(runtime);
