// The package's Node entry (pkg/entries/node.js, which Bun loads too) as one module instead of the
// graph tsc emits. Node's ESM loader pays a fixed cost per module (resolve, read, compile, link):
// the entry's graph was 14 modules, ~10 ms of a fresh process's import on Node 24, against ~4 ms
// for the bundled entry and the four modules it keeps separate (bench/first-verdict.mjs, row (k)).
//
// Kept as separate modules, imported by their path in pkg/: those whose identity or state other
// modules of the package share. errors.js (the LoopGuardError class, which the adapters throw and
// hosts test with `instanceof`), instance.js (the one runtime of the glue, also reached by
// tests and the other entries), runtime.js (its class, shared with instance.js) and the
// wasm-bindgen glue tool_loop_guard.js (one wasm instance per module graph, whatever entry or
// internal module instantiates it). Everything else is private to the entry and inlined.
import fs from "node:fs";
import path from "node:path";
import * as esbuild from "esbuild";

/** The modules at the root of pkg/ that stay separate (see above). */
export const SHARED_MODULES = ["errors.js", "instance.js", "runtime.js", "tool_loop_guard.js"];

/** Rewrites `<pkg>/entries/node.js` as one ES module importing only SHARED_MODULES. */
export async function bundleNodeEntry(pkgDir) {
  const pkg = path.resolve(pkgDir);
  const entry = path.join(pkg, "entries", "node.js");
  const shared = new Set(SHARED_MODULES.map((name) => path.join(pkg, name)));
  const keepShared = {
    name: "keep-shared-modules",
    setup(build) {
      build.onResolve({ filter: /\.js$/ }, (args) => {
        const file = path.resolve(args.resolveDir, args.path);
        if (!shared.has(file)) return undefined;
        return { path: path.relative(path.dirname(entry), file).split(path.sep).join("/"), external: true };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: pkg,
    banner: { js: "// The Node entry (js/entries/node.ts) and the wrapper's private modules, bundled by scripts/node-entry-bundle.mjs." },
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    write: false,
    logLevel: "warning",
    plugins: [keepShared],
  });
  const [output] = result.outputFiles;
  const imported = [...output.text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
  const unexpected = imported.filter((specifier) => !SHARED_MODULES.includes(path.posix.basename(specifier)));
  if (unexpected.length > 0) throw new Error(`the bundled Node entry imports ${unexpected.join(", ")}`);
  fs.writeFileSync(entry, output.text);
}
