// Row (k) of the bench, run by bench/run.mjs in fresh child processes: what a cold Node process (a
// CLI, a serverless function's cold start; a Worker's cold isolate: first-verdict-workerd.mjs)
// pays before its first answer — importing the package's Node entry, constructing the first
// guard, and the first check + record of a small call — as JSON, in wall time and in the
// process's CPU time (which a busy machine disturbs less).
import { performance } from "node:perf_hooks";
import { NODE_ENTRY, requireBuiltPackage } from "./package-handles.mjs";

requireBuiltPackage();
const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const wall = [performance.now()];
const cpu = [cpuMs()];
const mark = () => {
  wall.push(performance.now());
  cpu.push(cpuMs());
};
const { LoopGuard } = await import(NODE_ENTRY.href);
mark();
const guard = new LoopGuard();
mark();
const call = { runId: "first", tool: "read_file", args: { path: "src/main.ts" }, callId: "c1" };
guard.check(call);
guard.record({ ...call, result: "export const main = () => 1;\n" });
mark();
const steps = (times) => ({ importMs: times[1] - times[0], constructMs: times[2] - times[1], firstCallMs: times[3] - times[2], totalMs: times[3] - times[0] });
process.stdout.write(JSON.stringify({ wall: steps(wall), cpu: steps(cpu) }));
