// The real OpenClaw (the `openclaw` package pinned in this directory, run by Node 24) in a
// temporary HOME: its CLI, and its gateway started on a free 127.0.0.1 port with a model provider
// pointing at the scripted model (fake-model.mjs), the example plugin (examples/openclaw-plugin)
// installed the documented way. OpenClaw's update checks, LAN discovery, channels and cron are
// switched off by its own environment settings.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { binary, freePorts, root, startProcess } from "../runtimes/support.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const openclawEntry = path.join(here, "node_modules", "openclaw", "openclaw.mjs");
export const pluginDir = path.join(root, "examples", "openclaw-plugin");

/** The version of the installed package (the one the docs name). */
export const openclawVersion = JSON.parse(fs.readFileSync(path.join(here, "node_modules", "openclaw", "package.json"), "utf8")).version;

/** The gateway config the test starts from: the scripted model, two agents, the plugin's settings. */
function gatewayConfig({ modelUrl, port, token, pluginConfig, logFile }) {
  return {
    models: {
      mode: "replace",
      providers: {
        scripted: {
          baseUrl: modelUrl,
          apiKey: "not-a-secret",
          api: "openai-completions",
          models: [{ id: "loop", name: "loop", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
        },
      },
    },
    agents: {
      defaults: { model: "scripted/loop" },
      // OpenClaw 2026.9's roster: agents.entries.<id>; `quiet` turns loop detection off.
      entries: { main: { default: true }, quiet: { tools: { loopDetection: { enabled: false } } } },
    },
    gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token", token } },
    // In the temporary home, not OpenClaw's shared /tmp/openclaw.
    logging: { file: logFile },
    plugins: { entries: { "tool-loop-guard": { hooks: { allowConversationAccess: true }, config: pluginConfig } } },
  };
}

/**
 * A temporary OpenClaw home. `cli(args)` runs the openclaw CLI there ({status, stdout, stderr});
 * `writeConfig(config)` / `readConfig()` the config file; `remove()` deletes the home.
 */
export function openclawHome() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-openclaw-"));
  const configFile = path.join(home, ".openclaw", "openclaw.json");
  fs.mkdirSync(path.dirname(configFile), { recursive: true });
  const env = {
    ...process.env,
    HOME: home,
    NO_COLOR: "1",
    OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_SKIP_CHANNELS: "1",
    OPENCLAW_SKIP_CRON: "1",
    OPENCLAW_NO_RESPAWN: "1",
    OPENCLAW_EXEC_SHELL_SNAPSHOT: "0",
  };
  return {
    home,
    env,
    writeConfig: (config) => fs.writeFileSync(configFile, JSON.stringify(config, null, 2)),
    readConfig: () => JSON.parse(fs.readFileSync(configFile, "utf8")),
    cli(args, { timeoutMs = 120_000 } = {}) {
      const result = spawnSync(binary("node24"), [openclawEntry, ...args], { cwd: home, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
      return { status: result.error ? `error: ${result.error.message}` : (result.signal ?? result.status), stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
    },
    remove: () => fs.rmSync(home, { recursive: true, force: true }),
  };
}

/**
 * Sets up a home with the gateway config for `modelUrl`, installs the example plugin
 * (`openclaw plugins install --link <dir> --accept-capabilities --force`), and the plugins in
 * `morePlugins` (directories) the same way, then starts the gateway (`openclaw gateway run`) in its
 * own process group; `configure(config, home)` may change the gateway config before it is written.
 * Returns the home plus `{ send(args), output(), stop() }`: `send` runs `openclaw agent --json
 * ...` through the gateway and returns its JSON.
 */
export async function startGateway({ modelUrl, pluginConfig, morePlugins = [], configure = () => {} }) {
  const openclaw = openclawHome();
  const [port] = await freePorts(1);
  const token = "test-token-0123456789";
  const config = gatewayConfig({ modelUrl, port, token, pluginConfig, logFile: path.join(openclaw.home, "openclaw.log") });
  configure(config, openclaw.home);
  openclaw.writeConfig(config);
  let installed;
  for (const dir of [pluginDir, ...morePlugins]) {
    const done = openclaw.cli(["plugins", "install", "--link", dir, "--accept-capabilities", "--force"]);
    if (done.status !== 0) throw new Error(`plugins install of ${dir} failed (${done.status}):\n${done.stdout}${done.stderr}`);
    installed ??= done;
  }
  const gateway = startProcess(binary("node24"), [openclawEntry, "gateway", "run"], { cwd: openclaw.home, env: openclaw.env, group: true });
  const stop = async () => {
    await gateway.stop();
    openclaw.remove();
  };
  const deadline = Date.now() + 120_000;
  while (!/\[gateway\] ready/.test(gateway.output())) {
    if (gateway.exitStatus() !== undefined || Date.now() > deadline) {
      const output = gateway.output();
      await stop();
      throw new Error(`the gateway did not start (${gateway.exitStatus() ?? "timed out"}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    ...openclaw,
    installed,
    output: gateway.output,
    stop,
    /**
     * `openclaw agent --json ...args` through the gateway: its parsed output. Asynchronous, so that
     * the scripted model in this process keeps answering meanwhile.
     */
    async send(args) {
      const agent = spawn(binary("node24"), [openclawEntry, "agent", "--json", ...args], { cwd: openclaw.home, env: openclaw.env, stdio: ["ignore", "pipe", "pipe"] });
      const streams = { stdout: "", stderr: "" };
      agent.stdout.on("data", (d) => (streams.stdout += d));
      agent.stderr.on("data", (d) => (streams.stderr += d));
      const timer = setTimeout(() => agent.kill("SIGKILL"), 120_000);
      // "close": the exit and the end of both streams.
      const status = await new Promise((resolve) => agent.once("close", (code, signal) => resolve(signal ?? code)));
      clearTimeout(timer);
      const { stdout, stderr } = streams;
      if (status !== 0) throw new Error(`openclaw agent failed (${status}):\n${stdout}${stderr}\n--- gateway:\n${gateway.output()}`);
      return JSON.parse(stdout);
    },
  };
}
