#!/usr/bin/env node
// Builds the npm package into pkg/: the Rust core compiled to wasm32, wasm-bindgen glue (ESM
// `web` glue for every entry, plus the CommonJS `nodejs` glue for require), wasm-opt, the
// TypeScript wrapper (ESM and CommonJS), package.json/README/LICENSE from pkg-template/.
// Then links node_modules/tool-loop-guard -> pkg so tests and the demo import the built package,
// and prints raw and gzipped sizes.
//
// wasm-pack is not used: it cannot pass --experimental-reset-state-function to wasm-bindgen, and
// that flag is what lets the wrapper replace a trapped wasm instance (see js/runtime.ts). The
// steps are the ones wasm-pack runs (cargo build, wasm-bindgen, wasm-opt with the flags from
// [package.metadata.wasm-pack.profile.release] in Cargo.toml).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

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

// What Cargo knows: version, library name, target directory, wasm-opt flags.
const metadata = JSON.parse(run("cargo", ["metadata", "--no-deps", "--format-version", "1"], { capture: true }));
const crate = metadata.packages.find((p) => p.manifest_path === path.join(root, "Cargo.toml"));
const lib = crate.targets.find((t) => t.kind.includes("cdylib")).name.replaceAll("-", "_");
const wasmOptFlags = crate.metadata?.["wasm-pack"]?.profile?.release?.["wasm-opt"] ?? ["-O"];

// The wasm-bindgen CLI must be the exact version the crate links against.
const lockFile = path.join(root, "Cargo.lock");
const locked = fs.existsSync(lockFile)
  ? /\[\[package\]\]\nname = "wasm-bindgen"\nversion = "([^"]+)"/.exec(fs.readFileSync(lockFile, "utf8"))?.[1]
  : undefined;
const cli = run("wasm-bindgen", ["--version"], { capture: true }).trim().split(" ")[1];
if (locked !== undefined && cli !== locked) fail(`wasm-bindgen CLI is ${cli}, Cargo.lock wants ${locked}`);

const cargoArgs = ["build", "--lib", "--release", "--target", "wasm32-unknown-unknown"];
run("cargo", fs.existsSync(lockFile) ? [...cargoArgs, "--locked"] : cargoArgs);
const input = path.join(metadata.target_directory, "wasm32-unknown-unknown", "release", `${lib}.wasm`);

// Glue: `web` (ESM, initSync/init) for all ESM entries, `nodejs` (CommonJS) for require.
const webDir = path.join(build, "wasm");
const nodeDir = path.join(build, "wasm-node");
for (const [target, dir] of [["web", webDir], ["nodejs", nodeDir]]) {
  fs.rmSync(dir, { recursive: true, force: true });
  run("wasm-bindgen", ["--target", target, "--experimental-reset-state-function", "--out-dir", dir, input]);
}
const wasmFile = path.join(webDir, `${lib}_bg.wasm`);
if (!fs.readFileSync(wasmFile).equals(fs.readFileSync(path.join(nodeDir, `${lib}_bg.wasm`)))) {
  fail("the web and nodejs targets produced different .wasm files; the package ships only one");
}
run("wasm-opt", [wasmFile, "-o", wasmFile, ...wasmOptFlags]);

// The wrapper, compiled twice.
fs.rmSync(path.join(build, "esm"), { recursive: true, force: true });
fs.rmSync(path.join(build, "cjs"), { recursive: true, force: true });
run("tsc", ["-p", "js/tsconfig.json"]);
run("tsc", ["-p", "js/tsconfig.cjs.json"]);

// Assemble pkg/.
fs.rmSync(pkg, { recursive: true, force: true });
fs.mkdirSync(path.join(pkg, "cjs"), { recursive: true });
const copy = (from, to) => fs.copyFileSync(from, path.join(pkg, to));
for (const name of fs.readdirSync(path.join(build, "esm"))) copy(path.join(build, "esm", name), name);
for (const name of fs.readdirSync(path.join(build, "cjs"))) copy(path.join(build, "cjs", name), path.join("cjs", name));
fs.writeFileSync(path.join(pkg, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
copy(path.join(webDir, `${lib}.js`), `${lib}.js`);
copy(path.join(webDir, `${lib}.d.ts`), `${lib}.d.ts`);
copy(wasmFile, `${lib}_bg.wasm`);
copy(path.join(nodeDir, `${lib}.js`), `${lib}_node.cjs`);
const manifest = JSON.parse(fs.readFileSync(path.join(root, "pkg-template", "package.json"), "utf8"));
manifest.version = crate.version;
fs.writeFileSync(path.join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
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
  const kind = rel.endsWith(".wasm") ? "wasm" : /\.c?js$/.test(rel) ? (rel.startsWith("cjs/") || rel.endsWith(".cjs") ? "js (require)" : "js (import)") : null;
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

function listFiles(dir, prefix = "") {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  ).sort();
}
