// Debian's redis-server, started for a test on a free 127.0.0.1 port with its data in a fresh
// temporary directory: AOF on (an fsync per write by default: `appendfsync always`), no RDB
// snapshots, so whatever Redis acknowledged survives a SIGKILL. It can be killed and started again
// on the same port and data. The directory is in /dev/shm where there is one: a killed process
// loses nothing there either (fsync guards against the machine going down, which a test does not
// do), and a write costs ~0.1 ms instead of this VM's 1.7-5 ms disk fsync (the bench measures both).
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { binary, freePorts, startProcess } from "../runtimes/support.mjs";
import { restartableServer } from "./restartable.mjs";

/** Resolves once a Redis on 127.0.0.1:`port` answers PING; fails when `proc` exits or time runs out. */
async function waitForPong(port, proc, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitStatus() !== undefined) throw new Error(`redis-server exited (${proc.exitStatus()}):\n${proc.output()}`);
    const answer = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
      socket.setTimeout(500, () => socket.destroy());
      socket.once("data", (data) => (socket.destroy(), resolve(String(data))));
      socket.once("error", () => resolve(""));
      socket.once("close", () => resolve(""));
    });
    if (answer.startsWith("+PONG")) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Where test data goes by default: memory-backed when the machine has /dev/shm. */
const MEMORY_DIR = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();

/**
 * A running redis-server: {url, port} and restartableServer's {pid(), output(), start(), kill(),
 * stop()}. Options: `under`, where its data directory is made; `appendfsync`, "always" or "everysec".
 */
export async function startRedis({ under = MEMORY_DIR, appendfsync = "always" } = {}) {
  const dir = fs.mkdtempSync(path.join(under, "tlg-redis-"));
  const [port] = await freePorts(1);
  const args = [
    "--bind", "127.0.0.1", "--port", String(port), "--dir", dir, "--daemonize", "no", "--save", "",
    "--appendonly", "yes", "--appendfsync", appendfsync, "--protected-mode", "yes", "--logfile", "",
  ];
  return restartableServer({
    dir,
    spawn: () => startProcess(binary("redis"), args, { cwd: dir }),
    ready: (proc) => waitForPong(port, proc),
    fields: { url: `redis://127.0.0.1:${port}`, port },
  });
}
