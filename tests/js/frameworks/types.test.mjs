// The adapters describe their frameworks by shape only (no framework import): this compiles
// types/consumers.ts, each adapter's documented use, against the real frameworks' declarations,
// so a shape that drifts from a framework's own types fails here.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = path.join(here, "..", "..", "..", "node_modules", "typescript", "bin", "tsc");

test("every adapter's documented use type-checks against its framework's declarations", () => {
  const args = ["--noEmit", "--strict", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext"];
  // skipLibCheck: the frameworks' own .d.ts files are not ours to check (some need DOM types).
  const result = spawnSync(process.execPath, [tsc, ...args, "--skipLibCheck", "--types", "node", "types/consumers.ts"], {
    cwd: here,
    encoding: "utf8",
  });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});
