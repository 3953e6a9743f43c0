#!/usr/bin/env node
// Builds the npm package into pkg/: the Rust core compiled to wasm32, wasm-bindgen glue (ESM
// `web` glue for every entry, plus the CommonJS `nodejs` glue for require), wasm-opt, the
// TypeScript wrapper (ESM and CommonJS; the Node entry then bundled into one module by esbuild),
// package.json/README/LICENSE from pkg-template/.
// Then links node_modules/tool-loop-guard -> pkg so tests and the demo import the built package,
// and prints raw and gzipped sizes.
//
// The tools: cargo, the wasm-bindgen CLI (scripts/setup.sh installs the version Cargo.lock pins),
// binaryen's wasm-opt and tsc (npm devDependencies). wasm-pack is not used: it cannot pass
// --experimental-reset-state-function to wasm-bindgen, and that flag is what lets the wrapper
// replace a trapped wasm instance (see js/runtime.ts).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { bundleNodeEntries } from "./node-entry-bundle.mjs";
import { WASM_GZIP_BUDGET } from "./wasm-budget.mjs";
import { WASM_OPT_FLAGS } from "./wasm-opt-flags.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const build = path.join(root, "build");
const pkg = path.join(root, "pkg");
process.env.PATH = `${path.join(root, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`;

function log(message) {
  console.log(`[build] ${message}`);
}

function fail(message) {
  console.error(`[build] error: ${message}`);
  process.exit(1);
}

function run(command, args, { capture = false } = {}) {
  if (!capture) log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    cwd: root,
    encoding: "utf8",
    stdio: capture ? ["ignore", "pipe", "inherit"] : "inherit",
  });
  if (result.error) fail(`${command}: ${result.error.message}`);
  if (result.status !== 0) fail(`${command} exited with status ${result.status}`);
  return result.stdout;
}

function requireTool(name, hint) {
  if (spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status !== 0) {
    fail(`${name} not found on PATH (${hint})`);
  }
}

requireTool("cargo", "install Rust with rustup");
requireTool("wasm-bindgen", "run scripts/setup.sh");
requireTool("wasm-opt", "npm ci installs it from the binaryen package");
requireTool("tsc", "npm ci installs typescript");

// What Cargo knows: version, library name, target directory.
const metadata = JSON.parse(run("cargo", ["metadata", "--no-deps", "--format-version", "1"], { capture: true }));
const crate = metadata.packages.find((p) => p.manifest_path === path.join(root, "Cargo.toml"));
const lib = crate.targets.find((t) => t.kind.includes("cdylib")).name.replaceAll("-", "_");

// The wasm-bindgen CLI must be the exact version the crate links against.
const lockFile = path.join(root, "Cargo.lock");
const locked = fs.existsSync(lockFile)
  ? /\[\[package\]\]\nname = "wasm-bindgen"\nversion = "([^"]+)"/.exec(fs.readFileSync(lockFile, "utf8"))?.[1]
  : undefined;
const cli = run("wasm-bindgen", ["--version"], { capture: true }).trim().split(" ")[1];
if (locked !== undefined && cli !== locked) fail(`wasm-bindgen CLI is ${cli}, Cargo.lock wants ${locked}`);

const cargoArgs = ["build", "--lib", "--release", "--target", "wasm32-unknown-unknown"];
run("cargo", fs.existsSync(lockFile) ? [...cargoArgs, "--locked"] : cargoArgs);
const linked = path.join(metadata.target_directory, "wasm32-unknown-unknown", "release", `${lib}.wasm`);
// wasm-bindgen's input: the linked module without its target_features section. Rust's prebuilt
// std for wasm32 is compiled with `multivalue`, so the section lists it, and wasm-bindgen would
// then turn every export that returns a string, bytes or a Result into a function with several
// results. V8 11 (Node 20) compiles a JS-to-wasm wrapper for each such signature while compiling
// the module: about 2.5 ms of the 4.5 ms of `new WebAssembly.Module`. Without the section,
// wasm-bindgen keeps the return-pointer convention, whose signatures V8's generic wrapper serves
// without compiling anything (tests/js/node/wasm-module.test.mjs checks). The Rust ABI never
// returns several values, so no code changes. wasm-opt runs no passes here; -g keeps the function
// names, from which wasm-bindgen names the exports the glue calls (`__wbindgen_malloc`, ...).
// binaryen can only drop the whole section, not one entry of it, so `--reference-types` tells
// wasm-bindgen the other feature it reads there (externref glue; a flag hidden from the CLI's
// help as "inferred from the Wasm features", kept by the 0.2.129 that Cargo.toml pins).
fs.mkdirSync(build, { recursive: true });
const input = path.join(build, `${lib}.wasm`);
run("wasm-opt", [linked, "-g", "--strip-target-features", "-o", input]);

// Glue: `web` (ESM, initSync/init) for all ESM entries, `nodejs` (CommonJS) for require.
const webDir = path.join(build, "wasm");
const nodeDir = path.join(build, "wasm-node");
for (const [target, dir] of [["web", webDir], ["nodejs", nodeDir]]) {
  fs.rmSync(dir, { recursive: true, force: true });
  run("wasm-bindgen", ["--target", target, "--reference-types", "--experimental-reset-state-function", "--out-dir", dir, input]);
}
const wasmFile = path.join(webDir, `${lib}_bg.wasm`);
if (!fs.readFileSync(wasmFile).equals(fs.readFileSync(path.join(nodeDir, `${lib}_bg.wasm`)))) {
  fail("the web and nodejs targets produced different .wasm files; the package ships only one");
}
run("wasm-opt", [wasmFile, "-o", wasmFile, ...WASM_OPT_FLAGS]);

// The `.wasm` as base64, for the `./inline` entry (environments without file or URL access).
const base64Module = `${lib}_bg_base64`;
fs.writeFileSync(
  path.join(webDir, `${base64Module}.js`),
  `// ${lib}_bg.wasm (after wasm-opt) as base64; generated by scripts/build.mjs.\nexport default "${fs.readFileSync(wasmFile).toString("base64")}";\n`,
);
fs.writeFileSync(path.join(webDir, `${base64Module}.d.ts`), "declare const wasmBase64: string;\nexport default wasmBase64;\n");

// The wrapper, compiled twice.
fs.rmSync(path.join(build, "esm"), { recursive: true, force: true });
fs.rmSync(path.join(build, "cjs"), { recursive: true, force: true });
run("tsc", ["-p", "js/tsconfig.json"]);
run("tsc", ["-p", "js/tsconfig.cjs.json"]);

// Assemble pkg/.
fs.rmSync(pkg, { recursive: true, force: true });
const copy = (from, to) => fs.copyFileSync(from, path.join(pkg, to));
// The layout of js/: the wrapper at the root, entries/, adapters/, replay/, cli/.
fs.cpSync(path.join(build, "esm"), pkg, { recursive: true });
fs.cpSync(path.join(build, "cjs"), path.join(pkg, "cjs"), { recursive: true });
fs.writeFileSync(path.join(pkg, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
copy(path.join(webDir, `${lib}.js`), `${lib}.js`);
copy(path.join(webDir, `${lib}.d.ts`), `${lib}.d.ts`);
copy(wasmFile, `${lib}_bg.wasm`);
copy(path.join(webDir, `${base64Module}.js`), `${base64Module}.js`);
copy(path.join(webDir, `${base64Module}.d.ts`), `${base64Module}.d.ts`);
// Hand-written JavaScript that tsc cannot emit (Deno's `import source` of the .wasm).
copy(path.join(root, "js", "entries", "deno-wasm.js"), path.join("entries", "deno-wasm.js"));
copy(path.join(root, "js", "entries", "deno-wasm.d.ts"), path.join("entries", "deno-wasm.d.ts"));
copy(path.join(nodeDir, `${lib}.js`), `${lib}_node.cjs`);
// The Node entries (import, require) as one module each: fewer modules to load (node-entry-bundle.mjs).
await bundleNodeEntries(pkg);
const manifest = JSON.parse(fs.readFileSync(path.join(root, "pkg-template", "package.json"), "utf8"));
// Version and repository have one source: Cargo.toml.
manifest.version = crate.version;
manifest.repository = { type: "git", url: crate.repository };
fs.writeFileSync(path.join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
for (const bin of Object.values(manifest.bin ?? {})) fs.chmodSync(path.join(pkg, bin), 0o755);
copy(path.join(root, "pkg-template", "README.md"), "README.md");
copy(path.join(root, "pkg-template", "LICENSE"), "LICENSE");

// node_modules/tool-loop-guard -> ../pkg: tests and the demo import the package by its name.
const link = path.join(root, "node_modules", manifest.name);
fs.mkdirSync(path.dirname(link), { recursive: true });
fs.rmSync(link, { recursive: true, force: true });
fs.symlinkSync(path.relative(path.dirname(link), pkg), link, "dir");

// Sizes.
const rows = [];
const totals = new Map();
for (const rel of listFiles(pkg)) {
  const kind = rel.endsWith(".wasm")
    ? "wasm"
    : rel === `${base64Module}.js`
      ? "wasm as base64 (./inline)"
      : /\.c?js$/.test(rel)
        ? rel.startsWith("cjs/") || rel.endsWith(".cjs") ? "js (require)" : "js (import)"
        : null;
  if (kind === null) continue;
  const bytes = fs.readFileSync(path.join(pkg, rel));
  const gz = zlib.gzipSync(bytes, { level: 9 }).length;
  rows.push([rel, bytes.length, gz]);
  const t = totals.get(kind) ?? [0, 0];
  totals.set(kind, [t[0] + bytes.length, t[1] + gz]);
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
log(`pkg/ ${manifest.name}@${manifest.version}: raw / gzip -9`);
for (const [rel, raw, gz] of rows) console.log(`  ${rel.padEnd(32)} ${kb(raw).padStart(10)} ${kb(gz).padStart(10)}`);
for (const [kind, [raw, gz]] of totals) console.log(`  ${`total ${kind}`.padEnd(32)} ${kb(raw).padStart(10)} ${kb(gz).padStart(10)}`);
const wasmGzip = totals.get("wasm")?.[1] ?? 0;
log(`.wasm gzip -9 ${kb(wasmGzip)} of the ${kb(WASM_GZIP_BUDGET)} budget: ${wasmGzip <= WASM_GZIP_BUDGET ? "within" : `OVER by ${kb(wasmGzip - WASM_GZIP_BUDGET)}`}`);

function listFiles(dir, prefix = "") {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  ).sort();
}
