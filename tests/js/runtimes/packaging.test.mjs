// The package as users get it: `npm pack` of pkg/, installed (offline) into a fresh temporary
// project, then imported there in every runtime — Node 22, 24 and 26 (import and require), Deno
// (without any permission for the package), Bun, workerd (bundled by esbuild with wrangler's
// conditions, the way a Worker project builds it) and Chromium — each running the corpus; and a
// TypeScript consumer compiled against the shipped types with moduleResolution "bundler" and
// "nodenext" (ESM and CommonJS files), skipLibCheck off; the package's bin run by npx; and the
// tarball linted by publint (strict) and @arethetypeswrong/cli (pinned devDependencies, offline).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { launchChromium, startPageServer } from "./browser.mjs";
import { assertCorpus, binary, loadCorpus, pkgDir, root, run, runJson, scenariosDir } from "./support.mjs";
import { startWorkerd } from "./workerd.mjs";

const corpus = loadCorpus();
const here = path.join(root, "tests", "js", "runtimes");
let tmp;
let project;
let installed;
let tarball;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-consumer-"));
  project = path.join(tmp, "project");
  fs.mkdirSync(path.join(project, "runner"), { recursive: true });
  const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  [tarball] = JSON.parse(npm(["pack", "--json", "--pack-destination", tmp], pkgDir));
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  npm(["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", path.join(tmp, tarball.filename)], project);
  installed = path.join(project, "node_modules", "tool-loop-guard");
  assert.ok(!fs.lstatSync(installed).isSymbolicLink(), "the tarball was installed as a copy");
  // The corpus runner, next to the consumer's node_modules so that it imports the installed package.
  fs.copyFileSync(path.join(root, "tests", "js", "scenario-runner.mjs"), path.join(project, "scenario-runner.mjs"));
  fs.copyFileSync(path.join(here, "corpus-cli.mjs"), path.join(project, "runner", "corpus-cli.mjs"));
  fs.copyFileSync(path.join(here, "runtime-name.mjs"), path.join(project, "runner", "runtime-name.mjs"));
  fs.copyFileSync(path.join(here, "workerd-worker.mjs"), path.join(project, "workerd-worker.mjs"));
});

after(() => {
  if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
});

test("the tarball ships every entry, the .wasm, the types, README and LICENSE, and nothing else", () => {
  const shipped = tarball.files.map((f) => f.path).sort();
  for (const name of [
    "package.json", "README.md", "LICENSE", "tool_loop_guard_bg.wasm", "tool_loop_guard_bg_base64.js",
    "entries/node.js", "index.js", "entries/workerd.js", "entries/deno.js", "entries/deno-wasm.js", "entries/inline.js",
    "cjs/entries/node-cjs.js", "cjs/package.json", "index.d.ts", "entries/inline.d.ts", "cjs/entries/node-cjs.d.ts", "tool_loop_guard_node.cjs", "replay/index.js", "replay/index.d.ts",
    "cli/main.js",
    "adapters/ai-sdk.js", "adapters/openai-agents.js", "adapters/langchain.js", "adapters/mcp.js", "adapters/mastra.js", "adapters/openclaw.js", "adapters/otel.js", "adapters/mcp.d.ts",
  ]) {
    assert.ok(shipped.includes(name), `${name} is missing from the tarball`);
  }
  const unexpected = shipped.filter((f) => !/^(cjs\/(entries\/)?|entries\/|replay\/(formats\/)?|cli\/|adapters\/)?[\w.-]+\.(js|cjs|d\.ts|wasm|json)$|^(README\.md|LICENSE)$/.test(f));
  assert.deepEqual(unexpected, []);
});

test("the packed README stands on its own: no relative link, no pointer to a document the tarball lacks", () => {
  // The prose, without code blocks (`tools[tool](args)` is code, not a link).
  const readme = fs.readFileSync(path.join(root, "pkg", "README.md"), "utf8").replace(/```[\s\S]*?```/g, "");
  const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^(https?:|#)/.test(t));
  assert.deepEqual(targets, [], "relative links do not resolve on the registry's page");
  const shipped = new Set(tarball.files.map((f) => f.path));
  const named = [...readme.matchAll(/\b((?:docs|examples)\/[\w./-]+)/g)].map((m) => m[1]).filter((f) => !shipped.has(f));
  assert.deepEqual(named, [], "files named that the package does not ship");
  assert.doesNotMatch(readme, /the repository README|in the repository/, "a document only the repository has");
});

test("publint --strict: the tarball's package.json, exports and types are clean", () => {
  const result = run(process.execPath, [path.join(root, "node_modules", "publint", "src", "cli.js"), "--strict", path.join(tmp, tarball.filename)], { cwd: tmp });
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /All good!/);
});

test("@arethetypeswrong/cli: every entry resolves with types everywhere; the subpaths are ESM-only, as the README says", async () => {
  // The CLI's own engine, for the list of problems (its JSON on a pipe can be cut short at exit).
  const { checkPackage, createPackageFromTarballData } = await import("@arethetypeswrong/core");
  const analysis = await checkPackage(createPackageFromTarballData(new Uint8Array(fs.readFileSync(path.join(tmp, tarball.filename)))));
  const cli = path.join(root, "node_modules", "@arethetypeswrong", "cli", "dist", "index.js");
  const subpaths = Object.keys(JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).exports).filter((p) => p !== "." && p !== "./package.json");
  // The one finding, argued in the README ("CommonJS"): a require() of a subpath needs `await import()`.
  assert.deepEqual(
    analysis.problems.map((p) => `${p.kind} ${p.entrypoint} ${p.resolutionKind}`).sort(),
    subpaths.map((p) => `CJSResolvesToESM ${p} node16-cjs`).sort(),
  );
  const ignored = run(process.execPath, [cli, path.join(tmp, tarball.filename), "--no-definitely-typed", "--ignore-rules", "cjs-resolves-to-esm"], { cwd: tmp });
  assert.equal(ignored.status, 0, ignored.stdout + ignored.stderr);
});

test("the installed bin: npx tool-loop-guard replay prints a timeline and exits 1 on a refused loop", () => {
  const sample = path.join(root, "tests", "replay", "samples", "gateway.jsonl");
  const npx = (args) => spawnSync("npx", ["--no-install", "tool-loop-guard", ...args], { cwd: project, encoding: "utf8" });
  assert.ok(fs.existsSync(path.join(project, "node_modules", ".bin", "tool-loop-guard")), "npm linked the bin");
  const text = npx(["replay", sample]);
  assert.equal(text.stderr, "");
  assert.match(text.stdout, /^run update-loop  jsonl · /m);
  assert.match(text.stdout, /^ +1 +update_task +\{"id":7,"status":"done"\} +allow/m);
  assert.match(text.stdout, /^total: 2 runs, 12 calls;/m);
  assert.equal(text.status, /^total: .* 0 refused/m.test(text.stdout) ? 0 : 1);
  const strict = npx(["replay", "--preset", "strict", "--json", sample]);
  const lines = strict.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(lines.at(-1).type, "total");
  assert.ok(lines.at(-1).runsRefused > 0, "strict refuses the update loop");
  assert.equal(strict.status, 1);
  const bad = npx(["replay", path.join(root, "package.json")]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /package\.json: not a trajectory format/);
});

/** The installed package's corpus report in one runtime. */
function corpusIn(command, prefixArgs, specifier) {
  return runJson(command, [...prefixArgs, path.join(project, "runner", "corpus-cli.mjs"), specifier, scenariosDir], { cwd: project });
}

const script = `const g = new LoopGuard({ preset: "strict" }); const v = []; for (let i = 0; i < 4; i++) { v.push(g.check({ tool: "t" }).action); g.record({ tool: "t", result: "same" }); } console.log(v.join(","), coreVersion());`;
/** What `script` prints with the repository's pkg/ in this process. */
async function expectedOutput() {
  const { LoopGuard, coreVersion } = await import("tool-loop-guard");
  const lines = [];
  new Function("LoopGuard", "coreVersion", "console", script)(LoopGuard, coreVersion, { log: (...a) => lines.push(a.join(" ")) });
  return lines.join("\n");
}

for (const nodeName of ["node22", "node24", "node26"]) {
  test(`${nodeName}: import, require, ./inline and ./package.json of the installed package`, async () => {
    const node = binary(nodeName);
    const exec = (args) => execFileSync(node, args, { cwd: project, encoding: "utf8" }).trim();
    const imported = exec(["--input-type=module", "-e", `import { LoopGuard, coreVersion } from "tool-loop-guard"; ${script}`]);
    const required = exec(["--input-type=commonjs", "-e", `const { LoopGuard, coreVersion } = require("tool-loop-guard"); ${script}`]);
    const inline = exec(["--input-type=module", "-e", `import { LoopGuard, coreVersion } from "tool-loop-guard/inline"; ${script}`]);
    const version = exec(["--input-type=commonjs", "-e", `console.log(require("tool-loop-guard/package.json").version)`]);
    const resolved = exec(["--input-type=commonjs", "-e", `console.log(require.resolve("tool-loop-guard"))`]);
    assert.equal(imported, await expectedOutput());
    assert.match(imported, /block/);
    assert.equal(required, imported);
    assert.equal(inline, imported);
    assert.equal(version, JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).version);
    assert.equal(resolved, path.join(installed, "cjs", "entries", "node-cjs.js"));
    for (const specifier of ["tool-loop-guard", "tool-loop-guard/inline"]) {
      const report = corpusIn(node, [], specifier);
      await assertCorpus(report, corpus, `${report.runtime} installed ${specifier}`);
    }
  });
}

test("Deno: the installed package needs no permission (only the scenarios are readable) and runs the corpus", async () => {
  const flags = ["run", "--no-prompt", "--no-lock", "--no-remote", "--node-modules-dir=manual", `--allow-read=${scenariosDir}`];
  for (const [specifier, entry] of [["tool-loop-guard", "entries/deno.js"], ["tool-loop-guard/inline", "entries/inline.js"]]) {
    const report = corpusIn(binary("deno"), flags, specifier);
    assert.equal(report.resolved, pathToFileURL(path.join(installed, entry)).href);
    await assertCorpus(report, corpus, `${report.runtime} installed ${specifier}`);
  }
});

test("Bun: the installed package runs the corpus", async () => {
  for (const [specifier, entry] of [["tool-loop-guard", "entries/node.js"], ["tool-loop-guard/inline", "entries/inline.js"]]) {
    const report = corpusIn(binary("bun"), ["--no-install"], specifier);
    assert.equal(report.resolved, pathToFileURL(path.join(installed, entry)).href);
    await assertCorpus(report, corpus, `${report.runtime} installed ${specifier}`);
  }
});

test("workerd: a Worker bundled by esbuild with wrangler's conditions (the .wasm as a module) runs the corpus", async () => {
  const out = path.join(tmp, "worker-dist");
  const result = await esbuild.build({
    absWorkingDir: project,
    entryPoints: ["workerd-worker.mjs"],
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    loader: { ".wasm": "copy" },
    assetNames: "[name]",
    outdir: out,
    logLevel: "silent",
    metafile: true,
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => f.includes("node_modules/tool-loop-guard/"));
  assert.ok(inputs.some((f) => f.endsWith("/workerd.js")), `the bundle does not use workerd.js: ${inputs.join(", ")}`);
  const bundled = fs.readdirSync(out);
  assert.deepEqual(bundled.sort(), ["tool_loop_guard_bg.wasm", "workerd-worker.js"]);
  const server = await startWorkerd([
    {
      modules: [
        { name: "workerd-worker.js", file: path.join(out, "workerd-worker.js") },
        { name: "tool_loop_guard_bg.wasm", file: path.join(out, "tool_loop_guard_bg.wasm"), type: "wasm" },
      ],
    },
  ]);
  try {
    const response = await fetch(`${server.urls[0]}/corpus`, { method: "POST", body: JSON.stringify(corpus) });
    assert.equal(response.status, 200, server.output());
    await assertCorpus(await response.json(), corpus, "workerd (esbuild bundle of the installed package)");
  } finally {
    await server.stop();
  }
});

test("Chromium: the installed package's browser entry and ./inline run the corpus", async () => {
  const server = await startPageServer(installed);
  let chromium;
  try {
    chromium = await launchChromium(server.origin);
    for (const mode of ["default", "inline"]) {
      const { report, errors } = await chromium.open(`${server.origin}/?mode=${mode}`);
      assert.equal(report.error, undefined, report.error);
      assert.deepEqual(errors, []);
      await assertCorpus(report, corpus, `Chromium installed ${mode}`);
    }
    assert.deepEqual(chromium.blocked, []);
  } finally {
    await chromium?.close();
    await server.close();
  }
});

const CONSUMER_ESM = `// Uses every public name of the package, as a TypeScript consumer would.
import {
  coreVersion, init, LoopGuard, LoopGuardError,
  type Action, type DetectorId, type InitInput, type Level, type LoopGuardConfig, type LoopGuardErrorCode,
  type Refusal, type Stats, type ToolCall, type ToolOutcome, type ToolSettings, type Verdict,
} from "tool-loop-guard";
import { LoopGuard as InlineGuard, type Verdict as InlineVerdict } from "tool-loop-guard/inline";

const settings: ToolSettings = { kind: "poll", cap: { calls: 4, windowMs: 60_000 } };
const config: LoopGuardConfig = {
  preset: "strict",
  tools: { exec: settings },
  onVerdict: (verdict: Verdict, op: "check" | "record") => void [verdict.action, op],
};

export async function main(input?: InitInput): Promise<string> {
  await init(input);
  const guard = new LoopGuard(config);
  const call: ToolCall = { runId: "r", tool: "exec", args: { cmd: "ls" }, at: 0 };
  const verdict: Verdict = guard.check(call);
  const outcome: ToolOutcome = { ...call, result: { content: [{ type: "text", text: "ok" }] } };
  const recorded: InlineVerdict = guard.record(outcome);
  const action: Action = recorded.action;
  const level: Level = verdict.level;
  const detector: DetectorId | null = verdict.detector;
  const refusal: Refusal | undefined = verdict.refusal;
  const stats: Stats = guard.stats();
  const snapshot: Uint8Array = guard.exportRun("r");
  const restored: string | null = guard.importRun(snapshot);
  guard.compacted("r");
  guard.progress("r", "new data");
  guard.endRun("r");
  guard.free();
  let code: LoopGuardErrorCode | undefined;
  try {
    new InlineGuard({ warningThreshold: 0 });
  } catch (error) {
    if (error instanceof LoopGuardError) code = error.code;
  }
  // @ts-expect-error: actions are a closed union
  const wrong: "explode" = verdict.action;
  return [coreVersion(), action, level, detector, refusal?.mode, stats.checks, restored, code, wrong].join(" ");
}
`;

const CONSUMER_CJS = `// A CommonJS file of the consumer: resolves through the "require" types.
import { LoopGuard, LoopGuardError, type Verdict } from "tool-loop-guard";

export function check(tool: string): Verdict["action"] {
  const guard = new LoopGuard();
  try {
    return guard.check({ tool }).action;
  } catch (error) {
    throw error instanceof LoopGuardError ? new Error(error.code) : error;
  } finally {
    guard.free();
  }
}
`;

for (const [name, options, files] of [
  ["bundler", { module: "esnext", moduleResolution: "bundler", lib: ["es2022", "dom"] }, ["esm.ts"]],
  ["nodenext", { module: "nodenext", moduleResolution: "nodenext", lib: ["es2022"] }, ["esm.ts", "cjs.cts"]],
]) {
  test(`TypeScript: a consumer compiles against the shipped types with moduleResolution "${name}"`, () => {
    const dir = path.join(project, "ts");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "esm.ts"), CONSUMER_ESM);
    fs.writeFileSync(path.join(dir, "cjs.cts"), CONSUMER_CJS);
    const tsconfig = path.join(dir, `tsconfig.${name}.json`);
    fs.writeFileSync(
      tsconfig,
      JSON.stringify({
        compilerOptions: { ...options, target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: [], exactOptionalPropertyTypes: true },
        files,
      }),
    );
    const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
    const result = run(process.execPath, [tsc, "-p", tsconfig], { cwd: dir });
    assert.equal(result.status, 0, `tsc (${name}) failed:\n${result.stdout}${result.stderr}`);
  });
}
