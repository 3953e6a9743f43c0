// The package's Node entries (pkg/entries/node.js for import, which Bun loads too, and
// pkg/cjs/entries/node-cjs.js for require) each as one module instead of the graph tsc emits.
// Node pays a fixed cost per module (resolve, read, compile, link): the ESM entry's graph was 14
// modules, ~10 ms of a fresh process's import on Node 24, against ~4 ms for the bundled entry and
// the four modules it keeps separate (bench/first-verdict.mjs, row (k)).
//
// Kept as separate modules, loaded by their path in pkg/: those whose identity or state other
// modules of the package share. errors.js (the LoopGuardError class, which the adapters throw and
// hosts test with `instanceof`), instance.js (the one runtime of the glue, also reached by tests
// and the other entries), runtime.js (its class, shared with instance.js) and the wasm-bindgen
// glue (one wasm instance per module graph, whatever entry or internal module instantiates it).
// Everything else is private to the entry and inlined.
import fs from "node:fs";
import path from "node:path";
import * as esbuild from "esbuild";

/** Each entry (relative to pkg/), its module format and the modules it keeps separate. */
export const NODE_ENTRIES = [
  { entry: "entries/node.js", format: "esm", shared: ["errors.js", "instance.js", "runtime.js", "tool_loop_guard.js"] },
  {
    entry: "cjs/entries/node-cjs.js",
    format: "cjs",
    shared: ["cjs/errors.js", "cjs/instance.js", "cjs/runtime.js", "tool_loop_guard_node.cjs"],
  },
];

/** Rewrites each of NODE_ENTRIES in `pkgDir` as one module that loads only its shared modules. */
export async function bundleNodeEntries(pkgDir) {
  const pkg = path.resolve(pkgDir);
  for (const { entry, format, shared } of NODE_ENTRIES) await bundleEntry(pkg, entry, format, shared);
}

async function bundleEntry(pkg, entry, format, sharedNames) {
  const file = path.join(pkg, entry);
  const shared = new Set(sharedNames.map((name) => path.join(pkg, name)));
  const keepShared = {
    name: "keep-shared-modules",
    setup(build) {
      build.onResolve({ filter: /\.c?js$/ }, (args) => {
        const target = path.resolve(args.resolveDir, args.path);
        if (!shared.has(target)) return undefined;
        return { path: path.relative(path.dirname(file), target).split(path.sep).join("/"), external: true };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [file],
    absWorkingDir: pkg,
    bundle: true,
    format,
    platform: "neutral",
    target: "es2022",
    write: false,
    logLevel: "warning",
    banner: { js: `// The Node entry and the wrapper's private modules, bundled by scripts/node-entry-bundle.mjs.` },
    plugins: [keepShared],
  });
  const [output] = result.outputFiles;
  const loaded = [...output.text.matchAll(/(?:^import .* from |\brequire\()"([^"]+)"/gm)].map((m) => m[1]);
  const unexpected = loaded.filter((specifier) => !shared.has(path.resolve(path.dirname(file), specifier)));
  if (unexpected.length > 0) throw new Error(`the bundled ${entry} loads ${unexpected.join(", ")}`);
  fs.writeFileSync(file, output.text);
}
