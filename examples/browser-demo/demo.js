// The browser demo: plays an agent's tool calls through tool-loop-guard one call at a time with the
// package's replay engine (`tool-loop-guard/replay`), the way a host loop uses the guard: check()
// before the call (a refused call is not run and its refusal becomes the tool result; a stop ends
// the run), record() after it. The agents are the scripted traces in examples/traces, or any trace
// pasted in a format the replay CLI reads. Each call is shown with both verdicts, the text the
// model would receive, and a chart of calls run vs saved. No rule lives here: every verdict and
// text comes from the guard, every pasted format is read by the package's readers.
import { init, LoopGuard } from "tool-loop-guard";
import { FORMATS, RunReplay, readTrajectories, shortArgs } from "tool-loop-guard/replay";

const AGENTS = [
  { file: "01-update-task-incident.json", label: "update_task incident (stuck)" },
  { file: "02-polling-with-progress.json", label: "polling a build with progress" },
  { file: "03-polling-stuck.json", label: "polling a finished process (stuck)" },
  { file: "04-ping-pong.json", label: "ping-pong between two tools" },
  { file: "05-edit-test-session.json", label: "edit-test session (legitimate)" },
];
const PASTED = "pasted";
const PLAY_INTERVAL_MS = 300;
const NO_MESSAGE = "Nothing yet: the guard has allowed every call so far.";

const $ = (id) => document.getElementById(id);
const refuses = (verdict) => verdict.action === "block" || verdict.action === "stop";
const isCall = (step) => !("event" in step);

/**
 * The run being played: its trajectory (`steps`: calls and host events), the replay over a fresh
 * guard, the calls shown so far (`rows`) with the full verdicts behind them.
 */
const state = { run: null, about: "", guard: null, replay: null, next: 0, rows: [], seen: {}, timer: null };
/** Runs read from the last pasted text. */
let pastedRuns = [];

function configFromControls() {
  return { preset: $("preset").value, policy: $("policy").value };
}

/** The guard as the engine drives it, keeping the last full verdicts (the engine keeps briefs). */
function capturing(guard, seen) {
  return {
    check: (call) => (seen.check = guard.check(call)),
    record: (outcome) => (seen.record = guard.record(outcome)),
    compacted: (runId) => guard.compacted(runId),
    progress: (runId, reason) => guard.progress(runId, reason),
    endRun: (runId) => guard.endRun(runId),
    fingerprint: (record) => guard.fingerprint(record),
  };
}

/** What a call gave, as the model saw it, on one line. */
function resultText(step) {
  if (step.error !== undefined) return `error: ${shortArgs(step.error?.message ?? step.error, 56)}`;
  const content = step.result?.content;
  return shortArgs(Array.isArray(content) ? content.map((part) => part.text ?? "").join(" ") : (step.result ?? ""), 60);
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** A verdict as a colour badge with its detector and count (and, under shadow, what it would be). */
function badge(verdict) {
  if (verdict === undefined) return el("span", { class: "detector" }, "—");
  const parts = [el("span", { class: `badge ${verdict.action}` }, verdict.action)];
  if (verdict.detector) parts.push(el("span", { class: "detector" }, `${verdict.detector} ×${verdict.count}`));
  if (verdict.wouldBe && verdict.wouldBe.action !== verdict.action) parts.push(el("span", { class: "would" }, `would ${verdict.wouldBe.action}`));
  return el("span", {}, ...parts);
}

/** The message the model receives after a call: a refusal, a stop, a hint, or nothing. */
function messageOf(shown) {
  const { n, check, record } = shown;
  if (check.refusal) {
    const kind = check.action === "stop" ? "stop" : "refusal";
    const title = kind === "stop" ? `Call ${n}: the run is stopped; this is the last tool result` : `Call ${n} is refused; the model gets this as the tool result`;
    return { kind, title, text: JSON.stringify(check.refusal, null, 2) };
  }
  const hint = check.hint ?? record?.hint;
  if (hint) return { kind: "hint", title: `Call ${n}: a hint is injected into the model's next context`, text: hint };
  return null;
}

function showMessage(shown) {
  const box = $("message").parentElement;
  const message = shown ? messageOf(shown) : null;
  box.className = `message ${message?.kind ?? ""}`;
  box.dataset.kind = message?.kind ?? "none";
  box.dataset.call = shown?.n ?? "";
  $("message-title").textContent = message?.title ?? "What the model is told";
  $("message").textContent = message?.text ?? NO_MESSAGE;
}

/** Calls run and calls saved after each call of the run (a stop saves every call after it). */
function tallies() {
  const total = state.run.steps.filter(isCall).length;
  const run = [];
  const saved = [];
  let ran = 0;
  let spared = 0;
  for (const shown of state.rows) {
    if (refuses(shown.check)) spared += 1;
    else ran += 1;
    run.push(ran);
    saved.push(spared);
  }
  const stopped = state.replay.stopped;
  if (stopped) for (let n = state.rows.length + 1; n <= total; n++) (run.push(ran), saved.push(++spared));
  return { run, saved, total, ran, spared, stopped };
}

function renderChart() {
  const { run, saved, total } = tallies();
  const refusedAt = state.rows.find((s) => refuses(s.check))?.n;
  const [left, top, width, height] = [34, 10, 510, 130];
  const x = (n) => left + (total <= 1 ? 0 : ((n - 1) / (total - 1)) * width);
  const y = (v) => top + height - (total === 0 ? 0 : (v / total) * height);
  const css = getComputedStyle(document.documentElement);
  const line = (values, color) =>
    values.length === 0 ? "" : `<polyline fill="none" stroke="${color}" stroke-width="2.5" points="${values.map((v, i) => `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`;
  const marker =
    refusedAt === undefined
      ? ""
      : `<line x1="${x(refusedAt)}" y1="${top}" x2="${x(refusedAt)}" y2="${top + height}" stroke="${css.getPropertyValue("--block")}" stroke-dasharray="4 3"/><text x="${x(refusedAt) + 4}" y="${top + 10}">first refusal: call ${refusedAt}</text>`;
  $("chart").innerHTML = `
    <line x1="${left}" y1="${top + height}" x2="${left + width}" y2="${top + height}" stroke="#c5ccd6"/>
    <line x1="${left}" y1="${top}" x2="${left}" y2="${top + height}" stroke="#c5ccd6"/>
    <text x="${left - 6}" y="${top + 8}" text-anchor="end">${total}</text>
    <text x="${left - 6}" y="${top + height}" text-anchor="end">0</text>
    <text x="${left}" y="${top + height + 16}">call 1</text>
    <text x="${left + width}" y="${top + height + 16}" text-anchor="end">call ${total}</text>
    ${marker}
    ${line(run, css.getPropertyValue("--run"))}
    ${line(saved, css.getPropertyValue("--saved"))}`;
}

function renderSummary() {
  const { ran, spared, total, stopped } = tallies();
  const firstWarn = state.rows.find((s) => s.check.action === "warn" || s.record?.action === "warn")?.n;
  const firstRefusal = state.rows.find((s) => refuses(s.check))?.n;
  const none = finished() ? "none" : "none yet";
  const summary = $("summary");
  summary.dataset.run = ran;
  summary.dataset.saved = spared;
  summary.dataset.refusedAt = firstRefusal ?? "";
  const row = (term, value) => [el("dt", {}, term), el("dd", {}, value)];
  summary.replaceChildren(
    el(
      "dl",
      {},
      ...row("agent", state.run.name),
      ...row("calls made", `${state.rows.length} of ${total}${stopped ? " (run stopped)" : ""}`),
      ...row("tools run", String(ran)),
      ...row("calls saved", String(spared)),
      ...row("first warning", firstWarn ? `call ${firstWarn}` : none),
      ...row("first refusal", firstRefusal ? `call ${firstRefusal}` : none),
      ...row("config", JSON.stringify(configFromControls())),
    ),
  );
}

function select(shown) {
  for (const tr of $("timeline").tBodies[0].rows) tr.classList.toggle("selected", Number(tr.dataset.n) === shown?.n);
  showMessage(shown);
}

/** Why a refused call cost the agent something or nothing (the engine's judgement). */
const COST_NOTE = { costless: "refused; it would have returned a result this tool already gave", withheld: "refused; its real result would have been new" };

/** A call's row: the engine's timeline row, the full verdicts, the trajectory's step. */
function renderCall(row, shown, step) {
  const refused = row.record === null;
  const result = refused ? (shown.check.action === "stop" ? "not run: the run ends" : "not run: refusal returned") : resultText(step);
  const tr = el(
    "tr",
    { "data-n": String(row.index), "data-check": row.check.action, "data-record": row.record?.action ?? "", class: refused ? "refused" : "" },
    el("td", {}, String(row.index)),
    el("td", {}, row.tool),
    el("td", { class: "args", title: JSON.stringify(step.args ?? {}) }, row.args),
    el("td", { class: "verdict" }, badge(shown.check)),
    el("td", { class: "result", title: row.cost ? COST_NOTE[row.cost] : "" }, result),
    el("td", { class: "verdict" }, badge(shown.record)),
  );
  tr.addEventListener("click", () => select(shown));
  $("timeline").tBodies[0].append(tr);
  if (messageOf(shown)) select(shown);
}

function renderEvent(entry) {
  const text = entry.event === "compaction" ? "the host compacted the context" : "the host saw progress";
  $("timeline").tBodies[0].append(el("tr", { class: "event", "data-event": entry.event }, el("td", { colspan: "6" }, `— ${text} —`)));
}

/** Shows the calls a stop spared, greyed. */
function renderNeverMade() {
  const calls = state.run.steps.slice(state.next).filter(isCall);
  calls.forEach((step, i) => {
    const n = state.rows.length + i + 1;
    $("timeline").tBodies[0].append(
      el("tr", { class: "never", "data-n": String(n), "data-check": "" }, el("td", {}, String(n)), el("td", {}, step.tool), el("td", { class: "args" }, shortArgs(step.args ?? {}, 48)), el("td", {}, "never made"), el("td", {}), el("td", {})),
    );
  });
}

function finished() {
  return state.replay === null || state.replay.stopped || state.next >= state.run.steps.length;
}

/** Plays the next step of the run through the engine. False when the run is over. */
function stepOnce() {
  if (finished()) return false;
  const step = state.run.steps[state.next++];
  state.seen.check = state.seen.record = undefined;
  const entry = state.replay.step(step);
  if (entry !== undefined && "event" in entry) renderEvent(entry);
  else if (entry !== undefined) {
    const shown = { n: entry.index, check: state.seen.check, record: state.seen.record };
    state.rows.push(shown);
    renderCall(entry, shown, step);
    if (state.replay.stopped) renderNeverMade();
  }
  renderChart();
  renderSummary();
  updateButtons();
  return !finished();
}

function pause() {
  clearInterval(state.timer);
  state.timer = null;
  updateButtons();
}

function updateButtons() {
  const done = finished();
  $("play").textContent = state.timer ? "Pause" : "Play";
  $("play").disabled = done;
  $("step").disabled = done || state.timer !== null;
  $("run-all").disabled = done;
}

/** Starts `run` ({name, runId, format, meta, steps}) from its first step with a fresh guard built from the controls. */
function load(run, about) {
  pause();
  state.guard?.free();
  state.guard = new LoopGuard(configFromControls());
  state.seen = {};
  state.replay = new RunReplay(capturing(state.guard, state.seen), run, { guardRunId: "demo" });
  Object.assign(state, { run, about, next: 0, rows: [] });
  $("about").textContent = about;
  $("timeline").tBodies[0].replaceChildren();
  showMessage(null);
  renderChart();
  renderSummary();
  updateButtons();
}

function reload() {
  load(state.run, state.about);
}

const traces = new Map();
async function loadAgent() {
  const file = $("agent").value;
  if (file === PASTED) return loadPasted();
  if (!traces.has(file)) traces.set(file, await (await fetch(`./traces/${file}`)).json());
  const trace = traces.get(file);
  load({ name: trace.name, runId: trace.name, format: "jsonl", meta: {}, steps: trace.calls }, trace.about);
}

/** Plays the pasted run chosen in the paste box. */
function loadPasted() {
  const run = pastedRuns[Number($("paste-run").value)];
  const runs = pastedRuns.length === 1 ? "one run" : `run ${Number($("paste-run").value) + 1} of ${pastedRuns.length}`;
  load({ ...run, name: `${run.runId} (pasted)` }, `A pasted trace, read as ${run.format}: ${runs}, ${run.steps.filter(isCall).length} tool calls.`);
}

/** Reads the pasted text with the package's readers (any format the replay CLI reads) and plays it. */
function replayPasted() {
  const status = $("paste-status");
  try {
    pastedRuns = readTrajectories($("paste-text").value, { name: "pasted" });
    if (pastedRuns.length === 0) throw new Error("no run with tool calls in it");
  } catch (error) {
    status.className = "error";
    status.textContent = error?.message ?? String(error);
    return;
  }
  status.className = "";
  status.textContent = `read ${pastedRuns.length} run${pastedRuns.length === 1 ? "" : "s"} as ${pastedRuns[0].format}`;
  $("paste-run").replaceChildren(...pastedRuns.map((run, i) => el("option", { value: String(i) }, `${run.runId} (${run.steps.filter(isCall).length} calls)`)));
  $("paste-run").hidden = pastedRuns.length < 2;
  if (!$("agent").querySelector(`option[value="${PASTED}"]`)) $("agent").append(el("option", { value: PASTED }, "pasted trace"));
  $("agent").value = PASTED;
  loadPasted();
}

async function main() {
  await init();
  $("agent").replaceChildren(...AGENTS.map((a) => el("option", { value: a.file }, a.label)));
  $("agent").addEventListener("change", loadAgent);
  $("preset").addEventListener("change", reload);
  $("policy").addEventListener("change", reload);
  $("reset").addEventListener("click", reload);
  $("step").addEventListener("click", () => stepOnce());
  $("run-all").addEventListener("click", () => {
    pause();
    while (stepOnce());
  });
  $("play").addEventListener("click", () => {
    if (state.timer) return pause();
    state.timer = setInterval(() => stepOnce() || pause(), PLAY_INTERVAL_MS);
    updateButtons();
  });
  $("formats").textContent = FORMATS.join(", ");
  $("paste-replay").addEventListener("click", replayPasted);
  $("paste-run").addEventListener("change", () => ($("agent").value = PASTED, loadPasted()));
  await loadAgent();
  document.body.dataset.ready = "true";
}

main().catch((error) => {
  document.body.dataset.ready = "error";
  $("about").textContent = `The demo failed to start: ${error?.message ?? error}`;
  throw error;
});
