// Every code snippet of README.md, docs/adapters.md and the npm package's README
// (pkg-template/README.md) (each ```ts block, and the module script of
// each ```html block, after a `<!-- snippet: name -->` marker) is put between the context that
// binds the names it leaves free (snippets/contexts.mjs, with the scripted models and tools of
// snippets/fixtures.ts) and compiled with `tsc --strict` against the pinned frameworks' own
// declarations, by TypeScript 5.9.3 (the workspace's) and 7.0.2 (`typescript-7` here), together
// with types/consumers.ts (each adapter's use in every AI SDK major); then each snippet runs (the
// 5.9 output, under this Node) and asserts what its docs promise. ```json blocks must parse.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CONTEXTS } from "./snippets/contexts.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..", "..", "..");
const DOCS = ["README.md", "docs/adapters.md", "pkg-template/README.md"];
const work = path.join(here, ".snippets");
const TSC = {
  "5.9.3": path.join(root, "node_modules", "typescript", "bin", "tsc"),
  "7.0.2": path.join(here, "node_modules", "typescript-7", "bin", "tsc"),
};

/** The fenced blocks of a markdown text: [{lang, code, marker, line}]. */
function blocks(text) {
  const found = [];
  const fence = /^(?:<!-- snippet: ([\w-]+) -->\n)?```(\w*)\n([\s\S]*?)^```$/gm;
  for (let match; (match = fence.exec(text)) !== null; ) {
    found.push({ marker: match[1], lang: match[2], code: match[3], line: text.slice(0, match.index).split("\n").length });
  }
  return found;
}

const all = DOCS.flatMap((doc) => blocks(fs.readFileSync(path.join(root, doc), "utf8")).map((block) => ({ ...block, doc })));
const snippets = all.filter((block) => ["ts", "js", "html"].includes(block.lang));

/** The TypeScript of a snippet: the code, or the module script of an HTML block. */
function codeOf(block) {
  if (block.lang !== "html") return block.code;
  const script = /<script type="module">\n([\s\S]*?)<\/script>/.exec(block.code);
  assert.ok(script, `${block.doc}:${block.line}: an html snippet holds a module script`);
  return script[1];
}

const tsc = (version, args) => spawnSync(process.execPath, [TSC[version], ...args], { cwd: work, encoding: "utf8", timeout: 300_000 });

before(() => {
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(path.join(work, "node_modules"), { recursive: true });
  // The browser snippet imports ./node_modules/tool-loop-guard/index.js, as a page next to an install would.
  fs.symlinkSync(path.join(root, "pkg"), path.join(work, "node_modules", "tool-loop-guard"), "dir");
  fs.copyFileSync(path.join(here, "snippets", "fixtures.ts"), path.join(work, "fixtures.ts"));
  fs.copyFileSync(path.join(here, "types", "consumers.ts"), path.join(work, "consumers.ts"));
  for (const block of snippets) {
    const context = CONTEXTS[block.marker];
    if (context === undefined) continue;
    fs.writeFileSync(path.join(work, `${block.marker}.ts`), `${context.prelude}\n${codeOf(block)}\n${context.postlude}`);
    if (context.driver !== undefined) fs.writeFileSync(path.join(work, `${block.marker}.driver.ts`), context.driver);
  }
  const compilerOptions = {
    strict: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    // The frameworks' own .d.ts files are not ours to check (some need DOM types).
    skipLibCheck: true,
    types: ["node"],
    outDir: "out",
  };
  fs.writeFileSync(path.join(work, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }, null, 2));
});

after(() => fs.rmSync(work, { recursive: true, force: true }));

test("every code snippet of the READMEs and docs/adapters.md is marked and has its context", () => {
  const unmarked = snippets.filter((block) => block.marker === undefined).map((block) => `${block.doc}:${block.line}`);
  assert.deepEqual(unmarked, [], "a ```ts/```js/```html block without a <!-- snippet: name --> marker");
  const markers = snippets.map((block) => block.marker);
  assert.equal(new Set(markers).size, markers.length, "snippet names are unique");
  assert.deepEqual(markers.filter((name) => CONTEXTS[name] === undefined), [], "snippets without a context in snippets/contexts.mjs");
  assert.deepEqual(Object.keys(CONTEXTS).filter((name) => !markers.includes(name)), [], "contexts of snippets that are gone");
});

test("every ```json block parses", () => {
  for (const block of all.filter((b) => b.lang === "json")) assert.doesNotThrow(() => JSON.parse(block.code), `${block.doc}:${block.line}`);
});

for (const version of Object.keys(TSC)) {
  test(`TypeScript ${version}: every snippet compiles with --strict against the frameworks' declarations`, () => {
    const result = tsc(version, version === "5.9.3" ? ["-p", "tsconfig.json"] : ["-p", "tsconfig.json", "--noEmit"]);
    assert.equal(result.status, 0, `tsc ${version}:\n${result.stdout}${result.stderr}`);
    assert.match(tsc(version, ["--version"]).stdout, new RegExp(version.replaceAll(".", "\\.")));
  });
}

for (const block of snippets.filter((b) => CONTEXTS[b.marker]?.run !== false)) {
  test(`${block.doc}:${block.line} (${block.marker}) runs and does what its docs say`, () => {
    const file = path.join(work, "out", `${block.marker}${CONTEXTS[block.marker].driver === undefined ? "" : ".driver"}.js`);
    assert.ok(fs.existsSync(file), "compiled by TypeScript 5.9.3 first");
    const result = spawnSync(process.execPath, [file], { cwd: work, encoding: "utf8", timeout: 60_000, env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: "1" } });
    assert.equal(result.status, 0, result.stdout + result.stderr);
  });
}
