// Runs one scenario of the corpus (format: tests/scenarios/README.md) through a LoopGuard class and
// returns its failures. Runtime-neutral: no imports, so Node, Deno, Bun, workerd and browser pages
// can all use it; the caller reads the files and passes parsed objects plus the package's exports.
// It follows the native runner (tests/scenarios.rs) wherever the README leaves room: every step key
// that is not the runner's own goes into the record (so unknown keys reach the guard), a missing
// `record` expectation means `allow`, step-level runId/at/atStep/atGrowth/atStepMax apply to every
// call of a cycle, and a record without `at` is made at time 0 (the native runner's clock).
// It also checks each verdict's shape: hint exactly on warn, refusal exactly on block/stop, and
// the call's tool and runId echoed.

const RUNNER_KEYS = new Set(["op", "expect", "expectError", "expectFields", "about", "repeat", "cycle", "check", "record", "atStep", "atGrowth", "atStepMax"]);
const INHERITED_KEYS = ["runId", "at", "atStep", "atGrowth", "atStepMax"];

/** `action/level/detector/count`, or `allow` for a plain allow. */
export function verdictString(verdict) {
  const text = `${verdict.action}/${verdict.level}/${verdict.detector ?? "-"}/${verdict.count}`;
  return text === "allow/ok/-/0" ? "allow" : text;
}

function substitute(value, i) {
  if (typeof value === "string") return value.replaceAll("{i}", String(i));
  if (Array.isArray(value)) return value.map((v) => substitute(v, i));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, i)]));
  }
  return value;
}

/** The call of iteration `i` of a step (with its result or error when `withOutcome`). */
function recordOf(step, withOutcome, i) {
  const record = {};
  for (const [key, value] of Object.entries(step)) {
    if (RUNNER_KEYS.has(key) || (!withOutcome && (key === "result" || key === "error"))) continue;
    record[key] = substitute(value, i);
  }
  if (typeof step.at === "number" && typeof step.atStep === "number") {
    const growth = step.atGrowth ?? 1;
    const ceiling = step.atStepMax ?? Infinity;
    let elapsed = 0;
    for (let j = 0; j < i - 1; j++) elapsed += Math.min(step.atStep * growth ** j, ceiling);
    record.at = step.at + elapsed;
  }
  record.at ??= 0;
  return record;
}

/** The expected verdict string for iteration `i` of a verdict map, or undefined. */
function expectedFor(map, i) {
  if (map === null || typeof map !== "object") return undefined;
  for (const key of Object.keys(map).sort()) {
    const range = /^(\d+)-(\d+)$/.exec(key);
    const hit = range ? Number(range[1]) <= i && i <= Number(range[2]) : key !== "*" && Number(key) === i;
    if (hit) return map[key];
  }
  return map["*"];
}

function shapeProblems(verdict, call) {
  const problems = [];
  if ((verdict.action === "warn") !== (typeof verdict.hint === "string")) problems.push("hint must be present exactly on warn");
  const refuses = verdict.action === "block" || verdict.action === "stop";
  if (refuses !== (verdict.refusal !== undefined)) problems.push("refusal must be present exactly on block/stop");
  if (refuses && verdict.refusal?.mode !== verdict.detector) problems.push("refusal.mode must equal the detector");
  if (verdict.tool !== call.tool) problems.push(`tool ${JSON.stringify(verdict.tool)} does not echo the call`);
  if (verdict.runId !== (call.runId ?? null)) problems.push(`runId ${JSON.stringify(verdict.runId)} does not echo the call`);
  return problems;
}

function errorMatches(error, want, LoopGuardError) {
  return (
    error instanceof LoopGuardError &&
    error.code === want.code &&
    (!Object.hasOwn(want, "field") || error.field === want.field)
  );
}

function describeError(error) {
  return error instanceof Error ? `${error.name} ${error.code ?? ""} field=${error.field ?? null}: ${error.message}` : String(error);
}

/**
 * Runs `scenario` with `api` = the package's exports ({LoopGuard, LoopGuardError}).
 * Returns {name, verdicts, failures: string[]}.
 */
export function runScenario(scenario, api) {
  const { LoopGuard, LoopGuardError } = api;
  const failures = [];
  let verdicts = 0;
  const result = () => ({ name: scenario.name, verdicts, failures });

  if (scenario.configError) {
    try {
      new LoopGuard(scenario.config).free();
      failures.push(`config accepted, expected error ${JSON.stringify(scenario.configError)}`);
    } catch (error) {
      if (!errorMatches(error, scenario.configError, LoopGuardError)) {
        failures.push(`config error ${describeError(error)}, expected ${JSON.stringify(scenario.configError)}`);
      }
    }
    return result();
  }

  let guard;
  try {
    guard = new LoopGuard(scenario.config);
  } catch (error) {
    failures.push(`config rejected: ${describeError(error)}`);
    return result();
  }

  const compare = (where, verdict, call, want) => {
    verdicts += 1;
    const got = verdictString(verdict);
    if (want === undefined) failures.push(`${where}: got ${got}, no expectation`);
    else if (got !== want) failures.push(`${where}: got ${got}, expected ${want}`);
    for (const problem of shapeProblems(verdict, call)) failures.push(`${where}: ${problem}`);
    return got;
  };

  scenario.steps.forEach((step, index) => {
    const n = index + 1;
    switch (step.op) {
      case "check":
      case "record": {
        const record = recordOf(step, true, 1);
        let verdict;
        try {
          verdict = guard[step.op](record);
        } catch (error) {
          if (!step.expectError) failures.push(`step ${n} (${step.op}): unexpected error ${describeError(error)}`);
          else if (!errorMatches(error, step.expectError, LoopGuardError)) {
            failures.push(`step ${n} (${step.op}): error ${describeError(error)}, expected ${JSON.stringify(step.expectError)}`);
          }
          return;
        }
        if (step.expectError) {
          failures.push(`step ${n} (${step.op}): got ${verdictString(verdict)}, expected error ${JSON.stringify(step.expectError)}`);
          return;
        }
        compare(`step ${n} (${step.op})`, verdict, record, step.expect ?? "allow");
        for (const [key, want] of Object.entries(step.expectFields ?? {})) {
          if (JSON.stringify(verdict[key] ?? null) !== JSON.stringify(want)) {
            failures.push(`step ${n} (${step.op}): ${key} is ${JSON.stringify(verdict[key] ?? null)}, expected ${JSON.stringify(want)}`);
          }
        }
        return;
      }
      case "calls": {
        const cycle = Array.isArray(step.cycle) ? step.cycle : [step];
        const repeat = step.repeat ?? 1;
        for (let i = 1; i <= repeat; i++) {
          const call = { ...cycle[(i - 1) % cycle.length] };
          for (const key of INHERITED_KEYS) {
            if (Object.hasOwn(step, key) && !Object.hasOwn(call, key)) call[key] = step[key];
          }
          // The check, then (unless it was refused) the record with the outcome.
          for (const op of ["check", "record"]) {
            const record = recordOf(call, op === "record", i);
            let verdict;
            try {
              verdict = guard[op](record);
            } catch (error) {
              failures.push(`step ${n} call ${i}: ${op} error ${describeError(error)}`);
              break;
            }
            const want = op === "check" ? expectedFor(step.check, i) : (expectedFor(step.record, i) ?? "allow");
            const got = compare(`step ${n} call ${i} ${op}`, verdict, record, want);
            if (got.startsWith("block") || got.startsWith("stop")) break;
          }
        }
        return;
      }
      case "fingerprint": {
        const record = recordOf(step, true, 1);
        try {
          const got = guard.fingerprint(record);
          const want = step.expect ?? {};
          if (got.args !== want.args || got.outcome !== want.outcome) {
            failures.push(`step ${n}: fingerprints ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
          }
        } catch (error) {
          failures.push(`step ${n} (fingerprint): unexpected error ${describeError(error)}`);
        }
        return;
      }
      case "compacted":
        guard.compacted(step.runId);
        return;
      case "progress":
        guard.progress(step.runId, step.reason);
        return;
      case "endRun":
        guard.endRun(step.runId);
        return;
      case "roundTrip": {
        try {
          const bytes = guard.exportRun(step.runId);
          guard.endRun(step.runId);
          const restored = guard.importRun(bytes);
          if (restored !== (step.runId ?? null)) failures.push(`step ${n}: snapshot restored run ${JSON.stringify(restored)}`);
        } catch (error) {
          failures.push(`step ${n}: snapshot rejected: ${describeError(error)}`);
        }
        return;
      }
      case "importRun": {
        const hex = step.snapshot;
        const bytes = new Uint8Array(hex.length / 2).map((_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16));
        let restored;
        try {
          restored = guard.importRun(bytes);
        } catch (error) {
          if (!step.expectError) failures.push(`step ${n}: snapshot rejected: ${describeError(error)}`);
          else if (!errorMatches(error, step.expectError, LoopGuardError)) {
            failures.push(`step ${n}: error ${describeError(error)}, expected ${JSON.stringify(step.expectError)}`);
          }
          return;
        }
        if (step.expectError) failures.push(`step ${n}: imported, expected error ${JSON.stringify(step.expectError)}`);
        else if (restored !== (step.runId ?? null)) failures.push(`step ${n}: snapshot restored run ${JSON.stringify(restored)}`);
        return;
      }
      default:
        failures.push(`step ${n}: unknown op ${JSON.stringify(step.op)}`);
    }
  });
  guard.free();
  return result();
}

/**
 * Runs a whole corpus: `entries` = [{file, scenario}] (already parsed), `api` = the package's
 * exports. Returns [{file, name, verdicts, failures}] in the same order; a scenario that throws
 * outside the runner's own checks is a failure, and the next one still runs.
 */
/**
 * Whether the package's windows are keyed in this runtime: a run's snapshot carries its SipHash
 * key (window-hash marker 1 after the run id, docs/snapshot-format.md), so the runtime gave the
 * instance a random secret. Without one the windows digest with SHA-256: the same verdicts, slower.
 */
export function windowKeyed(api) {
  const guard = new api.LoopGuard();
  try {
    const call = { runId: "k", tool: "read", args: {}, callId: "k1" };
    guard.check(call);
    guard.record({ ...call, result: "ok" });
    const bytes = guard.exportRun("k");
    return bytes[4] >= 6 && bytes[4 + 1 + 1 + 4 + 1] === 1;
  } finally {
    guard.free();
  }
}

export function runCorpus(entries, api) {
  return entries.map(({ file, scenario }) => {
    try {
      return { file, ...runScenario(scenario, api) };
    } catch (error) {
      return { file, name: scenario?.name, verdicts: 0, failures: [`threw ${describeError(error)}`] };
    }
  });
}
