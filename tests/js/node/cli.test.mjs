// The `tool-loop-guard` command as users run it: pkg/cli/main.js (the package's bin) started as a
// child process of this Node. On a sample of every format: the timeline text, the --json lines
// (the same reports the library gives), exit codes 0/1/2, bad input named by file, line and
// reason; sweep with --ok; convert writes JSONL that reads back to the same runs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { LoopGuard } from "tool-loop-guard";
import { readTrajectories, replayTrajectory } from "tool-loop-guard/replay";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bin = path.join(root, "pkg", "cli", "main.js");
const samples = path.join(root, "tests", "replay", "samples");
const sampleFiles = fs.readdirSync(samples).sort().map((name) => path.join(samples, name));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-cli-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs the bin; stdout is a pipe, so never a terminal. */
function cli(args, { input, env } = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", input, env: { ...process.env, ...env }, cwd: root });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function file(name, lines) {
  const target = path.join(tmp, name);
  fs.writeFileSync(target, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
  return target;
}

const jsonLines = (text) => text.trim().split("\n").map((line) => JSON.parse(line));
/** 25 identical calls with one identical result: a loop every preset refuses. */
const loop = (runId) => Array.from({ length: 25 }, () => ({ runId, tool: "get_status", args: { job: 7 }, result: "pending" }));
const distinct = (runId) => ["a.py", "b.py", "c.py"].map((p) => ({ runId, tool: "read_file", args: { path: p }, result: `contents of ${p}` }));

test("the bin is the package's and answers --help and --version", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "pkg", "package.json"), "utf8"));
  assert.equal(manifest.bin["tool-loop-guard"], "./cli/main.js");
  assert.ok((fs.statSync(bin).mode & 0o111) !== 0, "the bin is executable");
  assert.match(fs.readFileSync(bin, "utf8"), /^#!\/usr\/bin\/env node\n/);
  const help = cli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /tool-loop-guard replay/);
  assert.equal(cli(["--version"]).stdout.trim(), manifest.version);
});

for (const sample of sampleFiles) {
  const name = path.basename(sample);
  test(`replay ${name}: --json reports what the library reports; the text shows the same timeline`, () => {
    const json = cli(["replay", "--json", sample]);
    assert.equal(json.stderr, "");
    const lines = jsonLines(json.stdout);
    const runs = lines.filter((l) => l.type === "run");
    const total = lines.at(-1);
    assert.equal(total.type, "total");
    assert.equal(lines.length, runs.length + 1);

    // The same runs through the library directly, one guard as the CLI uses (records name repeats).
    const guard = new LoopGuard({ sameAs: true });
    const expected = readTrajectories(fs.readFileSync(sample, "utf8"), { name: sample }).map((t, i) =>
      replayTrajectory(guard, t, { guardRunId: `0:${t.runId}` }),
    );
    guard.free();
    assert.ok(expected.length > 0);
    assert.deepEqual(
      runs.map(({ type, file, ...report }) => report),
      JSON.parse(JSON.stringify(expected)),
    );
    for (const run of runs) assert.equal(run.file, sample);
    assert.equal(total.runs, runs.length);
    assert.equal(total.calls, runs.reduce((n, r) => n + r.summary.calls, 0));
    const refused = runs.some((r) => r.summary.refusals.length > 0);
    assert.equal(total.runsRefused > 0, refused);
    assert.equal(json.code, refused ? 1 : 0);

    const text = cli(["replay", sample]);
    assert.equal(text.code, json.code);
    assert.equal(text.stderr, "");
    assert.doesNotMatch(text.stdout, /\u001b\[/, "no colour on a pipe");
    for (const run of runs) {
      assert.match(text.stdout, new RegExp(`^run ${escape(run.runId)}  ${run.format} · `, "m"));
      for (const row of run.timeline.filter((r) => !("event" in r))) {
        const pattern = `^  +${row.index}  ${escape(row.tool.slice(0, 20))}.*  ${escape(row.args.slice(0, 20))}.*  (allow|warn|block|stop)\\b`;
        assert.match(text.stdout, new RegExp(pattern, "m"), `${name} call ${row.index}`);
      }
    }
    assert.equal((text.stdout.match(/^  summary: /gm) ?? []).length, runs.length);
    assert.match(text.stdout, new RegExp(`^total: ${runs.length} runs?, ${total.calls} calls?;`, "m"));
  });
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

test("exit code 1: a run that would have been refused; the timeline names the refusal and its cost", () => {
  const looping = file("loop.jsonl", loop("looping"));
  const out = cli(["replay", looping]);
  assert.equal(out.code, 1);
  const [run] = jsonLines(cli(["replay", "--json", looping]).stdout);
  const first = run.summary.refusals[0];
  assert.ok(first !== undefined);
  const row = run.timeline.find((r) => r.index === first.index);
  assert.match(out.stdout, new RegExp(`^  +${first.index}  get_status +\\{"job":7\\}  ${first.action} +call +${first.detector} +${first.count}  ${first.cost === "costless" ? "costless" : "withheld new information"}$`, "m"));
  assert.equal(row.record, null);
  assert.equal(row.from, "check", "a refusal's count is the check's, before the call");
  // The count column says where each count is from: a warning on a result counts results.
  const warnedOnResult = run.timeline.find((r) => r.from === "record");
  assert.ok(warnedOnResult !== undefined && warnedOnResult.record.action === "warn");
  assert.match(out.stdout, new RegExp(`^  +${warnedOnResult.index}  get_status +\\{"job":7\\}  warn +result +${warnedOnResult.detector} +${warnedOnResult.count}  same result as call-1$`, "m"));
  // Each repeat of "pending" names the first call that returned it (the replay turns sameAs on).
  assert.equal(warnedOnResult.sameAs, "call-1");
  assert.match(out.stdout, /^ +# +tool +args +verdict +on +detector +count$/m);
  // The stop's own call would have returned "pending" again: costless, and the note says the run ended.
  const stop = run.summary.refusals.at(-1);
  assert.equal(stop.action, "stop");
  assert.match(out.stdout, new RegExp(`^  +${stop.index}  .*stop +call .*  costless; run ended$`, "m"));
  assert.match(out.stdout, new RegExp(`summary: 25 calls: ${run.summary.ran} ran, ${25 - run.summary.ran} not run \\(${25 - run.summary.ran} repeats of their last result, 0 new\\)`));
  // Every refused call here would have returned "pending" again, which get_status already returned.
  assert.ok(run.summary.refusals.filter((r) => r.action === "block").every((r) => r.cost === "costless"));
  assert.match(out.stdout, new RegExp(`first refusal at call ${first.index} \\(${first.action} ${first.detector}\\)`));
  assert.match(out.stdout, /^total: 1 run, 25 calls; .*1 refused/m);
  // The repeats of "pending" that ran are the bytes a host using sameAs would not resend.
  const repeatBytes = (run.summary.ran - 1) * "pending".length;
  assert.equal(run.summary.notResent, repeatBytes);
  assert.match(out.stdout, new RegExp(`; ${repeatBytes} result bytes \\(\\d+\\.\\d %\\) repeat an earlier identical result`));
});

test("exit code 0: nothing refused; --quiet prints summaries and the total only", () => {
  const fine = file("fine.jsonl", distinct("fine"));
  const out = cli(["replay", fine]);
  assert.equal(out.code, 0);
  assert.match(out.stdout, /^  summary: 3 calls: 3 ran, 0 not run; no warning; nothing refused$/m);
  const quiet = cli(["replay", "--quiet", fine]);
  assert.equal(quiet.code, 0);
  const lines = quiet.stdout.trim().split("\n");
  assert.equal(lines.length, 4);
  assert.match(lines[0], /^run fine  jsonl · /);
  assert.match(lines[1], /^  summary: 3 calls/);
  assert.equal(lines[2], "");
  assert.match(lines[3], /^total: 1 run, 3 calls;/);
  assert.doesNotMatch(quiet.stdout, /read_file/);
  const json = jsonLines(cli(["replay", "--json", "--quiet", fine]).stdout);
  assert.equal(json[0].timeline, undefined);
  assert.equal(json[0].summary.calls, 3);
});

test("stdin (-), --format, --preset and --config reach the guard", () => {
  const text = loop("piped").map((l) => JSON.stringify(l)).join("\n");
  const piped = cli(["replay", "--json", "--format", "jsonl", "-"], { input: text });
  assert.equal(piped.code, 1);
  const [run] = jsonLines(piped.stdout);
  assert.equal(run.runId, "piped");
  assert.equal(run.file, "<stdin>");
  const strict = jsonLines(cli(["replay", "--json", "--preset", "strict", "-"], { input: text }).stdout)[0];
  assert.ok(strict.summary.firstRefusal <= run.summary.firstRefusal);
  const off = file("off.json", [JSON.stringify({ enabled: false })]);
  const disabled = cli(["replay", "--config", off, "-"], { input: text });
  assert.equal(disabled.code, 0);
});

test("a JSONL file whose first lines no format claims, and a named JSONL format given as a JSON array, stream like the rest", () => {
  const records = JSON.parse(fs.readFileSync(path.join(samples, "claude-code-hook-copy.json"), "utf8"));
  const expected = readTrajectories(JSON.stringify(records), { name: "chat.json" }).map((t) => [t.runId, t.steps.length]);
  // Opening lines of a type no format claims (up to 32 are read before the first line decides).
  const opening = Array.from({ length: 20 }, (_, i) => ({ type: "tag", tag: `t${i}` }));
  for (const [args, input] of [
    [["replay", "--json", "--quiet", file("late.jsonl", [...opening, ...records])]],
    [["replay", "--json", "--quiet", "-"], [...opening.slice(0, 5), ...records].map((r) => JSON.stringify(r)).join("\n")],
    [["replay", "--json", "--quiet", "--format", "claude-code", file("chat.json", [JSON.stringify(records, null, 2)])]],
  ]) {
    const out = cli(args, { input });
    assert.equal(out.stderr, "", args.join(" "));
    const runs = jsonLines(out.stdout).filter((l) => l.type === "run");
    assert.deepEqual(runs.map((r) => [r.runId, r.summary.calls]), expected, args.join(" "));
    assert.ok(runs.every((r) => r.format === "claude-code"));
  }
});

test("exit code 2: bad input names the file, the line and the reason; other inputs still replay", () => {
  const broken = file("broken.jsonl", [distinct("b")[0], distinct("b")[1], '{"runId":"b","tool":"read_file",', distinct("b")[2]]);
  const fine = file("fine2.jsonl", distinct("fine2"));
  const out = cli(["replay", broken, fine]);
  assert.equal(out.code, 2);
  assert.match(out.stderr, new RegExp(`^tool-loop-guard: bad input: ${escape(broken)}:3: not valid JSON`, "m"));
  assert.doesNotMatch(out.stdout, /^run b /m, "no half-read run is printed");
  assert.match(out.stdout, /^run fine2 /m);
  assert.match(out.stdout, /^total: 1 run, 3 calls; .*; 1 bad input not counted$/m, "the total says what it leaves out");

  const notTool = file("not-a-tool.jsonl", [distinct("n")[0], { runId: "n", tool: 42 }]);
  assert.match(cli(["replay", notTool]).stderr, new RegExp(`${escape(notTool)}:2: tool is not a non-empty string`));
  const unknown = file("unknown.json", [JSON.stringify({ hello: "world" })]);
  const u = cli(["replay", unknown]);
  assert.equal(u.code, 2);
  assert.match(u.stderr, new RegExp(`${escape(unknown)}: not a trajectory format this reader knows`));
  assert.equal(u.stdout, "", "no input was read: no \"total: 0 runs\" beside the error");
  const missing = cli(["replay", path.join(tmp, "nope.jsonl")]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.jsonl: cannot read the file: ENOENT/);
  let nested = {};
  for (let i = 0; i < 300; i++) nested = { x: nested };
  const deep = file("deep.jsonl", [{ runId: "deep", tool: "t", args: nested, result: "r" }]);
  const d = cli(["replay", deep]);
  assert.equal(d.code, 2);
  assert.match(d.stderr, new RegExp(`${escape(deep)}: run deep: the guard refused the record \\(too_deep\\)`));
  const empty = cli(["replay", file("empty.jsonl", [""])]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /empty\.jsonl: the input is empty/);
  // A format named with --format that reads no call: said, exit code 2, for every command.
  const anthropic = path.join(samples, "anthropic.json");
  for (const command of [["replay"], ["sweep", "--preset", "strict"], ["convert"]]) {
    const wrong = cli([...command, "--format", "openai-chat", anthropic]);
    assert.equal(wrong.code, 2, command[0]);
    assert.match(wrong.stderr, new RegExp(`bad input: ${escape(anthropic)}: no tool call read as --format openai-chat`), command[0]);
  }
  assert.notEqual(cli(["replay", "--format", "anthropic", anthropic]).code, 2, "the right format still replays");
});

test("exit code 2: bad usage and bad settings say what is wrong", () => {
  const sample = sampleFiles[0];
  for (const [args, message] of [
    [[], /^tool-loop-guard: no command given \(replay, sweep or convert\)\nUsage:/],
    [["replay"], /no input/],
    [["replay", "--format", "yaml", sample], /--format yaml: not a format \(one of jsonl, /],
    [["replay", "--frobnicate", sample], /Unknown option '--frobnicate'/],
    [["rewind", sample], /unknown command rewind/],
    [["replay", "--config", path.join(tmp, "absent.json"), sample], /--config .*absent\.json: cannot read the file/],
    [["replay", "--config", file("bad.json", ["[1]"]), sample], /--config .*bad\.json: not a JSON object/],
    [["replay", "--config", file("typo.json", [JSON.stringify({ criticalThreshhold: 3 })]), sample], /bad config: .*criticalThreshhold/],
    [["replay", "--preset", "lenient", sample], /bad config: .*preset/],
    [["sweep", sample], /sweep needs --preset or --grid/],
    [["sweep", "--grid", "criticalThreshold", sample], /--grid criticalThreshold: expected path=value,value/],
  ]) {
    const out = cli(args);
    assert.equal(out.code, 2, args.join(" "));
    assert.match(out.stderr, message, args.join(" "));
    assert.equal(out.stdout, "");
  }
});

test("sweep: per setting, runs refused and refusals on the runs marked as fine (--ok ids or file)", () => {
  const runs = file("team.jsonl", [...loop("stuck"), ...distinct("fine"), ...loop("slow-but-fine")]);
  const okFile = file("ok.txt", ["# runs we know are fine", "fine", "slow-but-fine", ""]);
  const args = ["sweep", "--preset", "default", "--preset", "strict", "--grid", "detectors.genericRepeat=true,false", runs];
  const byIds = jsonLines(cli([...args, "--json", "--ok", "fine,slow-but-fine"]).stdout);
  const byFile = jsonLines(cli([...args, "--json", "--ok", okFile]).stdout);
  assert.deepEqual(byIds, byFile);
  assert.deepEqual(byIds.map((r) => r.label), [
    "preset=default detectors.genericRepeat=true",
    "preset=default detectors.genericRepeat=false",
    "preset=strict detectors.genericRepeat=true",
    "preset=strict detectors.genericRepeat=false",
  ]);
  for (const row of byIds) {
    assert.equal(row.type, "setting");
    assert.equal(row.runs, 3);
    assert.equal(row.okRuns, 2);
    assert.equal(row.config.detectors.genericRepeat, row.label.endsWith("true"));
  }
  // With generic repeats on, both loops are refused, one of them on a run marked as fine.
  const on = byIds[0];
  assert.equal(on.runsRefused, 2);
  assert.equal(on.okRunsRefused, 1);
  assert.ok(on.okCostless + on.okWithheld > 0);

  const text = cli([...args, "--ok", okFile]);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^setting +runs  refused  stopped  refusals withheld\/costless  ok runs  ok refused/m);
  assert.match(text.stdout, new RegExp(`^preset=default detectors.genericRepeat=true +3 +${on.runsRefused} +${on.runsStopped} +${on.withheld}/${on.costless} +2 +1 +${on.okWithheld}/${on.okCostless}$`, "m"));
  assert.match(text.stdout, /^3 runs, 2 marked as fine/m);
  // A grid crosses its axes: combinations the config rejects are listed as skipped, the rest run.
  const crossed = jsonLines(cli(["sweep", "--json", "--grid", "criticalThreshold=3,4", "--grid", "warningThreshold=2,3", runs]).stdout);
  assert.deepEqual(crossed.map((r) => [r.label, "invalid" in r]), [
    ["base criticalThreshold=3 warningThreshold=2", false],
    ["base criticalThreshold=3 warningThreshold=3", true],
    ["base criticalThreshold=4 warningThreshold=2", false],
    ["base criticalThreshold=4 warningThreshold=3", false],
  ]);
  assert.match(crossed[1].invalid, /criticalThreshold must be greater than warningThreshold/);
  const none = cli(["sweep", "--grid", "warningThreshold=0", runs]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no setting of the grid is a valid config \(.*warningThreshold/);
  const typo = cli([...args, "--ok", "fine,nosuchrun"]);
  assert.match(typo.stderr, /1 --ok run id\(s\) match no run: nosuchrun/);
});

test("convert: every sample as JSONL that reads back to the same runs and replays the same", () => {
  for (const sample of sampleFiles) {
    const target = path.join(tmp, `${path.basename(sample)}.converted.jsonl`);
    const out = cli(["convert", "--output", target, sample]);
    assert.equal(out.code, 0, out.stderr);
    const original = readTrajectories(fs.readFileSync(sample, "utf8"), { name: sample });
    const converted = readTrajectories(fs.readFileSync(target, "utf8"), { name: target });
    assert.deepEqual(converted.map((t) => t.format), original.map(() => "jsonl"));
    assert.deepEqual(converted.map((t) => [t.runId, t.steps]), original.map((t) => [t.runId, t.steps]));
    for (const [i, t] of converted.entries()) {
      assert.deepEqual(t.meta, { ...original[i].meta, sourceFormat: original[i].format, sourceFile: sample });
    }
    const replayed = (file) => jsonLines(cli(["replay", "--json", "--quiet", file]).stdout).filter((l) => l.type === "run").map((l) => l.summary);
    assert.deepEqual(replayed(target), replayed(sample), path.basename(sample));
  }
});

/** Runs the bin on a terminal (util-linux `script` gives it a pty); stdout and stderr come merged. */
function onTerminal(args, env = {}) {
  const command = [process.execPath, bin, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const result = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", env: { ...process.env, NO_COLOR: "", ...env }, cwd: root });
  assert.equal(result.error, undefined, "util-linux script runs");
  return { code: result.status, output: result.stdout };
}

test("colour on a terminal, none with NO_COLOR; a progress bar on stderr only for large inputs", () => {
  const looping = file("loop-tty.jsonl", loop("tty"));
  const coloured = onTerminal(["replay", looping]);
  assert.equal(coloured.code, 1);
  assert.match(coloured.output, /\u001b\[31mblock/);
  assert.doesNotMatch(coloured.output, /\r\[[#-]{30}\]/, "no progress bar for a small input");
  const plain = onTerminal(["replay", looping], { NO_COLOR: "1" });
  assert.equal(plain.code, 1);
  assert.doesNotMatch(plain.output, /\u001b\[3\d?m/);
  assert.match(plain.output, /block +generic_repeat|block +\w+/);

  // 9 MB of distinct reads: over the 8 MB threshold.
  const big = path.join(tmp, "big.jsonl");
  const padding = "x".repeat(4600);
  const lines = Array.from({ length: 2_000 }, (_, i) => JSON.stringify({ runId: `r${i % 40}`, tool: "read_file", args: { path: `f${i}.py` }, result: `${padding}${i}` }));
  fs.writeFileSync(big, `${lines.join("\n")}\n`);
  assert.ok(fs.statSync(big).size >= 8 * 1024 * 1024);
  const withBar = onTerminal(["replay", "--quiet", big]);
  assert.equal(withBar.code, 0);
  assert.match(withBar.output, /\r\[[#-]{30}\] +\d+ % [\d.]+\/[\d.]+ MB .*big\.jsonl/);
  assert.match(withBar.output, /\r\u001b\[K(\u001b\[1m)?run r0\b/, "the bar is erased before the runs are printed");
  assert.match(withBar.output, /total: 40 runs, 2000 calls;/);
  const piped = cli(["replay", "--quiet", big]);
  assert.equal(piped.stderr, "", "no progress bar when stderr is not a terminal");
});
