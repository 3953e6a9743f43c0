// The package's shape, read from pkg/: the exports map (conditions in the order runtimes resolve
// them, the ./inline and ./package.json subpaths, every target shipped), sideEffects: false, and
// module hygiene: no top-level await anywhere; in the entries for workerd, browsers, Deno and
// ./inline no Node built-ins or bare imports in their whole module graph; no randomness or clock
// reads at module load; the .wasm imports nothing random. Then, dynamically: importing an entry
// does no work (the .wasm is instantiated on the first LoopGuard), so `sideEffects: false` is true.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { manifestOf, moduleGraph, pkgDir } from "../runtimes/support.mjs";

const manifest = manifestOf(pkgDir);

test("the exports map lists the conditions in the order runtimes resolve them", () => {
  assert.deepEqual(Object.keys(manifest.exports), [
    ".", "./inline", "./replay", "./ai-sdk", "./openai-agents", "./langchain", "./mcp", "./mastra", "./openclaw", "./otel", "./package.json",
  ]);
  // Each condition carries its own types (Node's require its CommonJS ones), so no tool reads CommonJS
  // types for an ESM file or the reverse (publint --strict, in tests/js/runtimes/packaging.test.mjs).
  assert.deepEqual(Object.keys(manifest.exports["."]), ["workerd", "browser", "deno", "bun", "node", "types", "default"]);
  const esm = (file) => ({ types: "./index.d.ts", default: file });
  assert.deepEqual(manifest.exports["."], {
    workerd: esm("./entries/workerd.js"),
    browser: esm("./index.js"),
    deno: esm("./entries/deno.js"),
    bun: esm("./entries/node.js"),
    node: { import: esm("./entries/node.js"), require: { types: "./cjs/entries/node-cjs.d.ts", default: "./cjs/entries/node-cjs.js" } },
    types: "./index.d.ts",
    default: "./index.js",
  });
  for (const [subpath, [types]] of Object.entries(manifest.typesVersions["*"])) assert.equal(types, manifest.exports[`./${subpath}`].types, `typesVersions of ${subpath} (TypeScript's node10 resolution)`);
  assert.deepEqual(manifest.exports["./inline"], { types: "./entries/inline.d.ts", default: "./entries/inline.js" });
  assert.deepEqual(manifest.exports["./replay"], { types: "./replay/index.d.ts", default: "./replay/index.js" });
  for (const adapter of ["ai-sdk", "openai-agents", "langchain", "mcp", "mastra", "openclaw", "otel"]) {
    assert.deepEqual(manifest.exports[`./${adapter}`], { types: `./adapters/${adapter}.d.ts`, default: `./adapters/${adapter}.js` });
  }
  assert.equal(manifest.exports["./package.json"], "./package.json");
  assert.equal(manifest.sideEffects, false);
  assert.equal(manifest.type, "module");
});

test("every export target is in pkg/ and in the files list", () => {
  const targets = [];
  const walk = (value) => (typeof value === "string" ? targets.push(value) : Object.values(value).forEach(walk));
  walk(manifest.exports);
  for (const target of [...targets, manifest.main, manifest.module, manifest.types]) {
    assert.ok(fs.existsSync(path.join(pkgDir, target)), `${target} is missing`);
    if (target === "./package.json") continue; // npm always packs it
    const rel = path.posix.normalize(target);
    const listed = manifest.files.some((pattern) =>
      pattern.endsWith("/") ? rel.startsWith(pattern) : new RegExp(`^${pattern.replace(".", "\\.").replace("*", "[^/]*")}$`).test(rel),
    );
    assert.ok(listed, `${target} is not covered by "files"`);
  }
});

/** Every ES module file of the package (not the CommonJS build, not the CLI, which runs at load). */
const esModules = [
  ...fs.readdirSync(pkgDir).filter((f) => f.endsWith(".js")),
  ...fs.readdirSync(path.join(pkgDir, "entries")).filter((f) => f.endsWith(".js")).map((f) => `entries/${f}`),
  ...fs.readdirSync(path.join(pkgDir, "replay"), { recursive: true }).filter((f) => f.endsWith(".js")).map((f) => `replay/${f}`),
  ...fs.readdirSync(path.join(pkgDir, "adapters")).filter((f) => f.endsWith(".js")).map((f) => `adapters/${f}`),
];

/** Calls `visit(node, atLoad)` for every node; atLoad: the code runs when the module is evaluated. */
function walkModule(file, visit) {
  const text = fs.readFileSync(path.join(pkgDir, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const deferred = (node) =>
    ts.isFunctionLike(node) ||
    (ts.isPropertyDeclaration(node) && !node.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword));
  const go = (node, atLoad) => {
    visit(node, atLoad, source);
    const inner = atLoad && !deferred(node);
    ts.forEachChild(node, (child) => go(child, inner));
  };
  go(source, true);
}

test("no module of the package uses top-level await", () => {
  const found = [];
  for (const file of esModules) {
    walkModule(file, (node, atLoad, source) => {
      const awaits = ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier !== undefined);
      if (awaits && atLoad) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    });
  }
  assert.deepEqual(found, []);
});

const NON_NODE_ENTRIES = { workerd: "./entries/workerd.js", browser: "./index.js", deno: "./entries/deno.js", inline: "./entries/inline.js", replay: "./replay/index.js" };
// The framework adapters import nothing at run time, their frameworks included (types only).
for (const adapter of ["ai-sdk", "openai-agents", "langchain", "mcp", "mastra", "openclaw", "otel"]) NON_NODE_ENTRIES[adapter] = `./adapters/${adapter}.js`;

for (const [name, entry] of Object.entries(NON_NODE_ENTRIES)) {
  test(`the ${name} entry's module graph has no Node built-ins, bare imports or require()`, () => {
    const { files, external } = moduleGraph(pkgDir, entry);
    assert.deepEqual(external, []);
    for (const file of files.filter((f) => f.endsWith(".js"))) {
      const text = fs.readFileSync(path.join(pkgDir, file), "utf8");
      assert.doesNotMatch(text, /\brequire\s*\(|["']node:|getBuiltinModule/, `${file} uses require() or a node: module`);
    }
  });
}

test("the graph check sees Node built-ins where they belong (entries/node.js), so it is not vacuous", () => {
  // The Node entry takes them with process.getBuiltinModule on first use, not by an import: an ESM
  // import of node:crypto loads all of its lazily loaded parts, ~10 ms of a first verdict.
  const { files, external } = moduleGraph(pkgDir, "./entries/node.js");
  assert.deepEqual(external, []);
  const taken = files
    .filter((f) => f.endsWith(".js"))
    .flatMap((f) => [...fs.readFileSync(path.join(pkgDir, f), "utf8").matchAll(/getBuiltinModule\("(node:\w+)"\)/g)].map((m) => m[1]));
  assert.deepEqual([...new Set(taken)].sort(), ["node:crypto", "node:fs"]);
});

test("no randomness or clock reads at module load, in any module", () => {
  const found = [];
  const banned = /^(Math\.random|crypto\.\w+|globalThis\.crypto|Date\.now|performance\.now|process\.\w+)$/;
  for (const file of esModules) {
    walkModule(file, (node, atLoad, source) => {
      if (!atLoad) return;
      const text = ts.isPropertyAccessExpression(node) ? node.getText(source) : ts.isNewExpression(node) ? `new ${node.expression.getText(source)}` : "";
      if (banned.test(text) || text === "new Date") found.push(`${file}: ${text}`);
    });
  }
  assert.deepEqual(found, []);
});

test("the .wasm imports nothing that gives randomness or time", () => {
  const module = new WebAssembly.Module(fs.readFileSync(path.join(pkgDir, "tool_loop_guard_bg.wasm")));
  const names = WebAssembly.Module.imports(module).map((i) => i.name);
  assert.ok(names.length > 0);
  assert.deepEqual(names.filter((n) => /random|crypto|date|now|performance|time/i.test(n)), []);
});

test("importing the entries does no work: the .wasm is instantiated on first use", async () => {
  const instance = await import(new URL("instance.js", `file://${pkgDir}/`).href);
  const node = await import(new URL("entries/node.js", `file://${pkgDir}/`).href);
  await import(new URL("index.js", `file://${pkgDir}/`).href);
  await import(new URL("entries/inline.js", `file://${pkgDir}/`).href);
  assert.equal(instance.currentRuntime(), undefined, "an entry instantiated the .wasm at import");
  new node.LoopGuard().free();
  assert.notEqual(instance.currentRuntime(), undefined);
});

test("the replay library compiles without Node or DOM types: it uses no runtime-specific global", () => {
  const root = path.join(pkgDir, "..", "js", "replay");
  const program = ts.createProgram([path.join(root, "index.ts")], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: [],
    strict: true,
    noEmit: true,
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(errors, []);
  assert.ok(program.getSourceFiles().some((f) => f.fileName.endsWith("replay/engine.ts")));
});
