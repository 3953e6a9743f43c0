// A server process for the host tests that can be killed (SIGKILL: no clean shutdown) and started
// again on the same port and data directory, as a crash and a restart would.
import fs from "node:fs";

/**
 * Starts `spawn()` (a startProcess handle) and waits for `ready(proc)`; returns `fields` plus
 * {pid(), output(), start(), kill(), stop()}. `start()` starts it again after `kill()`; `stop()`
 * ends it and deletes `dir`. Output of earlier processes is kept for failure messages.
 */
export async function restartableServer({ dir, spawn, ready, fields = {} }) {
  let proc;
  let log = "";
  const server = {
    ...fields,
    output: () => log + (proc?.output() ?? ""),
    /** The running process's id. */
    pid: () => proc.child.pid,
    async start() {
      if (proc !== undefined) log += proc.output();
      proc = spawn();
      await ready(proc);
    },
    async kill() {
      proc.child.kill("SIGKILL");
      await proc.stop();
    },
    async stop() {
      await proc?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
