// The real-records benchmark set: one workload per kind of agent, each from public repositories at
// a pinned commit (bench/real/SOURCES.md cites them; bench/real/build.mjs converts them). None of
// these is reserved by /work/shared/DATA.md. `format` is the package reader's format id; `reshape`
// turns a document the readers do not know into one they do.

/**
 * An AgentDojo-style run file as an OpenAI Chat document: assistant `tool_calls` of
 * `{function, args, id}` become `{id, function: {name, arguments}}`; a tool message's text parts
 * (or, when the tool raised, its error) become its content.
 */
function agentDojoAsChat(run) {
  const messages = (run.messages ?? []).map((message) => {
    if (message.role === "assistant") {
      const calls = (message.tool_calls ?? []).map((call) => ({ id: call.id, type: "function", function: { name: call.function, arguments: JSON.stringify(call.args ?? {}) } }));
      return { role: "assistant", content: null, tool_calls: calls };
    }
    if (message.role === "tool") {
      const text = message.error ? `error: ${message.error}` : (message.content ?? []).map((part) => part.content ?? part.text ?? "").join("");
      return { role: "tool", tool_call_id: message.tool_call_id, content: text };
    }
    return { role: message.role, content: "" };
  });
  return { messages };
}

/** A SWE-agent 1.0 course repository (copies of SWE-bench submissions' `.traj` files). */
const sweAgentCourse = (repo, commit, pattern = /\.traj$/) => ({ repo, commit, pattern, format: "swe-agent" });

export const WORKLOADS = [
  {
    id: "multi-turn-calls",
    family: "multi-turn function calling, small structured results",
    agent: "AgentDojo-style tool-calling pipeline, gpt-5.6-luna",
    maxCalls: 2000,
    sources: [
      {
        repo: "Liu-Ruotian/agentdojo-luna-trajectories",
        commit: "c5b64f393cf0f77bf9cb99577b0aba27c51314a6",
        pattern: /^runs\/2026-07-18\/.*\/seed_1\.json$/,
        format: "openai-chat",
        reshape: agentDojoAsChat,
      },
    ],
  },
  {
    id: "customer-service",
    family: "customer service, JSON APIs",
    agent: "tau-bench retail: tool-calling agent and AgentVerify variants",
    maxCalls: 3000,
    sources: [{ repo: "avaljotsingh/tau-bench", commit: "f2ad25ac1aa0b42bb6d2f1ced30b38d3dd34f086", pattern: /^final_results\/.*\.json$/, format: "tau-bench" }],
  },
  {
    id: "coding-bash",
    family: "coding agent, bash only",
    agent: "SWE-agent 1.0 with one bash tool (SWE-bench Verified copies)",
    maxCalls: 2000,
    sources: [
      sweAgentCourse("lgetter/swe-agent-trajectory-analysis", "b63a1fe6ec11271b2c90730c242c3c562622b6d2", /^trajs\/.*\.traj$/),
      sweAgentCourse("RLin8103/cs598-swe-agent-trajectory-analysis-group8", "f6ccbefc064c0478e2fc9ce7fd9793277cbdbcf1", /^trajs\/.*\.traj$/),
    ],
  },
  {
    id: "coding-editor",
    family: "coding agent with an editor tool",
    agent: "SWE-agent 1.0, bash and str_replace_editor (SWE-bench submissions)",
    maxCalls: 2000,
    sources: [
      sweAgentCourse("noahantisseril/CS598JBR-Team-26", "5b406e6daf25bc422282cf3a00d70decfd21da11", /^Additional_Task\/extracted_trajectories\/.*\.traj$/),
      sweAgentCourse("apurv-sawant15/SWE-Agent-Trajectory-Analysis", "c3da9e5359dbb0ec9d1e19d5365e533bfda2fac0"),
    ],
  },
  {
    id: "swe-agent-commands",
    family: "SWE-agent commands (open, edit, search, …)",
    agent: "SWE-agent demonstrations and test trajectories",
    maxCalls: 2000,
    sources: [
      {
        repo: "SWE-agent/SWE-agent",
        commit: "3ea751c087f32b16e039a2233dd6eefecef325d5",
        pattern: /^(trajectories\/demonstrations|tests\/test_data\/trajectories)\/.*\.traj$/,
        format: "swe-agent",
      },
    ],
  },
];
