// Runs in the browser page served by browser.mjs (tests/js/runtimes). `?mode=` chooses how the
// package is initialised; every mode then runs the whole corpus. The outcome goes to
// window.__report: {mode, notInitialized, sameWhileLoading, coreVersion, ms, results} or {error}.
//   default     init() with no input (fetches the .wasm next to the entry)
//   url, string init(URL) / init("https://...")
//   response    init(await fetch(...));   promise: init(fetch(...))
//   bytes       init(ArrayBuffer);        view: init(Uint8Array)
//   module      init(await WebAssembly.compileStreaming(fetch(...)))
//   retry       init(invalid bytes) rejects, then init() succeeds
//   inline      import "tool-loop-guard/inline" (synchronous, no init)
//   hostile     init(), then ../hostile-cases.mjs instead of the corpus: {mode, cases, retained}
import { hostileCases, nonRetentionScan } from "../hostile-cases.mjs";
import { runCorpus, windowKeyed } from "../scenario-runner.mjs";

const mode = new URLSearchParams(location.search).get("mode") ?? "default";

function codeOf(fn) {
  try {
    fn();
    return "no error";
  } catch (error) {
    return `${error?.name}:${error?.code}`;
  }
}

async function main() {
  const corpus = await (await fetch("/scenarios.json")).json();
  if (mode === "inline") {
    const api = await import("tool-loop-guard/inline");
    return { mode, ...measure(api, corpus) };
  }
  const api = await import("tool-loop-guard");
  if (mode === "hostile") {
    await api.init();
    const { currentRuntime } = await import(new URL("./instance.js", import.meta.resolve("tool-loop-guard")).href);
    return { mode, cases: hostileCases(api), retained: nonRetentionScan(api, () => currentRuntime().memory) };
  }
  const notInitialized = [codeOf(() => new api.LoopGuard()), codeOf(() => api.coreVersion())];
  const wasmUrl = new URL("tool_loop_guard_bg.wasm", import.meta.resolve("tool-loop-guard"));
  let sameWhileLoading = null;
  switch (mode) {
    case "default": {
      const first = api.init();
      sameWhileLoading = api.init() === first;
      await first;
      break;
    }
    case "url":
      await api.init(wasmUrl);
      break;
    case "string":
      await api.init(wasmUrl.href);
      break;
    case "response":
      await api.init(await fetch(wasmUrl));
      break;
    case "promise":
      await api.init(fetch(wasmUrl));
      break;
    case "bytes":
      await api.init(await (await fetch(wasmUrl)).arrayBuffer());
      break;
    case "view":
      await api.init(new Uint8Array(await (await fetch(wasmUrl)).arrayBuffer()));
      break;
    case "module":
      await api.init(await WebAssembly.compileStreaming(fetch(wasmUrl)));
      break;
    case "retry": {
      let rejected = false;
      await api.init(new Uint8Array([0, 0x61, 0x73, 0x6d, 9, 9, 9, 9])).catch(() => (rejected = true));
      if (!rejected) throw new Error("init() with invalid bytes did not reject");
      await api.init();
      break;
    }
    default:
      throw new Error(`unknown mode ${mode}`);
  }
  await api.init(); // idempotent once initialised
  return { mode, notInitialized, sameWhileLoading, ...measure(api, corpus) };
}

function measure(api, corpus) {
  const started = performance.now();
  const results = runCorpus(corpus, api);
  return { coreVersion: api.coreVersion(), ms: Math.round(performance.now() - started), windowKeyed: windowKeyed(api), results };
}

main().then(
  (report) => (window.__report = report),
  (error) => (window.__report = { mode, error: `${error?.name}: ${error?.message}\n${error?.stack}` }),
);
