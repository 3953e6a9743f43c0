// The public trajectories the development set is built from: repository, commit, which files, the
// family, agent system and model, and how "solved" is known. eval/SOURCES.md cites the same list
// for readers; eval/build-devset.mjs reads this one and converts every file with the package's own
// trajectory readers (tool-loop-guard/replay). None of these is reserved by /work/shared/DATA.md
// (tau-bench's historical_trajectories/gpt-4o-airline.json and every tau2-bench result are not used).
//
// A source: {id, repo, commit, licence, family, system, format?, files, split?, run}.
//   files  a RegExp over the paths of the commit, or a list of paths
//   format the reader to use (detected from content when absent)
//   split  (text, path) => [{name, text, info}]: a file that holds many runs as printed text
//   run    (trajectory, {path, info, repo, domain}) => what the run line's meta says of the run,
//          or null to leave it out: {key (the runId after "<source id>/"), taskId, solved,
//          solvedHow, model, system?}

const UNKNOWN = "unknown: no evaluation report published with these trajectories";
const UNKNOWN_SESSION = "unknown: a developer's own session, no task outcome recorded";

/**
 * hive-mind case-study logs holding the stream-json events of Claude Code solve runs, one copy of
 * each session: issue-724/solution-draft-1.txt and pr49-run1-log.txt are left out, as the logs of
 * their second attempt (solution-draft-2.txt, pr49-run2-log.txt) print the first session again
 * before the resumed one; issue-759-log-truncation/gist-d5059763-log.txt is issue-759's upload.
 */
const HIVE_MIND_LOGS = [
  "issue-724/solution-draft-2.txt",
  "pr-52-log.txt",
  "issue-759/uploaded-log.txt",
  "pr-4-ci-log-issue/session-1-log.txt",
  "pr-4-ci-log-issue/session-2-log.txt",
  "pr-4-ci-log-issue/session-3-log.txt",
  "pr-4-ci-log-issue/session-4-log.txt",
  "issue-667-pricing-calculation-failures/pr49-run2-log.txt",
  "issue-759-log-truncation/gist-7257b11a-log.txt",
  "pr-4-revert-issue/session1_log.txt",
  "pr-4-revert-issue/session2_log.txt",
  "pr-4-revert-issue/session3_log.txt",
].map((file) => `docs/case-studies/${file}`);

const REWARD = "reward == 1 in the result entry (tau-bench's own reward)";
const GRADED = "info.reward_info: r_actions == 1 and r_outputs == 1 where checked (this file's reward is a graded score, not 0/1)";

/**
 * Solved by tau-bench's own checks when a file's `reward` is a graded score rather than 0/1: the
 * final database matched (`r_actions` 1) and so did the required outputs, if the task has any.
 */
function solvedByChecks(entry) {
  const checks = entry?.info?.reward_info?.info;
  if (checks?.r_actions === undefined) return false;
  return checks.r_actions === 1 && (checks.r_outputs === undefined || checks.r_outputs === 1);
}

/**
 * A tau-bench result source: every file is a results JSON of one agent strategy and model; a run
 * is one task result. `files`: [{path, tag?, system, model, domain?}]; the domain (airline or
 * retail) is found from the tools the file's runs call when not given. `gradedReward`: the files'
 * reward is not 0/1, so "solved" comes from the checks behind it (solvedByChecks).
 */
function tauBench({ id, repo, commit, files, gradedReward = false, licence = "MIT (tau-bench's LICENSE in the repository)" }) {
  const byPath = new Map(files.map((f) => [f.path, f]));
  return {
    id,
    repo,
    commit,
    licence,
    family: "customer-service",
    format: "tau-bench",
    files: files.map((f) => f.path),
    system: [...new Set(files.map((f) => f.system))].join("; "),
    run: (t, { path, domain, repo: files }) => {
      const file = byPath.get(path);
      const entry = () => files.json(path).find((e) => e.task_id === t.meta.taskId && (e.trial ?? 0) === t.meta.trial);
      return {
        key: `${file.tag ?? tauTag(path)}/task${t.meta.taskId}-t${t.meta.trial}`,
        taskId: `${file.domain ?? domain}/${t.meta.taskId}`,
        solved: gradedReward ? solvedByChecks(entry()) : (t.meta.solved ?? null),
        solvedHow: gradedReward ? GRADED : REWARD,
        model: file.model,
        system: file.system,
      };
    },
  };
}

/** A run tag from a tau-bench result file name: strategy and model, and the file's time stamp. */
function tauTag(path) {
  const stem = path.split("/").at(-1).replace(/\.json$/, "");
  const match = /^(.*?)-\d\.\d+_.*?_(\d{6,})(?:_\w+)?$/.exec(stem);
  return match ? `${match[1]}-${match[2]}` : stem;
}

/**
 * A course repository of SWE-agent 1.0 runs copied from SWE-bench experiment submissions: every
 * `.traj` file matching `pattern` is a run named after the file; `modelOf(file)` names its model.
 */
const courseRepo = ({ id, repo, commit, pattern = /\.traj$/, modelOf }) => ({
  id,
  repo,
  commit,
  licence: "none stated",
  family: "coding-editor",
  format: "swe-agent",
  system: "SWE-agent 1.0 (function calling)",
  files: pattern,
  run: (t, { path }) => {
    const task = path.split("/").at(-1).replace(/\.traj$/, "");
    return { key: task, taskId: task, solved: null, solvedHow: UNKNOWN, model: modelOf(path) };
  },
});

/**
 * A SWE-bench experiments submission of SWE-agent (`<dir>/trajs/<id>/<id>.traj`), solved when its
 * `results/results.json` lists the instance as resolved.
 */
const sweBenchSubmission = ({ id, repo, commit, dir, model, system }) => ({
  id,
  repo,
  commit,
  licence: "none stated (a copy of the SWE-bench/experiments submission)",
  family: "coding-editor",
  format: "swe-agent",
  system,
  files: new RegExp(`^${dir}/trajs/.*\\.traj$`),
  run: (t, { path, repo: files }) => {
    const task = path.split("/").at(-1).replace(/\.traj$/, "");
    const resolved = files.json(`${dir}/results/results.json`).resolved;
    return {
      key: task,
      taskId: `swe-bench-verified/${task}`,
      solved: resolved.includes(task),
      solvedHow: `listed under "resolved" in ${dir}/results/results.json (SWE-bench's evaluation)`,
      model,
    };
  },
});

/** OpenHands evaluation output files (one instance a line); `keyOf(run, path)` names a run. */
const openHands = ({ id, repo, commit, licence, system, files, keyOf }) => ({
  id,
  repo,
  commit,
  licence,
  family: "coding-editor",
  format: "openhands",
  system,
  files,
  run: (t, { path }) => ({
    key: keyOf(t, path),
    taskId: t.meta.instanceId,
    solved: t.meta.solved ?? null,
    solvedHow: t.meta.solved === undefined ? "unknown: the output carries no evaluation report" : "test_result.report.resolved in the output",
    model: t.meta.model,
  }),
});

// Customer-service sources first, then coding agents, then the rest; a run whose calls and
// outcomes equal a run converted earlier (a copy in another repository) is left out.
export const SOURCES = [
  tauBench({
    id: "taubench-agentverify",
    repo: "avaljotsingh/tau-bench",
    commit: "f2ad25ac1aa0b42bb6d2f1ced30b38d3dd34f086",
    files: [
      ["tool-calling", "final_results/tool-calling-none-0.1_range_0-100_user-none-llm_06232025.json", "tau-bench tool-calling agent"],
      ["preconditions", "final_results/tool-calling-with-preconditions-none-0.1_range_0-100_user-none-llm_0626123715.json", "AgentVerify tool-calling with preconditions"],
      ["precond-python-a", "final_results/tool-calling-with-preconditions-and-python-none-0.1_range_0--1_user-none-llm_0627143046.json", "AgentVerify preconditions + python"],
      ["precond-python-b", "final_results/tool-calling-with-preconditions-and-python-none-0.1_range_0--1_user-none-llm_0627144318.json", "AgentVerify preconditions + python"],
      ["assertions", "final_results/assertions-agent-none-0.1_range_0-100_6_18_2025.json", "AgentVerify assertions agent"],
      ["assertions-no-post", "final_results/assertions-agent-none-0.1_range_0-100_6_20_2025_without_postcondition.json", "AgentVerify assertions agent (no postconditions)"],
    ].map(([tag, path, system]) => ({ tag, path, system, domain: "retail", model: "not recorded (run.py called with --model none against an OpenAI-compatible endpoint)" })),
  }),
  tauBench({
    id: "taubench-apollo",
    repo: "jmoreno-labelbox/apollo-tau-bench",
    commit: "a3707909a4559f6b0cf1e664450bd0072cb1fbc8",
    files: ["1008184307", "1008184349"].map((stamp, i) => ({
      tag: `gpt4o-${"ab"[i]}`,
      path: `tau/results/tool-calling-gpt-4o-2024-08-06-0.0_range_0-1_user-gpt-4.1-2025-04-14-llm_${stamp}.json`,
      system: "tau-bench tool-calling agent",
      domain: "apollo",
      model: "gpt-4o-2024-08-06 (user simulator gpt-4.1-2025-04-14)",
    })),
  }),
  tauBench({
    id: "taubench-grok4",
    repo: "ShramanPramanick/Grok_tau_Bench",
    commit: "ca5b51744212a3c3c548b1b81ab9cb9d3119258a",
    files: [
      "act-grok-4-fast-non-reasoning-0.0_range_0--1_user-grok-4-fast-non-reasoning-llm_1129210244",
      "act-grok-4-fast-reasoning-0.0_range_0--1_user-grok-4-fast-reasoning-llm_1129213534",
      "few-shot-grok-4-fast-non-reasoning-0.0_range_0--1_user-grok-4-fast-non-reasoning-llm_1129212504",
      "few-shot-grok-4-fast-reasoning-0.0_range_0--1_user-grok-4-fast-reasoning-llm_1129220824",
      "react-grok-4-fast-non-reasoning-0.0_range_0--1_user-grok-4-fast-non-reasoning-llm_1129211524",
      "react-grok-4-fast-reasoning-0.0_range_0--1_user-grok-4-fast-reasoning-llm_1129215652",
      "tool-calling-grok-4-1-fast-non-reasoning-0.0_range_0--1_user-grok-4-1-fast-reasoning-llm_1129150023",
      "tool-calling-grok-4-1-fast-non-reasoning-0.0_range_0--1_user-grok-4-1-fast-reasoning-llm_1129153740",
      "tool-calling-grok-4-1-fast-non-reasoning-0.0_range_0--1_user-grok-4-1-fast-reasoning-llm_1129174548",
      "tool-calling-grok-4-1-fast-reasoning-0.0_range_0--1_user-grok-4-1-fast-reasoning-llm_1129145530",
      "tool-calling-grok-4-1-fast-reasoning-0.0_range_0--1_user-grok-4-1-fast-reasoning-llm_1129154012",
      "tool-calling-grok-4-1-fast-reasoning-0.0_range_0--1_user-grok-4-1-fast-reasoning-llm_1129174540",
      "tool-calling-grok-4-fast-non-reasoning-0.0_range_0--1_user-grok-4-fast-non-reasoning-llm_1129145156",
      "tool-calling-grok-4-fast-non-reasoning-0.0_range_0--1_user-grok-4-fast-non-reasoning-llm_1129151208",
      "tool-calling-grok-4-fast-non-reasoning-0.0_range_0--1_user-grok-4-fast-non-reasoning-llm_1129154422",
      "tool-calling-grok-4-fast-reasoning-0.0_range_0--1_user-grok-4-fast-reasoning-llm_1129144541",
      "tool-calling-grok-4-fast-reasoning-0.0_range_0--1_user-grok-4-fast-reasoning-llm_1129151151",
      "tool-calling-grok-4-fast-reasoning-0.0_range_0--1_user-grok-4-fast-reasoning-llm_1129164721",
    ].map((stem) => {
      const [, strategy, model, user] = /^(act|few-shot|react|tool-calling)-(.*?)-0\.0_range_0--1_user-(.*?)-llm_/.exec(stem);
      return { path: `results/${stem}.json`, system: `tau-bench ${strategy} agent`, model: `${model} (user simulator ${user})` };
    }),
  }),
  tauBench({
    id: "taubench-grok3",
    repo: "sierra-research/tau-bench",
    commit: "33f79e758d5ac350903db78b467ab70527697f5a",
    files: [{ path: "tau_bench/tool-calling-grok-3-0.0_range_0--1_user-grok-3-llm_0921131646.json", system: "tau-bench tool-calling agent", model: "grok-3 (user simulator grok-3)" }],
    gradedReward: true,
  }),
  tauBench({
    id: "taubench-llama-il",
    repo: "Reapor-Yurnero/tau-bench",
    commit: "2cfc5bd51cecc20bd320defa28207fbf9d88e0b8",
    files: [
      { path: "results/Llama-3.1-8B-Instruct/airline-temperature-0.0_0717023520.json", tag: "llama31-8b-airline", model: "Llama-3.1-8B-Instruct" },
      { path: "results/Llama-3.1-8B-Instruct/retail-temperature-0.0_0717023203.json", tag: "llama31-8b-retail", model: "Llama-3.1-8B-Instruct" },
      { path: "results/Llama-3.1-8B-Instruct_IL_checkpoint-30/airline-temperature-0.0_0717014101.json", tag: "llama31-8b-il30-airline", model: "Llama-3.1-8B-Instruct after imitation learning (checkpoint 30)" },
      { path: "results/Llama-3.2-3B-Instruct/airline-temperature-0.0.json", tag: "llama32-3b-airline", model: "Llama-3.2-3B-Instruct" },
    ].map((f) => ({ ...f, system: "tau-bench tool-calling agent (vLLM backend)" })),
  }),
  tauBench({
    id: "taubench-llama-locale",
    repo: "aaronwu901225main/tau-bench",
    commit: "a061b81151dc8079fceda8fd80b91b2ca1eaa858",
    files: [
      {
        path: "results/Llama-3.1-8B-Instruct/airline_en_tool-calling/tool-calling-Llama-3.1-8B-Instruct-1.0_range_0--1_user-gpt-4o-llm_locale-en_checkpoint.json",
        tag: "llama31-8b-airline-en",
        system: "tau-bench tool-calling agent",
        model: "Llama-3.1-8B-Instruct, temperature 1.0 (user simulator gpt-4o)",
      },
    ],
  }),
  tauBench({
    id: "taubench-neo",
    repo: "yiphei/new-tau-bench",
    commit: "49e86328033d4857e51bc8fdac7e0053a0fa7eb4",
    files: [
      { path: "historical_trajectories/neo-test-airline.json", tag: "neo-test", system: "tau-bench tool-calling agent (the repository's 'neo' variant)", model: "not recorded in the file" },
      { path: "historical_trajectories/neo-revised-test-airline.json", tag: "neo-revised", system: "tau-bench tool-calling agent (the repository's revised 'neo' variant)", model: "not recorded in the file" },
    ],
  }),
  tauBench({
    id: "taubench-qwen3",
    repo: "fabrahman/tau-bench",
    commit: "80e8dc73e3973a21997200430859df7c009285a9",
    files: [{ path: "outputs/qwen3_8b_airline.json", tag: "qwen3-8b-airline", system: "tau-bench tool-calling agent", model: "Qwen3-8B" }],
  }),
  tauBench({
    id: "taubench-garrett",
    repo: "garrettallen14/tau-bench",
    commit: "2655e1f8c0e5c3b8fdeb4e2e4542bdcbc021a9f2",
    files: [
      ["claude-3.7-sonnet", "0403150700"],
      ["gemini-2.0-flash-001", "0403150002"],
      ["gemini-2.0-flash-lite-001", "0403150412"],
    ].map(([model, stamp]) => ({
      path: `unformatted-results/tool-calling-${model}-1.0_user-gpt-4o-2024-11-20-llm_${stamp}.json`,
      tag: model,
      system: "tau-bench tool-calling agent",
      model: `${model}, temperature 1.0 (user simulator gpt-4o-2024-11-20)`,
    })),
  }),
  tauBench({
    id: "taubench-asteroid",
    repo: "asteroidai/tau-bench",
    commit: "cf3fe8677cec18a1a3af1fe672fe3b36f1f63d2e",
    files: [
      ...["1030121322", "1102181637", "1102193240", "1102204704", "1102205445", "1102231558", "1102232023", "1102233817", "1102234947", "1102235139", "1103111357", "1103112206", "1103114201", "1103114526"].map((stamp) => ["gpt-4o", stamp]),
      ...["1101132928", "1101133249", "1101141817", "1101145429", "1102123150", "1102125515", "1102153040", "1102164124", "1102170537", "1102172900", "1102180539", "1102181039", "1102181211", "1102182420"].map((stamp) => ["gpt-4o-mini", stamp]),
    ].map(([model, stamp]) => ({
      path: `results/tool-calling-${model}-0.0_range_0--1_user-${model}-llm_${stamp}.json`,
      system: "tau-bench tool-calling agent",
      model: `${model} (user simulator ${model})`,
    })),
  }),
  tauBench({
    id: "taubench-gpt41mini",
    repo: "shahabeddin/tau-bench",
    commit: "2a04014b66ed0e33dac604687826798c4621d946",
    files: [
      {
        path: "results_tau_orig/tool-calling-gpt-4.1-mini-0.0_range_0--1_user-gpt-4.1-llm_0920134328__trials_1.json",
        tag: "gpt-4.1-mini",
        system: "tau-bench tool-calling agent",
        model: "gpt-4.1-mini (user simulator gpt-4.1)",
      },
    ],
  }),
  tauBench({
    id: "taubench-agentverify-levels",
    repo: "Madhav-Kanda/tau-bench",
    commit: "aeb171db5dd4f5fdac1a42e55cb892aa892d7641",
    files: [
      // tool-calling-l0-4o.json repeats 100 of its 115 runs from taubench-agentverify's tool-calling file.
      ...["l0", "l1", "l2"].flatMap((level) =>
        [["4.1", "gpt-4.1"], ["4o", "gpt-4o"]].filter(([suffix]) => `${level}-${suffix}` !== "l0-4o").map(([suffix, model]) => ({
          path: `final_results/tool-calling-${level}-${suffix}.json`,
          tag: `${level}-${suffix}`,
          system: `AgentVerify tool-calling agent, level ${level}`,
          model,
        })),
      ),
      {
        path: "final_results/tool-calling-with-dynamic-subtasks-none-0.1_range_0--1_user-none-llm_0716114053.json",
        tag: "dynamic-subtasks",
        system: "AgentVerify tool-calling with dynamic subtasks",
        model: "not recorded (--model none)",
      },
      { path: "final_results/tool-calling-dev-retail-server.json", tag: "dev-server", system: "AgentVerify tool-calling (development server)", model: "not recorded" },
      { path: "final_results/tool-calling-dev-retail-server-final.json", tag: "dev-server-final", system: "AgentVerify tool-calling (development server)", model: "not recorded" },
    ].map((f) => ({ ...f, domain: "retail" })),
  }),
  {
    id: "sweagent-demos",
    repo: "SWE-agent/SWE-agent",
    commit: "3ea751c087f32b16e039a2233dd6eefecef325d5",
    licence: "MIT (LICENSE in the repository)",
    family: "coding-editor",
    format: "swe-agent",
    system: "SWE-agent (demonstrations and test fixtures)",
    // function_calling_simple.traj is a message-format example without any executed step.
    files: /^(trajectories\/demonstrations|tests\/test_data\/trajectories)\/(?!function_calling_simple\.traj$).*\.traj$/,
    run: (t, { path }) => {
      const task = path
        .replace(/\.traj$/, "")
        .replace(/^trajectories\/demonstrations\//, "demo/")
        .replace(/^tests\/test_data\/trajectories\//, "test/");
      const model = path.startsWith("tests/") ? "gpt-4 (test fixture)" : "demonstration (replayed actions)";
      return { key: task, taskId: task, solved: null, solvedHow: UNKNOWN, model };
    },
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
  sweBenchSubmission({
    id: "sweagent-lm32b-verified",
    repo: "lgetter/swe-agent-trajectory-analysis",
    commit: "9ecabb67ca553a1c86a7e504c4556772b9443e99",
    dir: "20250511_sweagent_lm_32b",
    model: "SWE-agent-LM-32B",
    system: "SWE-agent 1.0 (function calling: str_replace_editor, bash, submit)",
  }),
  sweBenchSubmission({
    id: "sweagent-claude4-verified",
    repo: "lgetter/swe-agent-trajectory-analysis",
    commit: "9ecabb67ca553a1c86a7e504c4556772b9443e99",
    dir: "20250522_sweagent_claude-4-sonnet-20250514",
    model: "claude-4-sonnet-20250514",
    system: "SWE-agent 1.0 (function calling: str_replace_editor, bash, submit)",
  }),
  openHands({
    id: "openhands-examples",
    repo: "ergt10/openhands_swebench",
    commit: "773c12a0a717427c06560a6d25d3fe35553e151f",
    licence: "MIT (OpenHands/LICENSE; the file is OpenHands' own example output)",
    system: "OpenHands CodeAct agent (execute_bash, str_replace_editor, think, finish)",
    files: ["OpenHands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl"],
    keyOf: (t) => t.runId,
  }),
  openHands({
    id: "openhands-java",
    repo: "nunu0404/Python_OpenHands",
    commit: "9e1ba07a810c2554fde7687bfc49df6c2d1fdf14",
    licence: "MIT (OpenHands' LICENSE in the repository)",
    system: "OpenHands CodeAct agent on Multi-SWE-bench Java (execute_bash, str_replace_editor, task_tracker, think, finish)",
    files: ["output.jsonl", "java_benchmark_run_20260128_064956/output_backup_065059.jsonl", "openhands_java/open_hands_trajectory.jsonl"],
    keyOf: (t, path) => `${path.split("/")[0].replace(/\.jsonl$/, "")}/${t.runId}`,
  }),
  {
    id: "liveswe-gpt5mini",
    repo: "RussellRyanH/CSCI-635-LiveSWE-Agent",
    commit: "2813cfb19465bb9f57d50ebd0798550480a2f836",
    licence: "none stated",
    family: "coding-bash",
    format: "mini-swe-agent",
    system: "mini-swe-agent 2 (bash tool only) and Live-SWE-agent (bash only, creates its own tools as scripts) on SWE-bench Verified",
    files: /^results\/(llm-ablation|live-gpt-5-mini-verified)\/.*\.traj\.json$/,
    run: (t, { path, repo: files }) => {
      const task = path.split("/").at(-1).replace(/\.traj\.json$/, "");
      const live = path.startsWith("results/live-");
      const report = live ? null : files.jsonOrNull(`results/llm-ablation/gpt-5-mini/eval_results/openai__gpt-5-mini/${task}/report.json`);
      return {
        key: `${live ? "live" : "mini"}/${task}`,
        taskId: `swe-bench-verified/${task}`,
        solved: report?.[task]?.resolved ?? null,
        solvedHow: live ? UNKNOWN : "report.json of the repository's SWE-bench evaluation (eval_results/openai__gpt-5-mini/<id>)",
        model: t.meta.model ?? "gpt-5-mini",
        system: live ? "Live-SWE-agent (bash only)" : "mini-swe-agent 2 (bash tool only)",
      };
    },
  },
  {
    id: "agentdojo-luna",
    repo: "Liu-Ruotian/agentdojo-luna-trajectories",
    commit: "c5b64f393cf0f77bf9cb99577b0aba27c51314a6",
    licence: "none stated",
    family: "web",
    format: "agentdojo",
    system: "AgentDojo-style tool-calling pipeline (agentdojo-benchmark suites: web search, page reading, account and service tools, get_user_help)",
    files: /^runs\/.*\.json$/,
    run: (t) => ({
      key: `${t.meta.domain ?? t.meta.suite_name}/${t.meta.taskId}-${t.meta.condition}-s${t.meta.seed}`,
      taskId: `${t.meta.suite_name}/${t.meta.taskId}`,
      solved: t.meta.solved ?? null,
      solvedHow: "evaluation.utility of the run file (the suite's automatic utility check)",
      model: t.meta.model,
    }),
  },
  {
    id: "claudecode-spotter",
    repo: "marot/spotter",
    commit: "8cc42b0bd39d04e71e509d7d58e6782ab435329f",
    licence: "MIT (LICENSE in the repository)",
    family: "claude-code",
    format: "claude-code",
    system: "Claude Code 2.1.x, interactive sessions (Bash, Read, Edit, Grep, Glob, TodoWrite, Task sub-agents in their own agent-*.jsonl files)",
    // The author's ~/.claude/projects sessions of the repository's own development, copied as test fixtures.
    files: /^test\/fixtures\/transcripts\/.*\.jsonl$/,
    run: (t) => ({ key: t.runId, taskId: `spotter/${t.runId.split("/")[0]}`, solved: null, solvedHow: UNKNOWN_SESSION, model: t.meta.model }),
  },
  {
    id: "claudecode-hivemind-headless",
    repo: "link-assistant/hive-mind",
    commit: "9a4eae50ec54e3c5a183bf3c1f6e2605814abd93",
    licence: "Unlicense (LICENSE in the repository)",
    family: "claude-code",
    format: "claude-code",
    system: "hive-mind's solve.mjs driving Claude Code 2.0.x headless (claude -p --output-format stream-json) on GitHub issues",
    files: HIVE_MIND_LOGS,
    split: (text, file) => [{ name: file, text: streamJsonEvents(text), info: null }],
    run: (t, { path }) => ({
      key: `${path.replace(/^docs\/case-studies\//, "").replace(/\.(txt|log)$/, "")}/${t.runId}`,
      taskId: `hive-mind/${path.split("/")[2]}`,
      solved: null,
      solvedHow: "unknown: the solve logs do not say whether the pull request was accepted",
      model: t.meta.model,
    }),
  },
  {
    id: "claudecode-hivemind-681",
    repo: "link-assistant/hive-mind",
    commit: "594c106d36e403523cadf46921e18420ce615acb",
    licence: "Unlicense (LICENSE in the repository)",
    family: "claude-code",
    format: "claude-code",
    system: "hive-mind's solve.mjs driving Claude Code 2.0.x headless (claude -p --output-format stream-json) on a GitHub issue, then resuming it",
    // second-session-log.txt prints the first session again before the resumed one: first-session-log.txt is left out.
    files: ["docs/case-studies/issue-681-base-branch-not-used/second-session-log.txt"],
    split: (text, file) => [{ name: file, text: streamJsonEvents(text), info: null }],
    run: (t) => ({
      key: t.runId,
      taskId: "hive-mind/issue-681",
      solved: null,
      solvedHow: "unknown: the solve logs do not say whether the pull request was accepted",
      model: t.meta.model,
    }),
  },
  {
    id: "codex-hivemind-exec",
    repo: "link-assistant/hive-mind",
    commit: "9a4eae50ec54e3c5a183bf3c1f6e2605814abd93",
    licence: "Unlicense (LICENSE in the repository)",
    family: "codex",
    format: "codex",
    system: "hive-mind's solve.mjs driving Codex CLI headless (codex exec --json) on a GitHub issue",
    files: ["docs/case-studies/issue-642-codex-watch-mode-and-network/original-solve-log.txt"],
    split: (text, file) => [{ name: file, text: codexExecEvents(text), info: null }],
    run: (t) => ({
      key: t.runId,
      taskId: "hive-mind/issue-642",
      solved: null,
      solvedHow: "unknown: the solve log does not say whether the pull request was accepted",
      model: t.meta.model ?? "not recorded in codex exec --json output",
    }),
  },
  {
    id: "react-webshop",
    repo: "ysymyth/ReAct",
    commit: "6bdb3a1fd38b8188fc7ba4102969fe483df8fdc9",
    licence: "MIT (LICENSE in the repository)",
    family: "web",
    format: "react-text",
    system: "ReAct agent on WebShop (search, click, think)",
    files: ["WebShop.ipynb"],
    split: webShopEpisodes,
    run: (t, { info }) => ({
      key: `fixed_${info.number}`,
      taskId: `webshop/fixed_${info.number}`,
      solved: info.score !== null && info.score === 1,
      solvedHow: "the episode's final score is 1.0 (WebShop reward; partial matches score below 1)",
      model: "text-davinci-002",
    }),
  },
  {
    id: "reflexion-hotpotqa",
    repo: "noahshinn/reflexion",
    commit: "218cf0ef1df84b05ce379dd4a8e47f17766733a0",
    licence: "MIT (LICENSE in the repository)",
    family: "qa",
    format: "react-text",
    system: "Reflexion's ReAct agent on HotpotQA (Search, Lookup, Finish over Wikipedia; 6 steps)",
    files: ["hotpotqa_runs/root/ReAct/base/100_questions_5_trials.txt"],
    split: (text) => hotpotQaAgents(text, 1),
    run: (t, { info }) => ({
      key: `trial1/${info.outcome.toLowerCase()}-${String(info.number).padStart(3, "0")}`,
      taskId: `hotpotqa/${info.question.slice(0, 80)}`,
      solved: info.outcome === "CORRECT",
      solvedHow: "the log lists the agent under CORRECT AGENTS (exact match with the gold answer)",
      model: "not recorded in the log (the repository's ReAct agent defaults to text-davinci-003)",
    }),
  },
];

const LOG_EVENT_START = /^\[(\d{4}-\d\d-\d\dT[\d:.]+Z)\] \[INFO\] \{\s*$/;

/**
 * The stream-json events a hive-mind solve log printed (each as indented JSON after a `[time]
 * [INFO]` prefix, ending at a line `}`), one per line, each with the log line's time as its
 * `timestamp` (stream-json events carry none). Events that do not parse (a log line cut inside
 * one) and lines that are not events are left out.
 */
function streamJsonEvents(text) {
  const lines = text.split("\n");
  const events = [];
  for (let i = 0; i < lines.length; i++) {
    const start = LOG_EVENT_START.exec(lines[i]);
    if (!start) continue;
    const end = lines.indexOf("}", i + 1);
    if (end === -1) break;
    try {
      const event = JSON.parse(["{", ...lines.slice(i + 1, end), "}"].join("\n"));
      if (typeof event.session_id === "string") events.push(JSON.stringify({ ...event, timestamp: start[1] }));
    } catch {
      // a log line cut inside an event: not an event
    }
    i = end;
  }
  return events.join("\n");
}

const LOG_LINE_EVENT = /^(?:\[(\d{4}-\d\d-\d\dT[\d:.]+Z)\] \[INFO\] )?(\{"type":"(?:thread|turn|item)\..*)$/;

/**
 * The `codex exec --json` events a hive-mind solve log printed (one per line, most after a `[time]
 * [INFO]` prefix), one per line, each with the time of its log line (or of the last one before it)
 * as its `timestamp`.
 */
function codexExecEvents(text) {
  const events = [];
  let time;
  for (const line of text.split("\n")) {
    const match = LOG_LINE_EVENT.exec(line);
    if (!match) continue;
    time = match[1] ?? time;
    try {
      events.push(JSON.stringify({ ...JSON.parse(match[2]), ...(time === undefined ? {} : { timestamp: time }) }));
    } catch {
      // a log line cut inside an event: not an event
    }
  }
  return events.join("\n");
}

const WEBSHOP_CELL = 7;
const WEBSHOP_SCORE = /^Observation: Your score \(min 0\.0, max 1\.0\): ([\d.]+)/;

/**
 * The episodes the ReAct WebShop notebook printed (cell 7: a dashed line, the episode number, the
 * `Action:`/`Observation:` transcript, then the running averages and another dashed line). The
 * agent had 15 environment steps (the first is the reset): an episode whose last observation is
 * not a score ran out of them.
 */
function webShopEpisodes(text) {
  const notebook = JSON.parse(text);
  const output = notebook.cells[WEBSHOP_CELL].outputs.map((o) => [o.text ?? []].flat().join("")).join("");
  return output
    .split("-----------------\n")
    .slice(1)
    .map((episode) => {
      const number = /^(\d+)\n/.exec(episode)[1];
      const body = episode.replace(/\n\d+ [\d.]+ [\d.]+ [\d.]+\n-------------\n?$/, "\n");
      const last = body.split("\n").findLast((line) => line.startsWith("Observation: "));
      const score = WEBSHOP_SCORE.exec(last ?? "");
      return { name: `fixed_${number}`, text: body, info: { number, score: score ? Number(score[1]) : null, scoreText: score?.[1] ?? null } };
    });
}

/**
 * The agents of one trial of a Reflexion HotpotQA log, each with its question and outcome group
 * (CORRECT, INCORRECT, HALTED). An agent stopped at the step limit right after answering is printed
 * under INCORRECT and again under HALTED: it is kept once.
 */
function hotpotQaAgents(log, trialNumber) {
  const trial = log.split(/^BEGIN TRIAL \d+$/m)[trialNumber];
  const groups = trial.split(/^-+ BEGIN (CORRECT|INCORRECT|HALTED) AGENTS -+$/m);
  const agents = [];
  const printed = new Set();
  for (let i = 1; i < groups.length; i += 2) {
    const outcome = groups[i];
    for (const agent of groups[i + 1].split(/\n(?=Question: [^\n]*\nThought 1: )/).filter((t) => t.startsWith("Question: "))) {
      const transcript = agent.split(/^Correct answer: /m)[0];
      if (printed.has(transcript)) continue;
      printed.add(transcript);
      const question = /^Question: (.*)$/m.exec(agent)[1].trim();
      agents.push({ name: `agent-${agents.length + 1}`, text: transcript, info: { number: agents.length + 1, outcome, question } });
    }
  }
  return agents;
}
