// A scripted model behind OpenAI's Chat Completions API (streamed), on 127.0.0.1, for the real
// OpenClaw gateway to call as its model provider (`api: "openai-completions"`). What it answers is
// decided per request by `policy(turn)`, where `turn` is what the model was sent since the current
// user message: `{ prompt, toolResults }` (the user message's text and every tool result's text
// since). Every request body is kept, so a test can read what the model was given.
import http from "node:http";

/** The user message that opened the current turn (not OpenClaw's internal context block). */
const INTERNAL = "BEGIN_OPENCLAW_INTERNAL_CONTEXT";

function textOf(content) {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((part) => part?.text ?? "").join("") : "";
}

/** The current turn of a Chat Completions request: the prompt and the tool results since. */
export function turnOf(body) {
  const messages = body.messages ?? [];
  const start = messages.findLastIndex((m) => m.role === "user" && !textOf(m.content).includes(INTERNAL));
  return {
    prompt: start < 0 ? "" : textOf(messages[start].content),
    toolResults: messages.slice(start + 1).filter((m) => m.role === "tool").map((m) => textOf(m.content)),
  };
}

/**
 * Starts the model on a free 127.0.0.1 port. `policy(turn)` returns `{ call: { name, args } }` or
 * `{ text }`; it can be replaced (`model.policy = ...`) between turns. Returns
 * `{ baseUrl, requests, policy, close() }`; `requests` are the parsed request bodies, in order.
 */
export async function startFakeModel(policy) {
  const model = { requests: [], policy };
  let n = 0;
  const server = http.createServer(async (request, response) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw || "{}");
    model.requests.push(body);
    const answer = model.policy(turnOf(body));
    n += 1;
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ id: `chatcmpl-${n}`, object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (answer.call !== undefined) {
      const call = { index: 0, id: `call_${n}`, type: "function", function: { name: answer.call.name, arguments: JSON.stringify(answer.call.args) } };
      response.write(chunk({ role: "assistant", tool_calls: [call] }));
      response.write(chunk({}, "tool_calls"));
    } else {
      response.write(chunk({ role: "assistant", content: answer.text }));
      response.write(chunk({}, "stop"));
    }
    response.end("data: [DONE]\n\n");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  model.baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
  model.close = () => new Promise((resolve) => server.close(resolve));
  return model;
}
