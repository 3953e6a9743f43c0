// Starts examples/node-gateway/gateway.mjs as its own Node process on a free 127.0.0.1 port
// (PORT=0; the gateway prints the URL it listens on) against a given Redis.
import path from "node:path";
import { offlineEnv, root, startProcess } from "../runtimes/support.mjs";
import { GUARD_TOKENS } from "./callers.mjs";

export const gatewayScript = path.join(root, "examples", "node-gateway", "gateway.mjs");

/**
 * A running gateway letting in the test callers (callers.mjs): {url, pid(), health(),
 * waitHealthy(), stop(), output()}. `env`: more of its environment (e.g. MAX_LIVE_RUNS).
 */
export async function startGateway({ redisUrl, config, tokens = GUARD_TOKENS, env: extra = {} }) {
  const env = offlineEnv({ REDIS_URL: redisUrl, PORT: "0", HOST: "127.0.0.1", GUARD_CONFIG: JSON.stringify(config ?? {}), GUARD_TOKENS: tokens, ...extra });
  const proc = startProcess(process.execPath, [gatewayScript], { env });
  const deadline = Date.now() + 90_000;
  let match;
  while ((match = /listening on (http:\/\/\S+)/.exec(proc.output())) === null) {
    if (proc.exitStatus() !== undefined || Date.now() > deadline) {
      await proc.stop();
      throw new Error(`the gateway did not start (${proc.exitStatus() ?? "timed out"}):\n${proc.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = match[1];
  return {
    url,
    output: proc.output,
    pid: () => proc.child.pid,
    /** GET /healthz: [status, body]. */
    async health() {
      const response = await fetch(`${url}/healthz`);
      return [response.status, await response.json()];
    },
    /** Waits until the gateway reaches Redis again (after a Redis restart). */
    async waitHealthy(timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while ((await this.health())[0] !== 200) {
        if (Date.now() > until) throw new Error(`the gateway did not reach Redis within ${timeoutMs} ms:\n${proc.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: () => proc.stop(),
  };
}
