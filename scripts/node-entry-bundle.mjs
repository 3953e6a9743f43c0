// The package's Node entries (pkg/entries/node.js for import, which Bun loads too, and
// pkg/cjs/entries/node-cjs.js for require) each as one module instead of the graph tsc emits.
// Node pays a fixed cost per module (resolve, read, compile, link): the ESM entry's graph was 14
// modules, ~10 ms of a fresh process's import on Node 24, against ~4 ms for the bundled entry and
// the four modules it kept separate, and ~2 ms since those four are one (bench/first-verdict.mjs,
// row (k)).
//
// Not inlined into an entry: the modules whose identity or state other modules of the package
// share. errors.js (the LoopGuardError class, which the adapters throw and hosts test with
// `instanceof`), instance.js (the one runtime of the glue, also reached by tests and the other
// entries), runtime.js (its class, shared with instance.js) and the wasm-bindgen glue (one wasm
// instance per module graph, whatever entry or internal module instantiates it). For `import`
// they are merged into one module, pkg/shared.js, and each of them stays at its path as a module
// that re-exports its names from there, so every module of the package that imports one of them
// still meets the one class and the one instance; the ESM Node entry loads shared.js alone. (Each
// module it loaded cost a fresh Node 24 process ~0.4 ms of CPU.) Everything else is private to
// the entry and inlined.
import fs from "node:fs";
import path from "node:path";
import * as esbuild from "esbuild";

/** The shared ES modules (relative to pkg/) and the one module they are merged into. */
const SHARED_ESM = ["errors.js", "runtime.js", "instance.js", "tool_loop_guard.js"];
const MERGED_ESM = "shared.js";

/** Each entry (relative to pkg/), its module format and the modules it keeps separate. */
export const NODE_ENTRIES = [
  { entry: "entries/node.js", format: "esm", shared: SHARED_ESM, mergedInto: MERGED_ESM },
  {
    entry: "cjs/entries/node-cjs.js",
    format: "cjs",
    shared: ["cjs/errors.js", "cjs/instance.js", "cjs/runtime.js", "tool_loop_guard_node.cjs"],
  },
];

/**
 * Merges the shared ES modules of `pkgDir` into one, then rewrites each of NODE_ENTRIES as one
 * module that loads only its shared modules (or the module they were merged into).
 */
export async function bundleNodeEntries(pkgDir) {
  const pkg = path.resolve(pkgDir);
  await mergeShared(pkg, SHARED_ESM, MERGED_ESM);
  for (const { entry, format, shared, mergedInto } of NODE_ENTRIES) {
    await bundleEntry(pkg, entry, format, shared, mergedInto);
  }
}

/**
 * Writes the modules `names` (ES modules in `pkg`, none importing anything but each other) as the
 * one module `merged`, and each of them as `export { its names } from "./<merged>"`.
 */
async function mergeShared(pkg, names, merged) {
  const exportsOf = {};
  for (const name of names) {
    const { metafile } = await esbuild.build({
      entryPoints: [path.join(pkg, name)],
      absWorkingDir: pkg,
      outdir: pkg,
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "warning",
    });
    exportsOf[name] = Object.values(metafile.outputs)[0].exports;
  }
  const reexports = names.map((name) => `export { ${exportsOf[name].join(", ")} } from "./${name}";`);
  const result = await esbuild.build({
    stdin: { contents: reexports.join("\n"), resolveDir: pkg, sourcefile: merged },
    absWorkingDir: pkg,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    write: false,
    logLevel: "warning",
    banner: { js: `// ${names.join(", ")} as one module, merged by scripts/node-entry-bundle.mjs.` },
  });
  const [output] = result.outputFiles;
  if (/^import |\bimport\(/m.test(output.text)) throw new Error(`the merged ${merged} loads other modules`);
  fs.writeFileSync(path.join(pkg, merged), output.text);
  for (const name of names) {
    const facade = [
      `// Merged into ${merged} by scripts/node-entry-bundle.mjs: one module for the entries to load.`,
      `export { ${exportsOf[name].join(", ")} } from "./${merged}";`,
    ];
    fs.writeFileSync(path.join(pkg, name), `${facade.join("\n")}\n`);
  }
}

async function bundleEntry(pkg, entry, format, sharedNames, mergedInto) {
  const file = path.join(pkg, entry);
  const shared = new Set(sharedNames.map((name) => path.join(pkg, name)));
  const keepShared = {
    name: "keep-shared-modules",
    setup(build) {
      build.onResolve({ filter: /\.c?js$/ }, (args) => {
        const target = path.resolve(args.resolveDir, args.path);
        if (!shared.has(target)) return undefined;
        const loaded = mergedInto === undefined ? target : path.join(pkg, mergedInto);
        return { path: path.relative(path.dirname(file), loaded).split(path.sep).join("/"), external: true };
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
  const allowed = mergedInto === undefined ? shared : new Set([path.join(pkg, mergedInto)]);
  const unexpected = loaded.filter((specifier) => !allowed.has(path.resolve(path.dirname(file), specifier)));
  if (unexpected.length > 0) throw new Error(`the bundled ${entry} loads ${unexpected.join(", ")}`);
  fs.writeFileSync(file, output.text);
}
