// tool-loop-guard/langchain inside a real LangChain agent (`createAgent` of langchain 1.x on
// LangGraph), driven by `fakeModel()` from @langchain/core/testing scripted to call the same tool
// at every turn.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { LoopGuard } from "tool-loop-guard";
import { guardLangChain } from "tool-loop-guard/langchain";
import { z } from "zod";
import { CONFIG, executionCounter, expectedRun, STUCK_RESULT } from "./support.mjs";

const ARGS = { job: "42" };

/** A fake model that calls `status(ARGS)` for `turns` turns, then answers "done". */
function repeatingModel(turns) {
  const model = fakeModel();
  // Factories, not respondWithTools: that one's message text concatenates the whole history,
  // which doubles at every turn.
  for (let i = 0; i < turns; i += 1) {
    model.respond(() => new AIMessage({ content: "", tool_calls: [{ name: "status", args: ARGS, id: `call-${i}`, type: "tool_call" }] }));
  }
  return model.respond(new AIMessage("done"));
}

async function run(guard, { threadId, resultOf, turns }) {
  const guarded = guardLangChain(guard);
  const status = tool(async () => resultOf(), {
    name: "status",
    description: "Status of a background job",
    schema: z.object({ job: z.string() }),
  });
  const model = repeatingModel(turns);
  const agent = createAgent({ model, tools: [status], middleware: [guarded.middleware] });
  const state = await agent.invoke(
    { messages: [{ role: "user", content: "Wait for job 42 to finish." }] },
    { configurable: { thread_id: threadId }, recursionLimit: 4 * turns + 10 },
  );
  const toolMessages = state.messages.filter((m) => m.type === "tool");
  return { state, toolMessages, model, stopped: guarded.stopped(threadId) };
}

describe("tool-loop-guard/langchain with langchain createAgent", () => {
  test("an endlessly repeated call is refused at the core's call and the run ends with an explanation", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    assert.ok(plan.firstBlock !== null && plan.stopAt !== null && plan.firstBlock < plan.stopAt);
    const guard = new LoopGuard(CONFIG);
    let executed = 0;
    const { state, toolMessages, model, stopped } = await run(guard, {
      threadId: "thread-1",
      resultOf: () => ((executed += 1), STUCK_RESULT),
      turns: 60,
    });
    assert.equal(executed, plan.executed, "the tool ran only while the guard allowed it");
    assert.equal(toolMessages.length, plan.stopAt);
    assert.equal(model.callCount, plan.stopAt, "no model call after the stop");
    assert.deepEqual(JSON.parse(toolMessages[plan.firstBlock - 1].content), plan.verdicts[plan.firstBlock - 1].refusal);
    assert.equal(toolMessages[plan.firstBlock - 1].tool_call_id, `call-${plan.firstBlock - 1}`);
    assert.equal(stopped.action, "stop");
    assert.equal(stopped.runId, "thread-1");
    const last = state.messages.at(-1);
    assert.equal(last.type, "ai");
    assert.equal(last.content, stopped.message, "the last message says why the run stopped");
    guard.free();
  });

  test("the warning's hint reaches the model on its next call", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const hint = plan.verdicts[plan.firstWarn - 1].hint;
    const guard = new LoopGuard(CONFIG);
    const { model } = await run(guard, { threadId: "t", resultOf: () => STUCK_RESULT, turns: 60 });
    const humanTexts = (call) => call.messages.filter((m) => m.type === "human").map((m) => m.content);
    assert.ok(!humanTexts(model.calls[plan.firstWarn - 1]).includes(hint), "no hint before the warning");
    assert.ok(humanTexts(model.calls[plan.firstWarn]).includes(hint), "the hint is in the next call's messages");
    guard.free();
  });

  test("a repeated call whose result changes is never refused", async () => {
    const guard = new LoopGuard(CONFIG);
    let n = 0;
    const { state, stopped } = await run(guard, {
      threadId: "progress",
      resultOf: () => `job 42: ${(n += 1)} of 30 steps done`,
      turns: 25,
    });
    assert.equal(n, 25);
    assert.equal(stopped, undefined);
    assert.equal(state.messages.at(-1).content, "done", "the model's own answer ends the run");
    assert.equal(guard.stats().byAction.block, 0);
    assert.equal(guard.stats().byAction.stop, 0);
    guard.free();
  });

  test("two interleaved runs on one guard stay independent", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const guard = new LoopGuard(CONFIG);
    const counter = executionCounter();
    const runs = await Promise.all(
      ["thread-a", "thread-b"].map((threadId) =>
        run(guard, { threadId, resultOf: () => (counter.add(threadId), STUCK_RESULT), turns: 60 }),
      ),
    );
    for (const [i, threadId] of ["thread-a", "thread-b"].entries()) {
      assert.equal(counter.of(threadId), plan.executed);
      assert.equal(runs[i].toolMessages.length, plan.stopAt);
      assert.equal(runs[i].stopped.runId, threadId);
    }
    guard.free();
  });
});
