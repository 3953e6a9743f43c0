// The public trajectories the development set is built from: repository, commit, which files,
// which agent system and model, and how "solved" is known. eval/SOURCES.md cites the same list for
// readers; eval/build-devset.mjs reads this one. None of these is reserved by /work/shared/DATA.md
// (tau-bench's own historical_trajectories/, including gpt-4o-airline.json, are not used).

/**
 * A course repository of SWE-agent 1.0 runs copied from SWE-bench experiment submissions: every
 * `.traj` file matching `pattern` is a run named after the file; `modelOf(file)` names its model.
 */
const courseRepo = ({ id, repo, commit, pattern = /\.traj$/, modelOf }) => ({
  id,
  repo,
  commit,
  licence: "none stated",
  format: "swe-agent",
  system: "SWE-agent 1.0 (function calling)",
  pattern,
  describe: (file) => ({ task: file.split("/").at(-1).replace(/\.traj$/, ""), model: modelOf(file) }),
});

// One row per repository. Rows of the same format share their keys (a shape the duplicate scan
// flags); the values they also share are written once, in courseRepo.
export const SOURCES = [
  {
    id: "taubench-agentverify",
    repo: "avaljotsingh/tau-bench",
    commit: "f2ad25ac1aa0b42bb6d2f1ced30b38d3dd34f086",
    licence: "MIT (LICENSE in the repository)",
    format: "tau-bench",
    domain: "retail",
    model: "not recorded (run.py called with --model none against an OpenAI-compatible endpoint)",
    files: [
      { tag: "tool-calling", path: "final_results/tool-calling-none-0.1_range_0-100_user-none-llm_06232025.json", system: "tau-bench tool-calling agent" },
      { tag: "preconditions", path: "final_results/tool-calling-with-preconditions-none-0.1_range_0-100_user-none-llm_0626123715.json", system: "AgentVerify tool-calling with preconditions" },
      { tag: "precond-python-a", path: "final_results/tool-calling-with-preconditions-and-python-none-0.1_range_0--1_user-none-llm_0627143046.json", system: "AgentVerify preconditions + python" },
      { tag: "precond-python-b", path: "final_results/tool-calling-with-preconditions-and-python-none-0.1_range_0--1_user-none-llm_0627144318.json", system: "AgentVerify preconditions + python" },
      { tag: "assertions", path: "final_results/assertions-agent-none-0.1_range_0-100_6_18_2025.json", system: "AgentVerify assertions agent" },
      { tag: "assertions-no-post", path: "final_results/assertions-agent-none-0.1_range_0-100_6_20_2025_without_postcondition.json", system: "AgentVerify assertions agent (no postconditions)" },
    ],
  },
  {
    id: "taubench-apollo",
    repo: "jmoreno-labelbox/apollo-tau-bench",
    commit: "a3707909a4559f6b0cf1e664450bd0072cb1fbc8",
    licence: "MIT (LICENSE in the repository)",
    format: "tau-bench",
    domain: "apollo",
    model: "gpt-4o-2024-08-06 (user simulator gpt-4.1-2025-04-14)",
    files: [
      { tag: "gpt4o-a", path: "tau/results/tool-calling-gpt-4o-2024-08-06-0.0_range_0-1_user-gpt-4.1-2025-04-14-llm_1008184307.json", system: "tau-bench tool-calling agent" },
      { tag: "gpt4o-b", path: "tau/results/tool-calling-gpt-4o-2024-08-06-0.0_range_0-1_user-gpt-4.1-2025-04-14-llm_1008184349.json", system: "tau-bench tool-calling agent" },
    ],
  },
  {
    id: "sweagent-demos",
    repo: "SWE-agent/SWE-agent",
    commit: "3ea751c087f32b16e039a2233dd6eefecef325d5",
    licence: "MIT (LICENSE in the repository)",
    format: "swe-agent",
    system: "SWE-agent (demonstrations and test fixtures)",
    pattern: /^(trajectories\/demonstrations|tests\/test_data\/trajectories)\/.*\.traj$/,
    describe: (file) => ({
      task: file.replace(/\.traj$/, "").replace(/^trajectories\/demonstrations\//, "demo/").replace(/^tests\/test_data\/trajectories\//, "test/"),
      model: file.startsWith("tests/") ? "gpt-4 (test fixture)" : "demonstration (replayed actions)",
    }),
  },
  courseRepo({
    id: "sweagent-cs598-lgetter",
    repo: "lgetter/swe-agent-trajectory-analysis",
    commit: "b63a1fe6ec11271b2c90730c242c3c562622b6d2",
    pattern: /^trajs\/.*\.traj$/,
    modelOf: () => "claude (SWE-agent 1.0.1 SWE-bench Verified submission)",
  }),
  courseRepo({
    id: "sweagent-cs598-apurv",
    repo: "apurv-sawant15/SWE-Agent-Trajectory-Analysis",
    commit: "c3da9e5359dbb0ec9d1e19d5365e533bfda2fac0",
    modelOf: (file) => (file.startsWith("Qwen") ? "Qwen-2.5-Coder-Instruct" : "claude-sonnet"),
  }),
  courseRepo({
    id: "sweagent-cs598-group8",
    repo: "RLin8103/cs598-swe-agent-trajectory-analysis-group8",
    commit: "f6ccbefc064c0478e2fc9ce7fd9793277cbdbcf1",
    modelOf: (file) => (file.includes("sweagent_lm") ? "SWE-agent-LM-32B" : "claude-4-sonnet"),
  }),
  courseRepo({
    id: "sweagent-cs598-team26",
    repo: "noahantisseril/CS598JBR-Team-26",
    commit: "5b406e6daf25bc422282cf3a00d70decfd21da11",
    modelOf: (file) =>
      file.includes("sweagent_lm_32b")
        ? "SWE-agent-LM-32B (submission 20250511_sweagent_lm_32b)"
        : "claude-4-sonnet-20250514 (submission 20250522_sweagent_claude-4-sonnet-20250514)",
  }),
  {
    id: "agentdojo-luna",
    repo: "Liu-Ruotian/agentdojo-luna-trajectories",
    commit: "c5b64f393cf0f77bf9cb99577b0aba27c51314a6",
    licence: "none stated",
    format: "agentdojo",
    system: "AgentDojo-style tool-calling pipeline (agentdojo-benchmark suites: web search, page reading, account and service tools, get_user_help)",
    pattern: /^runs\/.*\.json$/,
    conditions: {
      poison_top1: "poison_top1: the top-ranked web result is a planted untrusted page (an injection-style condition, not a benign run)",
    },
  },
  {
    id: "openhands-examples",
    repo: "ergt10/openhands_swebench",
    commit: "773c12a0a717427c06560a6d25d3fe35553e151f",
    licence: "MIT (OpenHands/LICENSE; the file is OpenHands' own example output)",
    format: "openhands",
    system: "OpenHands CodeAct agent (execute_bash, str_replace_editor, think, finish)",
    model: "openrouter llama-4-maverick",
    files: ["OpenHands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl"],
  },
  {
    id: "react-webshop",
    repo: "ysymyth/ReAct",
    commit: "6bdb3a1fd38b8188fc7ba4102969fe483df8fdc9",
    licence: "MIT (LICENSE in the repository)",
    format: "react-webshop",
    system: "ReAct agent on WebShop (search, click, think)",
    model: "text-davinci-002",
    path: "WebShop.ipynb",
    cell: 7,
  },
  {
    id: "reflexion-hotpotqa",
    repo: "noahshinn/reflexion",
    commit: "218cf0ef1df84b05ce379dd4a8e47f17766733a0",
    licence: "MIT (LICENSE in the repository)",
    format: "reflexion-hotpotqa",
    system: "Reflexion's ReAct agent on HotpotQA (Search, Lookup, Finish over Wikipedia; 6 steps)",
    model: "not recorded in the log (the repository's ReAct agent defaults to text-davinci-003)",
    path: "hotpotqa_runs/root/ReAct/base/100_questions_5_trials.txt",
    trial: 1,
  },
];
