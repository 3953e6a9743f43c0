// In Node the wrapper hashes long result texts with node:crypto and sends `textSha256` digests
// instead of the text; elsewhere it passes the first long text beside the JSON (side text). The
// outcome digests must be identical to sending the text inline: the run snapshots (which hold the
// digests) of the three paths are compared byte for byte.
import assert from "node:assert/strict";
import { test } from "node:test";
import { hashLargeTexts } from "../../../pkg/encode.js";
import { assertWaysAgree, limit, textWays } from "./text-ways.mjs";

const long = (c, extra = 1) => c.repeat(limit + extra);

const outcomes = [
  { tool: "read_file", args: { path: "a.log" }, result: long("a") },
  { tool: "read_file", args: { path: "b.log" }, result: "é".repeat(Math.ceil(limit / 2)) + "!" },
  { tool: "read_file", args: { path: "c.log" }, result: long("c", 0) },
  {
    tool: "fetch",
    args: { url: "https://example.invalid/" },
    result: {
      content: [
        { type: "text", text: long("x", 500) },
        { type: "image", data: "aGVsbG8=" },
        { type: "text", text: "short" },
        { type: "text", text: long("y"), annotations: { priority: 1 } },
      ],
      details: { status: 200, durationMs: 12 },
    },
  },
  { tool: "exec", args: { command: "make" }, result: { content: [{ type: "text", text: long("z") }], details: { status: "completed", exitCode: 2 } } },
  { tool: "search", args: { q: "x" }, result: { content: [{ type: "text", text: long("unknown tool nope ") }], isError: true } },
];

test("long texts are replaced by digests, short ones are kept, nothing is modified", () => {
  const hash = (text) => `h${text.length}`;
  const texts = { hash, above: limit };
  const short = { tool: "t", result: "x".repeat(limit) };
  assert.equal(hashLargeTexts(short, texts), short);
  assert.deepEqual(hashLargeTexts({ tool: "t", result: long("x") }, texts), {
    tool: "t",
    result: { content: [{ type: "text", textSha256: `h${limit + 1}` }] },
  });
  const before = structuredClone(outcomes[3]);
  const sent = hashLargeTexts(outcomes[3], texts);
  assert.deepEqual(outcomes[3], before);
  assert.deepEqual(
    sent.result.content.map((p) => Object.keys(p).join()),
    ["type,textSha256", "type,data", "type,text", "type,annotations,textSha256"],
  );
});

test("hashed, side and inline large texts give identical verdicts and outcome digests", () => {
  const ways = textWays();
  for (let round = 0; round < 3; round++) {
    outcomes.forEach((outcome, i) => {
      const at = 1000 * (round * outcomes.length + i);
      const call = { runId: "r", tool: outcome.tool, args: outcome.args, at };
      assertWaysAgree(ways, (guard) => [guard.check(call), guard.record({ ...outcome, runId: "r", at })]);
    });
  }
  assertWaysAgree(ways, (guard) => guard.exportRun("r"));
});
