// The trajectory readers of tool-loop-guard/replay: each format's sample (tests/replay/samples/,
// written in the format's real shape, or trimmed from real public exports: tests/replay/SAMPLES.md
// names their sources) is detected and mapped as docs/replay.md says; bad input is
// a TrajectoryError naming the file, the line and the reason; JSONL written by convert reads back
// to the same runs.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { detectFormat, FORMATS, lineReader, readTrajectories, runLine, stepLine, TrajectoryError } from "tool-loop-guard/replay";
import { aciCall } from "../../../pkg/replay/formats/swe-agent-commands.js";

const samples = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "replay", "samples");
const read = (name, options = {}) => readTrajectories(fs.readFileSync(path.join(samples, name), "utf8"), { name, ...options });
const calls = (run) => run.steps.filter((s) => !("event" in s));
const tools = (run) => calls(run).map((s) => s.tool);

const EXPECTED_FORMATS = {
  "gateway.jsonl": "jsonl",
  "openai-chat.json": "openai-chat",
  "openai-responses.json": "openai-responses",
  "anthropic.json": "anthropic",
  "ai-sdk-v5.json": "ai-sdk",
  "ai-sdk-v4.json": "ai-sdk",
  "claude-code.jsonl": "claude-code",
  "claude-code-2.1.jsonl": "claude-code",
  "agent-a93ccab.jsonl": "claude-code",
  "claude-code-stream.jsonl": "claude-code",
  "claude-code-hook-copy.json": "claude-code",
  "codex.jsonl": "codex",
  "codex-0.144.jsonl": "codex",
  "codex-exec.jsonl": "codex",
  "acme__widgets-101.traj": "swe-agent",
  "testbed__units-7.traj": "swe-agent",
  "acme__dates-42.traj.json": "mini-swe-agent",
  "acme__report-9.traj.json": "mini-swe-agent",
  "retail-gpt-4o.json": "tau-bench",
  "travel-suite-ut3.json": "agentdojo",
  "multi-swe-java.jsonl": "openhands",
  "webshop-episode-7.txt": "react-text",
  "hotpotqa-agent-2.txt": "react-text",
};

test("every sample is detected as its format, and every format has a sample", () => {
  assert.deepEqual(new Set(fs.readdirSync(samples)), new Set(Object.keys(EXPECTED_FORMATS)));
  for (const [name, format] of Object.entries(EXPECTED_FORMATS)) {
    assert.equal(detectFormat(fs.readFileSync(path.join(samples, name), "utf8"), { name }), format, name);
    for (const run of read(name)) assert.equal(run.format, format, name);
  }
  assert.deepEqual(new Set(Object.values(EXPECTED_FORMATS)), new Set(FORMATS));
});

test("SWE-agent ACI commands: the tool is the command, the args its named arguments; anything else is bash", () => {
  const [run] = read("acme__widgets-101.traj");
  assert.equal(run.runId, "acme__widgets-101");
  assert.deepEqual(run.meta, { exitStatus: "submitted", environment: "swe_main" });
  assert.deepEqual(tools(run), ["create", "edit", "bash", "search_dir", "open", "edit", "edit", "bash", "bash", "submit"]);
  const [create, edit, python, search, open] = calls(run);
  assert.deepEqual(create.args, { filename: "reproduce.py" });
  assert.deepEqual(edit.args, { start_line: 1, end_line: 1, replacement_text: "from widgets import parse_size\nprint(parse_size('10kb'))" });
  assert.deepEqual(python.args, { command: "python reproduce.py" });
  assert.match(python.result, /ValueError: unknown unit 'kb'/);
  assert.deepEqual(search.args, { search_term: "def parse_size", dir: "src" });
  assert.deepEqual(open.args, { path: "src/widgets/units.py", line_number: 40 });
  assert.match(calls(run)[5].result, /^Your proposed edit has introduced new syntax error/);
  assert.equal(calls(run)[8].result, "");
});

test("aciCall follows SWE-agent's signatures", () => {
  assert.deepEqual(aciCall("goto 120\n"), { tool: "goto", args: { line_number: 120 } });
  assert.deepEqual(aciCall("scroll_down"), { tool: "scroll_down", args: {} });
  assert.deepEqual(aciCall('find_file "*.py" src/utils'), { tool: "find_file", args: { file_name: "*.py", dir: "src/utils" } });
  assert.deepEqual(aciCall("search_file 'self.items' "), { tool: "search_file", args: { search_term: "self.items" } });
  assert.deepEqual(aciCall('open "my file.py"'), { tool: "open", args: { path: "my file.py" } });
  assert.deepEqual(aciCall("search_dir def parse size"), { tool: "search_dir", args: { args: "def parse size" } });
  assert.deepEqual(aciCall("edit 3:5\n    x = 1\n\n    y = 2\nend_of_edit"), { tool: "edit", args: { start_line: 3, end_line: 5, replacement_text: "    x = 1\n\n    y = 2" } });
  assert.deepEqual(aciCall("edit\nonly text\nend_of_edit\n"), { tool: "edit", args: { replacement_text: "only text" } });
  assert.deepEqual(aciCall("cat <<'EOF' > a.py\nprint(1)\nEOF"), { tool: "bash", args: { command: "cat <<'EOF' > a.py\nprint(1)\nEOF" } });
  assert.deepEqual(aciCall("open a.py\ngoto 3"), { tool: "bash", args: { command: "open a.py\ngoto 3" } });
  assert.deepEqual(aciCall("ls -la | grep x"), { tool: "bash", args: { command: "ls -la | grep x" } });
  assert.equal(aciCall("exit_cost"), undefined);
  assert.equal(aciCall("  \n"), undefined);
  assert.deepEqual(aciCall("exit_forfeit"), { tool: "exit_forfeit", args: {} });
});

test("aciCall reads SWE-agent 1.0's text-mode str_replace_editor and EnIGMA's commands with their flags", () => {
  assert.deepEqual(aciCall("str_replace_editor view /testbed/src/a.py --view_range 10 40"), {
    tool: "str_replace_editor",
    args: { command: "view", path: "/testbed/src/a.py", view_range: [10, 40] },
  });
  assert.deepEqual(aciCall("str_replace_editor str_replace /testbed/a.py --old_str 'if x:\n    y = 1' --new_str \"if x:\n    y = 2\""), {
    tool: "str_replace_editor",
    args: { command: "str_replace", path: "/testbed/a.py", old_str: "if x:\n    y = 1", new_str: "if x:\n    y = 2" },
  });
  assert.deepEqual(aciCall("str_replace_editor insert /a.py --insert_line 7 --new_str pass"), { tool: "str_replace_editor", args: { command: "insert", path: "/a.py", insert_line: 7, new_str: "pass" } });
  assert.deepEqual(aciCall("str_replace_editor view /a.py --view_range"), { tool: "str_replace_editor", args: { args: "view /a.py --view_range" } });
  assert.deepEqual(aciCall("decompile --function_name main ./chall"), { tool: "decompile", args: { function_name: "main", binary_path: "./chall" } });
  assert.deepEqual(aciCall("submit 'flag{abc}'"), { tool: "submit", args: { flag: "flag{abc}" } });
  // Joined by a shell operator, or followed by another line: a command line for bash.
  assert.deepEqual(aciCall("connect_sendline 'Y' && connect_sendline 'N'"), { tool: "bash", args: { command: "connect_sendline 'Y' && connect_sendline 'N'" } });
  assert.deepEqual(aciCall("str_replace_editor view /a.py\nls"), { tool: "bash", args: { command: "str_replace_editor view /a.py\nls" } });
  assert.deepEqual(aciCall("create 'a;b.py'"), { tool: "create", args: { filename: "a;b.py" } });
});

test("SWE-agent function calling: the history's tool call gives the tool and its JSON arguments", () => {
  const [run] = read("testbed__units-7.traj");
  assert.equal(run.meta.model, "claude-sonnet-4-20250514");
  assert.deepEqual(tools(run), ["str_replace_editor", "bash", "str_replace_editor", "bash", "submit", "submit"]);
  const [view, python, replace] = calls(run);
  assert.deepEqual(view.args, { command: "view", path: "/testbed/src/units.py" });
  assert.equal(view.callId, "call_00");
  assert.deepEqual(python.args, { command: "python -c 'from src.units import parse_size; parse_size(\"1k\")'" });
  assert.equal(replace.args.new_str, '    return int(text.rstrip("k")) * 1024');
  assert.equal(calls(run)[4].result.startsWith("Thank you for your work"), true);
});

test("mini-swe-agent v1: one bash tool with {command}; a non-zero return code is an error; a format error is no call", () => {
  const [run] = read("acme__dates-42.traj.json");
  assert.deepEqual(run.meta, { exitStatus: "Submitted", model: "gemini/gemini-2.5-flash", instanceId: "acme__dates-42" });
  assert.equal(calls(run).length, 7);
  assert.ok(calls(run).every((c) => c.tool === "bash" && Object.keys(c.args).join() === "command"));
  const grep = calls(run)[2];
  assert.equal(grep.args.command, "grep -n 'tzinfo' src/dates.py");
  assert.equal(grep.error, "<returncode>1</returncode>\n<output>\n</output>");
  assert.equal(grep.result, undefined);
  assert.equal(calls(run)[3].args.command, "sed -n '1,40p' src/dates.py");
  assert.match(calls(run)[6].result, /^diff --git/);
});

test("mini-swe-agent v2: tool calls, return codes from extra, timestamps in seconds", () => {
  const [run] = read("acme__report-9.traj.json");
  assert.deepEqual(tools(run), ["bash", "bash", "bash", "bash"]);
  const [grep, imported] = calls(run);
  assert.deepEqual(grep.args, { command: "grep -rn 'def export_csv' ." });
  assert.equal(grep.at, 1763800000100);
  assert.equal(grep.callId, "call_1");
  assert.match(imported.error, /ModuleNotFoundError/);
  assert.equal(run.meta.exitStatus, "Submitted");
});

test("tau-bench: a run per task result, solved from the reward, `Error:` observations are errors, respond is no call", () => {
  const [solved, failed] = read("retail-gpt-4o.json");
  assert.equal(solved.runId, "retail-gpt-4o/task-3/trial-0");
  assert.deepEqual(solved.meta, { trial: 0, taskId: 3, reward: 1, solved: true });
  assert.deepEqual(tools(solved), ["find_user_id_by_email", "get_order_details", "get_user_details", "cancel_pending_order"]);
  assert.deepEqual(calls(solved)[0], { tool: "find_user_id_by_email", args: { email: "mei.kovacs@example.com" }, callId: "call_1", result: "mei_kovacs_8020" });
  assert.equal(calls(solved)[1].error, "Error: order not found");
  assert.equal(failed.runId, "retail-gpt-4o/task-17/trial-1");
  assert.equal(failed.meta.solved, false);
  assert.deepEqual(tools(failed), ["get_reservation_details", "update_reservation_flights", "update_reservation_flights"]);
  assert.equal(calls(failed)[1].error, "API output: Error: flights cannot be empty");
  assert.deepEqual(calls(failed)[2].args, { reservation_id: "ZFA04Y", cabin: "economy", flights: [] });
});

test("tau-bench: {metrics, results} files are read like a bare array", () => {
  const text = fs.readFileSync(path.join(samples, "retail-gpt-4o.json"), "utf8");
  const wrapped = `{"metrics": {"avg_reward": 0.5}, "results": ${text}}`;
  assert.equal(detectFormat(wrapped, { name: "wrapped.json" }), "tau-bench");
  const runs = readTrajectories(wrapped, { name: "wrapped.json" });
  assert.deepEqual(runs.map((r) => r.steps), read("retail-gpt-4o.json").map((r) => r.steps));
});

test("AgentDojo: calls by function name with args, text parts joined, a raised tool is an error, utility is solved", () => {
  const [run] = read("travel-suite-ut3.json");
  assert.equal(run.runId, "travel_ut3_none_1_0a1b2c3d");
  assert.deepEqual(run.meta, { model: "small-model-7b", taskId: "user_task_3", suite_name: "travel", solved: true });
  assert.deepEqual(calls(run), [
    { tool: "search_hotels", args: { city: "Lyon", max_price: 120 }, callId: "t1", result: "- name: Hotel Garnier\n  price: 95" },
    { tool: "get_weather", args: { city: "Lyon" }, callId: "t2", error: "ToolNotFound: get_weather is not a tool of this suite" },
    { tool: "book_hotel", args: { hotel: "Hotel Garnier", date: "2025-05-03" }, callId: "t3", result: "booking HG-0503 confirmed" },
  ]);
});

test("OpenHands output: the model's tool calls and the observations they caused; exit codes above 0 are errors", () => {
  const [fc, older] = read("multi-swe-java.jsonl");
  assert.equal(fc.runId, "acme__ledger-12");
  assert.deepEqual(fc.meta, { instanceId: "acme__ledger-12", model: "openai/small-model-7b", agent: "CodeActAgent", solved: true });
  assert.deepEqual(tools(fc), ["execute_bash", "str_replace_editor", "execute_bash", "finish"]);
  const [test1, edit, test2, finish] = calls(fc);
  assert.deepEqual(test1.args, { command: "mvn -q test" });
  assert.equal(test1.error, "Tests run: 4, Failures: 1\nexpected:<10.05> but was:<10.04>");
  assert.equal(test1.at, Date.parse("2025-05-01T10:00:02.000Z"));
  assert.equal(test1.callId, "call_1");
  assert.deepEqual(edit.args, { command: "str_replace", path: "/workspace/src/Ledger.java", old_str: "RoundingMode.DOWN", new_str: "RoundingMode.HALF_UP" });
  assert.equal(edit.result, "The file /workspace/src/Ledger.java has been edited.");
  assert.equal(test2.result, "Tests run: 4, Failures: 0");
  assert.deepEqual(finish.args, { message: "Fixed." });
  assert.equal("result" in finish || "error" in finish, false);
  // The same instance again in the file: a second run. Without function-calling metadata the
  // executing actions are the calls, their args without OpenHands' bookkeeping keys.
  assert.equal(older.runId, "acme__ledger-12/2");
  assert.equal(older.meta.exitStatus, "Agent reached maximum iteration");
  assert.deepEqual(calls(older).map((c) => [c.tool, c.args, c.result ?? null, c.error ?? null]), [
    ["run", { command: "ls" }, "pom.xml\nsrc", null],
    ["read", { path: "pom.xml" }, null, "File not readable: pom.xml"],
    ["run", { command: "sleep 600" }, "[The command timed out after 120 seconds.]", null],
  ]);
});

test("ReAct transcripts: verb[argument] calls with their observations; reset is no call; unparsed actions are kept", () => {
  const [shop] = read("webshop-episode-7.txt");
  assert.equal(shop.runId, "webshop-episode-7");
  assert.deepEqual(tools(shop), ["search", "think", "click", "unparsed_action", "click"]);
  const [search, think, , invalid, buy] = calls(shop);
  assert.deepEqual(search.args, { query: "blue travel mug" });
  assert.equal(search.result, "\n[Back to Search] \nPage 1 (Total results: 30) \n[Next >] \n[B0AA111111] \nSteel Travel Mug, Navy Blue, 12 oz \n$13.99 ");
  assert.deepEqual(think, { tool: "think", args: { thought: "B0AA111111 is blue and under 15 dollars." }, result: "OK." });
  assert.deepEqual(invalid, { tool: "unparsed_action", args: { action: "purchase the mug" }, result: "Invalid action!" });
  assert.equal(buy.result, "Your score (min 0.0, max 1.0): 1.0");
  const [qa] = read("hotpotqa-agent-2.txt");
  assert.deepEqual(calls(qa).map((c) => [c.tool, c.args, c.result]), [
    ["search", { query: "Eiffel Tower" }, "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."],
    ["lookup", { keyword: "river" }, "No more results."],
    ["search", { query: "Paris" }, "Paris is the capital of France. The Seine flows through the city."],
    ["finish", { answer: "Seine" }, "Answer is CORRECT"],
  ]);
});

test("OpenAI Chat Completions: parallel calls in order, arguments parsed (kept as text when not JSON), content parts", () => {
  const [run] = read("openai-chat.json");
  assert.deepEqual(tools(run), ["update_task", "update_task", "list_tasks", "list_tasks"]);
  assert.deepEqual(calls(run)[1], { tool: "update_task", args: { id: 13, status: "done" }, callId: "call_A2", result: "Task 13 updated." });
  assert.deepEqual(calls(run)[2].result, { content: [{ type: "text", text: "12 [done] write report" }, { type: "text", text: "13 [done] book flights" }] });
  assert.equal(calls(run)[3].args, '{"filter": "open"');
});

test("OpenAI Responses: function and custom tool calls, output parts, compaction", () => {
  const [run] = read("openai-responses.json");
  assert.deepEqual(
    run.steps.map((s) => s.event ?? s.tool),
    ["get_weather", "get_weather", "write_note", "compaction", "get_weather"],
  );
  assert.equal(calls(run)[1].result, "Rome: 19 C, sunny");
  assert.deepEqual(calls(run)[2].args, { input: "Paris 14C cloudy; Rome 19C sunny" });
});

test("Anthropic Messages: tool_use / tool_result, is_error is an error", () => {
  const [run] = read("anthropic.json");
  assert.deepEqual(tools(run), ["grep", "read_file", "read_file", "list_dir"]);
  assert.equal(calls(run)[1].error, "ENOENT: no such file or directory, open 'src/confg.ts'");
  assert.equal(calls(run)[3].result, "app.ts\nconfig.ts");
  assert.equal(run.meta.model, "claude-sonnet-4-5");
});

test("AI SDK: v5+ input/output with tool-error parts, v4 args/result, step timestamps", () => {
  const [v5] = read("ai-sdk-v5.json");
  assert.deepEqual(calls(v5), [
    { tool: "searchDocs", args: { query: "rate limits" }, at: Date.parse("2025-11-20T10:00:00.000Z"), callId: "call_1", result: { hits: 0 } },
    { tool: "fetchPage", args: { url: "https://docs.example.com/limits" }, at: Date.parse("2025-11-20T10:00:04.000Z"), callId: "call_2", error: { name: "Error", message: "HTTP 404" } },
  ]);
  const [v4] = read("ai-sdk-v4.json");
  assert.deepEqual(calls(v4).map((c) => [c.args, c.result]), [
    [{ symbol: "ACME" }, { symbol: "ACME", price: 12.5 }],
    [{ symbol: "ACME" }, { symbol: "ACME", price: 12.5 }],
  ]);
});

test("Claude Code: tool_use lines paired with later tool_result lines, compaction, a sidechain run", () => {
  const [main, side] = read("claude-code.jsonl");
  assert.equal(main.runId, "5f0c2a9e-1b7d-4c3e-9a61-2d8e4f7b0c11");
  assert.deepEqual(main.steps.map((s) => s.event ?? s.tool), ["Bash", "Read", "Grep", "compaction", "Task", "Edit", "Bash"]);
  const [bash] = calls(main);
  assert.equal(bash.at, Date.parse("2025-11-21T09:00:03.500Z"));
  assert.equal(bash.error, "FAIL test/checkout.test.js\n  expected total 30, got 27");
  assert.equal(calls(main)[5].result, "PASS test/checkout.test.js");
  assert.equal(main.meta.model, "claude-sonnet-4-5-20250929");
  assert.equal(side.runId, `${main.runId}/7ac1`);
  assert.deepEqual(calls(side).map((c) => [c.tool, c.result]), [["Grep", "src/cart.js\nsrc/checkout.js"]]);
});

test("Claude Code 2.1.x: a session opening with snapshot and progress lines, its sub-agent's own file", () => {
  const [main] = read("claude-code-2.1.jsonl");
  const session = "fa812bfe-b295-4cca-9c2f-fdf01028cb46";
  assert.equal(main.runId, session);
  assert.deepEqual(tools(main), ["Bash", "Bash", "Task", "Read"]);
  assert.equal(main.meta.version, "2.1.39");
  assert.match(calls(main)[0].result, /^○ spotter-a0y \[EPIC\]/);
  // The Task's sub-agent (its messages repeated in the session's progress lines are not read twice).
  const [agent] = read("agent-a93ccab.jsonl");
  assert.equal(agent.runId, `${session}/a93ccab`);
  assert.equal(agent.meta.model, "claude-haiku-4-5-20251001");
  assert.deepEqual(tools(agent), ["Read", "Read", "Read"]);
  // Both files given at once, as `replay session.jsonl agent-*.jsonl` reads them: two runs, one per agent.
  const both = ["claude-code-2.1.jsonl", "agent-a93ccab.jsonl"].map((name) => fs.readFileSync(path.join(samples, name), "utf8")).join("");
  assert.deepEqual(readTrajectories(both, { name: "both.jsonl" }).map((r) => [r.runId, calls(r).length]), [[session, 4], [`${session}/a93ccab`, 3]]);
});

test("Claude Code headless stream-json: one run per session and one per Task sub-agent, the result line's status", () => {
  const [main, agent] = read("claude-code-stream.jsonl");
  const session = "46c574cf-a4e0-4294-912b-3e69ecc53cf5";
  assert.equal(main.runId, session);
  assert.deepEqual(tools(main), ["Bash", "WebFetch", "WebFetch", "Task"]);
  assert.deepEqual([main.meta.model, main.meta.version, main.meta.exitStatus], ["claude-sonnet-4-5-20250929", "2.0.27", "success"]);
  assert.equal(agent.runId, `${session}/toolu_01BVnfPHqPjZRv9vh1Fv4cWf`);
  assert.deepEqual(tools(agent), ["Read", "Glob", "Read"]);
  assert.equal(calls(agent)[0].error, "EISDIR: illegal operation on a directory, read");
});

test("Claude Code transcript saved as a JSON array (a Stop hook's copy), opening with title lines", () => {
  const text = fs.readFileSync(path.join(samples, "claude-code-hook-copy.json"), "utf8");
  const [run] = read("claude-code-hook-copy.json");
  assert.equal(run.runId, "120ec635-4140-4bf9-8fdc-24047e46c394");
  assert.deepEqual(tools(run), ["Bash", "Bash"]);
  assert.equal(calls(run)[0].result, "Cloning into 'jcode'...\nShell cwd was reset to /Users/raimondospatola/Documents/AI Projects");
  assert.deepEqual(readTrajectories(text, { name: "chat.json", format: "claude-code" }), [run]);
  // The same records as JSONL: the first line, a `last-prompt` record, is enough to tell the format.
  const lines = JSON.parse(text).map((entry) => JSON.stringify(entry)).join("\n");
  assert.equal(detectFormat(lines.split("\n")[0], { name: "s.jsonl" }), "claude-code");
  assert.deepEqual(readTrajectories(lines, { name: "chat.jsonl" }).map((r) => r.steps), [run.steps]);
  // A JSONL file whose first lines no format claims is read by the first line that one does.
  const unclaimed = ['{"type":"tag","tag":"wip"}', '{"type":"agent-setting","value":1}', lines].join("\n");
  assert.deepEqual(readTrajectories(unclaimed, { name: "chat.jsonl" }).map((r) => r.steps), [run.steps]);
  assert.throws(() => readTrajectories("[1, 2]", { name: "chat.json", format: "claude-code" }), /item 1 is not a JSON object/);
});

test("Claude Code sub-agents without agent ids: one run per sub-agent conversation, by parentUuid", () => {
  const lines = fs.readFileSync(path.join(samples, "claude-code.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const sidechain = lines.filter((l) => l.isSidechain === true).map(({ agentId, ...entry }) => entry);
  // A second sub-agent, interleaved with the first: the same entries under other uuids.
  const second = sidechain.map((e) => ({ ...e, uuid: `t${e.uuid}`, parentUuid: e.parentUuid === null ? null : `t${e.parentUuid}` }));
  const mixed = [sidechain[0], second[0], sidechain[1], second[1], sidechain[2], second[2]].map((e) => JSON.stringify(e)).join("\n");
  const runs = readTrajectories(mixed, { name: "old.jsonl" });
  assert.deepEqual(runs.map((r) => [r.runId, tools(r)]), [
    ["5f0c2a9e-1b7d-4c3e-9a61-2d8e4f7b0c11/sidechain-1", ["Grep"]],
    ["5f0c2a9e-1b7d-4c3e-9a61-2d8e4f7b0c11/sidechain-2", ["Grep"]],
  ]);
  // In a sub-agent's own file, the file name names the agent.
  const own = readTrajectories(sidechain.map((e) => JSON.stringify(e)).join("\n"), { name: "subagents/agent-7ac1.jsonl" });
  assert.deepEqual(own.map((r) => [r.runId, tools(r)]), [["5f0c2a9e-1b7d-4c3e-9a61-2d8e4f7b0c11/7ac1", ["Grep"]]]);
});

test("Claude Code resumed session: the copied history is read once, the new session continues the run", () => {
  const text = fs.readFileSync(path.join(samples, "claude-code.jsonl"), "utf8").trim();
  const lines = text.split("\n").map((l) => JSON.parse(l));
  const [original, agent] = read("claude-code.jsonl");
  const last = lines.findLast((l) => l.isSidechain === false);
  // A resumed session's file: the history again under the new session id, then new entries.
  const resumed = lines.filter((l) => l.sessionId !== undefined && l.isSidechain === false).map((l) => ({ ...l, sessionId: "resumed-1" }));
  const next = [
    { ...last, sessionId: "resumed-1", uuid: "r-01", parentUuid: last.uuid, type: "assistant", timestamp: "2025-11-22T08:00:00.000Z",
      message: { id: "msg_r1", type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "tool_use", id: "toolu_r1", name: "Bash", input: { command: "git status" } }] } },
    { ...last, sessionId: "resumed-1", uuid: "r-02", parentUuid: "r-01", type: "user", timestamp: "2025-11-22T08:00:01.000Z",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_r1", content: "nothing to commit" }] } },
  ];
  const both = [text, ...[...resumed, ...next].map((l) => JSON.stringify(l))].join("\n");
  const [main, side] = readTrajectories(both, { name: "project.jsonl" });
  assert.equal(main.runId, original.runId);
  assert.deepEqual(main.steps, [...original.steps, { tool: "Bash", args: { command: "git status" }, result: "nothing to commit", at: Date.parse("2025-11-22T08:00:00.000Z"), callId: "toolu_r1" }]);
  assert.deepEqual(side, agent);
  // The resumed file alone is its own session's run, every call read once.
  const alone = readTrajectories([...resumed, ...next].map((l) => JSON.stringify(l)).join("\n"), { name: "resumed-1.jsonl" });
  assert.deepEqual(alone.map((r) => [r.runId, calls(r).length]), [["resumed-1", calls(original).length + 1]]);
});

test("Codex 0.14x: the JavaScript exec tool's calls, its text parts read as one shell output without the wall time", () => {
  const [run] = read("codex-0.144.jsonl");
  assert.equal(run.meta.cliVersion, "0.144.1");
  assert.deepEqual(tools(run), ["exec", "exec"]);
  const [tests, commit] = calls(run);
  assert.match(tests.args.input, /^const r = await tools\.exec_command\(\{"cmd":"node tests\/test-telegram-solve-queue\.mjs/);
  assert.match(tests.result, /^Script completed\nOutput:\nTesting QUEUE_CONFIG/);
  assert.match(commit.result, /^Script completed\nOutput:\n→ lint-staged/);
  assert.equal(commit.at, Date.parse("2026-07-11T15:25:03.000Z"));
});

test("codex exec --json: one run per thread, completed command and file-change items are calls", () => {
  const [first, second] = read("codex-exec.jsonl");
  assert.deepEqual([first.runId, second.runId], ["019a3fe0-82fb-7e31-8e96-1d5c0544fd8a", "019a3fe1-fd7f-7d41-8cae-d163ad45efae"]);
  assert.deepEqual(tools(first), ["shell", "shell", "shell", "shell", "apply_patch", "apply_patch", "apply_patch", "shell", "shell"]);
  assert.deepEqual(calls(first)[4].args, { changes: [{ path: "/tmp/gh-issue-solver-1762008239822/main.v", kind: "add" }] });
  assert.equal(calls(first)[4].result, "completed");
  assert.equal(calls(first)[8].result, "Attempting to run V tests\nbash: line 1: v: command not found\n");
  assert.deepEqual(calls(second)[4], { tool: "shell", args: { command: "bash -lc 'rg -n \"AGENTS.md\" -S || true'" }, result: "" });
  // A failed command (its exit code), an MCP call and its error, as codex exec prints them.
  const [run] = readTrajectories(
    [
      { type: "thread.started", thread_id: "t1" },
      { type: "item.completed", item: { id: "item_1", type: "command_execution", command: "pytest -q", aggregated_output: "1 failed", exit_code: 1, status: "failed" } },
      { type: "item.completed", item: { id: "item_2", type: "mcp_tool_call", server: "db", tool: "execute_sql", arguments: { sql: "select 1" }, result: null, error: { message: "relation does not exist" }, status: "failed" } },
    ].map((l) => JSON.stringify(l)).join("\n"),
    { name: "exec.jsonl" },
  );
  assert.deepEqual(calls(run), [
    { tool: "shell", args: { command: "pytest -q" }, error: "1 failed" },
    { tool: "execute_sql", args: { sql: "select 1" }, error: "relation does not exist" },
  ]);
});

test("Codex rollouts: exit codes make errors, timing lines are dropped, the output text is kept", () => {
  const [run] = read("codex.jsonl");
  assert.equal(run.meta.model, "gpt-5-codex");
  assert.deepEqual(run.steps.map((s) => s.event ?? s.tool), ["shell", "shell", "apply_patch", "compaction", "exec_command"]);
  const [ls, pytest, patch, rerun] = calls(run);
  assert.deepEqual(ls.args, { command: ["bash", "-lc", "ls"], workdir: "/work/api" });
  assert.equal(ls.result, "app.py\ntests\n");
  assert.equal(pytest.error, "Exit code: 1\nOutput:\nF\nE   assert 500 == 200\n1 failed in 0.41s\n");
  assert.equal(patch.result, "Success. Updated the following files:\nM app.py\n");
  assert.equal(rerun.result, "Process exited with code 0\nOriginal token count: 4\nOutput:\n1 passed in 0.38s\n");
  assert.equal(rerun.at, Date.parse("2025-11-22T14:01:05.000Z"));
});

test("our JSONL: runs, their meta, events, times and call ids", () => {
  const [loop, fixed] = read("gateway.jsonl");
  assert.deepEqual(loop.meta, { model: "small-model-7b", solved: false });
  assert.equal(calls(loop).length, 8);
  assert.equal(calls(loop)[1].callId, "u2");
  assert.deepEqual(fixed.steps.map((s) => s.event ?? s.tool), ["exec", "read", "edit_file", "compaction", "exec", "progress"]);
  assert.equal(fixed.steps[5].reason, "tests pass");
});

test("JSONL written by convert reads back to the same runs, steps and meta", () => {
  for (const name of Object.keys(EXPECTED_FORMATS)) {
    const runs = read(name);
    const lines = runs.flatMap((run) => [runLine(run.runId, run.meta, { format: run.format, file: name }), ...run.steps.map((s) => stepLine(run.runId, s))]);
    const back = readTrajectories(lines.join("\n"), { name: "converted.jsonl" });
    assert.deepEqual(
      back.map((r) => [r.runId, r.steps]),
      runs.map((r) => [r.runId, r.steps]),
      name,
    );
    back.forEach((r, i) => assert.deepEqual(r.meta, { ...runs[i].meta, sourceFormat: runs[i].format, sourceFile: name }));
  }
});

test("a line reader fed line by line gives what the whole text gives", () => {
  for (const [name, format] of [["claude-code.jsonl", "claude-code"], ["codex.jsonl", "codex"], ["gateway.jsonl", "jsonl"], ["multi-swe-java.jsonl", "openhands"]]) {
    const reader = lineReader(format, { name });
    const steps = [];
    fs.readFileSync(path.join(samples, name), "utf8")
      .split("\n")
      .forEach((line, i) => steps.push(...reader.line(line, i + 1)));
    const end = reader.end();
    steps.push(...end.steps);
    const whole = read(name);
    assert.deepEqual(end.runs.map((r) => r.runId), whole.map((r) => r.runId));
    for (const run of whole) assert.deepEqual(steps.filter((s) => s.runId === run.runId).map((s) => s.step), run.steps, name);
  }
});

/** Asserts that reading `text` as `name` fails with a TrajectoryError at `line` whose reason matches. */
function assertBadInput(text, name, line, reason, options = {}) {
  assert.throws(
    () => readTrajectories(text, { name, ...options }),
    (error) => {
      assert.ok(error instanceof TrajectoryError, `${name}: ${error}`);
      assert.equal(error.code, "bad_input");
      assert.equal(error.file, name);
      assert.equal(error.line, line, `${name}: ${error.message}`);
      assert.match(error.reason, reason);
      assert.ok(error.message.startsWith(line === undefined ? `${name}: ` : `${name}:${line}: `), error.message);
      return true;
    },
  );
}

test("bad input names the file, the line and the reason, in every family", () => {
  // JSON documents: broken JSON at its line, whatever the engine's message says.
  assertBadInput('{\n  "trajectory": [\n    {"action": "ls", }\n  ]\n}', "broken.traj", 3, /not valid JSON/);
  assertBadInput('[\n  {"task_id": 1, "traj": []},\n  {"task_id": 2 "traj": []}\n]', "results.json", 3, /not valid JSON/);
  assertBadInput('{"messages": [\n', "cut.json", 2, /not valid JSON/);
  assertBadInput('{"hello": "world"}', "other.json", undefined, /not a trajectory format/);
  assertBadInput('{"trajectory": [{"action": 7}]}', "typed.traj", undefined, /trajectory\[0\]\.action is not a string/);
  assertBadInput('[{"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}]', "chat.json", undefined, /function\.name is not a non-empty string/);
  // JSONL families: a line that is not JSON, a line that is not a record.
  const jsonl = '{"runId":"r","tool":"a","result":"x"}\n\n{"runId":"r","tool":"a",\n';
  assertBadInput(jsonl, "calls.jsonl", 3, /not valid JSON/);
  assertBadInput('{"tool":"a"}\n[1, 2]\n', "calls.jsonl", 2, /not a JSON object/);
  assertBadInput('{"tool":"a"}\n{"runId":"r","args":{}}\n', "calls.jsonl", 2, /neither a call .* nor an event/);
  assertBadInput('{"tool":"a"}\n{"event":"restart"}\n', "calls.jsonl", 2, /unknown event "restart"/);
  assertBadInput('{"tool":"a","at":"yesterday"}\n', "calls.jsonl", 1, /at is not a number/);
  const session = fs.readFileSync(path.join(samples, "claude-code.jsonl"), "utf8").split("\n");
  session.splice(4, 0, '{"type":"assistant","message":{"content":[{"type":"tool_use"');
  assertBadInput(session.join("\n"), "session.jsonl", 5, /not valid JSON/);
  const rollout = fs.readFileSync(path.join(samples, "codex.jsonl"), "utf8").split("\n");
  rollout.splice(2, 0, "not json at all");
  assertBadInput(rollout.join("\n"), "rollout.jsonl", 3, /not valid JSON/, { format: "codex" });
  assertBadInput("hello\n", "notes.jsonl", 1, /not valid JSON/);
  assertBadInput("hello\nno actions here\n", "notes.txt", 1, /not valid JSON/);
  assertBadInput('{"instance_id": "a", "history": [{"action": "run"}]}\n{"instance_id": "a"}\n', "output.jsonl", 2, /not an OpenHands instance/);
  assertBadInput('{"suite_name": "s", "messages": [{"role": "assistant", "tool_calls": [{"function": "", "args": {}}]}]}', "run.json", undefined, /function is not a non-empty string/);
  assertBadInput('{"a": 1}\n', "notes.jsonl", 1, /not a trajectory format/);
  assertBadInput("   \n", "empty.json", undefined, /empty/);
  // A named format that does not fit the document.
  assertBadInput(fs.readFileSync(path.join(samples, "openai-chat.json"), "utf8"), "chat.json", undefined, /trajectory is not an array/, { format: "swe-agent" });
});
