// `node bench/run.mjs --check`: a light correctness check of the baseline. Replays the update_task
// incident (31 identical calls, the same 92-character result) through the package and the
// baseline with default config and prints, call by call, what each answered at check and record;
// then counts the steps of the mixed and stuck-loop bench workloads where the two disagree.
import { incident, smallMixed, stuckLoop } from "./workloads.mjs";

/** Each step's verdicts: check, and record unless the call was refused (then null). */
function replay(side, steps) {
  const guard = side.create();
  const verdicts = [];
  for (const { call, outcome, endRun } of steps) {
    const checked = guard.check(call);
    const refused = checked.action === "block" || checked.action === "stop";
    verdicts.push({ checked, recorded: refused ? null : guard.record(outcome) });
    if (endRun) guard.endRun(call.runId);
  }
  side.dispose(guard);
  return verdicts;
}

const show = (v) => (v === null ? "(not run)" : v.detector ? `${v.action} ${v.detector} (${v.count}/${v.threshold})` : v.action);

function firstCall(verdicts, test) {
  const index = verdicts.findIndex(test);
  return index === -1 ? "none" : `call ${index + 1}`;
}

function printIncident(sides) {
  const replays = sides.map((side) => ({ name: side.name, verdicts: replay(side, incident()) }));
  console.log("update_task incident (31 identical calls, same 92-char result), default config\n");
  const width = 38;
  console.log(["  #", ...replays.flatMap(({ name }) => [`${name} check`.padEnd(width), `${name} record`.padEnd(width)])].join(" ").trimEnd());
  for (let i = 0; i < replays[0].verdicts.length; i++) {
    const cells = replays.flatMap(({ verdicts }) => [show(verdicts[i].checked).padEnd(width), show(verdicts[i].recorded).padEnd(width)]);
    console.log([String(i + 1).padStart(3), ...cells].join(" ").trimEnd());
  }
  console.log("");
  for (const { name, verdicts } of replays) {
    const warned = (v) => v.checked.action === "warn" || v.recorded?.action === "warn";
    const refused = (v) => v.checked.action === "block" || v.checked.action === "stop";
    console.log(`${name.padEnd(9)} first warning ${firstCall(verdicts, warned)}, first block ${firstCall(verdicts, refused)}, tool ran ${verdicts.filter((v) => !refused(v)).length} of ${verdicts.length} times`);
  }
}

/** Steps where the two sides' check or record verdicts differ in action or detector. */
function printAgreement([a, b]) {
  const key = (v) => (v === null ? "-" : `${v.action}/${v.detector}`);
  console.log("");
  for (const [label, steps] of [["(a) small mixed records", smallMixed(10_000)], ["(b) stuck identical loop", stuckLoop(10_000)]]) {
    const left = replay(a, steps);
    const right = replay(b, steps);
    const differ = left.filter((v, i) => key(v.checked) !== key(right[i].checked) || key(v.recorded) !== key(right[i].recorded)).length;
    console.log(`${label}: ${a.name} and ${b.name} differ on ${differ} of ${steps.length} steps (action or detector, at check or record)`);
  }
}

export function printCheck(sides) {
  printIncident(sides);
  printAgreement(sides);
}
