// The package as users get it: `import` and `require` of "tool-loop-guard" both work in Node and
// agree; `npm pack` of pkg/ installs into a fresh project and works there, offline.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as esm from "tool-loop-guard";

const require = createRequire(import.meta.url);
const pkgDir = fileURLToPath(new URL("../../../pkg/", import.meta.url));
const CALL = { tool: "update_task", args: { id: 1 } };

function verdicts(api) {
  const guard = new api.LoopGuard({ preset: "strict" });
  const out = [];
  for (let i = 0; i < 6; i++) {
    const v = guard.check(CALL);
    out.push(`${v.action}:${v.detector}`);
    if (v.action === "allow" || v.action === "warn") guard.record({ ...CALL, result: "same" });
  }
  guard.free();
  return out;
}

test("import and require resolve to the ESM and CommonJS builds and agree", () => {
  const cjs = require("tool-loop-guard");
  assert.match(require.resolve("tool-loop-guard"), /cjs[\\/]node-cjs\.js$/);
  assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
  assert.deepEqual(Object.keys(esm).sort(), ["LoopGuard", "LoopGuardError", "coreVersion", "init"]);
  assert.equal(cjs.coreVersion(), esm.coreVersion());
  assert.deepEqual(verdicts(cjs), verdicts(esm));
  assert.deepEqual(verdicts(esm).slice(3), ["block:generic_repeat", "block:generic_repeat", "stop:global_circuit_breaker"]);
  assert.throws(() => new cjs.LoopGuard({ historySize: 0 }), (e) => e instanceof cjs.LoopGuardError && e.code === "invalid_config");
});

test("npm pack of pkg/ installs into a new project, where import and require work", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-consumer-"));
  try {
    const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const tarball = npm(["pack", "--json", "--pack-destination", tmp], pkgDir);
    const [{ filename, files }] = JSON.parse(tarball);
    const shipped = files.map((f) => f.path);
    for (const name of ["package.json", "README.md", "LICENSE", "tool_loop_guard_bg.wasm", "node.js", "index.d.ts", "cjs/node-cjs.js", "cjs/package.json"]) {
      assert.ok(shipped.includes(name), `${name} is missing from the tarball`);
    }
    fs.writeFileSync(path.join(tmp, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    npm(["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", path.join(tmp, filename)], tmp);
    const script = 'const v = new LoopGuard().check({tool: "t"}); console.log(v.action, coreVersion());';
    const node = (args) => execFileSync(process.execPath, args, { cwd: tmp, encoding: "utf8" }).trim();
    const imported = node(["--input-type=module", "-e", `import { LoopGuard, coreVersion } from "tool-loop-guard"; ${script}`]);
    const required = node(["-e", `const { LoopGuard, coreVersion } = require("tool-loop-guard"); ${script}`]);
    assert.equal(imported, `allow ${esm.coreVersion()}`);
    assert.equal(required, imported);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
