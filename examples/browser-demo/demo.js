// The browser demo: plays scripted agents (examples/traces) through tool-loop-guard one call at a
// time, the way a host loop uses it: check() before the call (a refused call is not run and its
// refusal becomes the tool result; a stop ends the run), record() after it. Each call is shown with
// both verdicts, the text the model would receive, and a chart of calls run vs saved. No rule
// lives here: every verdict and text comes from the guard.
import { init, LoopGuard } from "tool-loop-guard";

const AGENTS = [
  { file: "01-update-task-incident.json", label: "update_task incident (stuck)" },
  { file: "02-polling-with-progress.json", label: "polling a build with progress" },
  { file: "03-polling-stuck.json", label: "polling a finished process (stuck)" },
  { file: "04-ping-pong.json", label: "ping-pong between two tools" },
  { file: "05-edit-test-session.json", label: "edit-test session (legitimate)" },
];
const PLAY_INTERVAL_MS = 300;

const $ = (id) => document.getElementById(id);
const refuses = (verdict) => verdict.action === "block" || verdict.action === "stop";

/** The run being played: its calls, the guard, the steps so far. */
const state = { name: "", about: "", calls: [], guard: null, steps: [], timer: null, selected: null };

function configFromControls() {
  return { preset: $("preset").value, policy: $("policy").value };
}

/** Compact one-line JSON (or the text itself), cut to `max` characters. */
function short(value, max = 60) {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  const line = text.replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The result a tool call gave, as the model saw it. */
function resultText(call) {
  if (call.error !== undefined) return `error: ${short(call.error?.message ?? call.error)}`;
  const content = call.result?.content;
  if (Array.isArray(content)) return short(content.map((part) => part.text ?? "").join(" "));
  return short(call.result);
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

/** The message the model receives after this step: a refusal, a stop, a hint, or nothing. */
function messageOf(step) {
  if (step.check.refusal) {
    const kind = step.check.action === "stop" ? "stop" : "refusal";
    const title = kind === "stop" ? `Call ${step.n}: the run is stopped; this is the last tool result` : `Call ${step.n} is refused; the model gets this as the tool result`;
    return { kind, title, text: JSON.stringify(step.check.refusal, null, 2) };
  }
  const hint = step.check.hint ?? step.record?.hint;
  if (hint) return { kind: "hint", title: `Call ${step.n}: a hint is injected into the model's next context`, text: hint };
  return null;
}

function showMessage(step) {
  const box = $("message").parentElement;
  const message = step ? messageOf(step) : null;
  box.className = `message ${message?.kind ?? ""}`;
  box.dataset.kind = message?.kind ?? "none";
  box.dataset.call = step?.n ?? "";
  $("message-title").textContent = message?.title ?? "What the model is told";
  $("message").textContent = message?.text ?? "Nothing yet: the guard has allowed every call so far.";
}

/** Calls run and calls saved after each call of the script (a stop saves every call after it). */
function tallies() {
  const total = state.calls.length;
  const run = [];
  const saved = [];
  let ran = 0;
  let spared = 0;
  for (const step of state.steps) {
    if (refuses(step.check)) spared += 1;
    else ran += 1;
    run.push(ran);
    saved.push(spared);
  }
  const stopped = state.steps.at(-1)?.check.action === "stop";
  if (stopped) for (let n = state.steps.length + 1; n <= total; n++) (run.push(ran), saved.push(++spared));
  return { run, saved, total, ran, spared, stopped };
}

function renderChart() {
  const svg = $("chart");
  const { run, saved, total } = tallies();
  const refusedAt = state.steps.find((s) => refuses(s.check))?.n;
  const [left, top, width, height] = [34, 10, 510, 130];
  const x = (n) => left + (total <= 1 ? 0 : ((n - 1) / (total - 1)) * width);
  const y = (v) => top + height - (total === 0 ? 0 : (v / total) * height);
  const line = (values, color) =>
    values.length === 0 ? "" : `<polyline fill="none" stroke="${color}" stroke-width="2.5" points="${values.map((v, i) => `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`;
  const css = getComputedStyle(document.documentElement);
  svg.innerHTML = `
    <line x1="${left}" y1="${top + height}" x2="${left + width}" y2="${top + height}" stroke="#c5ccd6"/>
    <line x1="${left}" y1="${top}" x2="${left}" y2="${top + height}" stroke="#c5ccd6"/>
    <text x="${left - 6}" y="${top + 8}" text-anchor="end">${total}</text>
    <text x="${left - 6}" y="${top + height}" text-anchor="end">0</text>
    <text x="${left}" y="${top + height + 16}">call 1</text>
    <text x="${left + width}" y="${top + height + 16}" text-anchor="end">call ${total}</text>
    ${refusedAt === undefined ? "" : `<line x1="${x(refusedAt)}" y1="${top}" x2="${x(refusedAt)}" y2="${top + height}" stroke="${css.getPropertyValue("--block")}" stroke-dasharray="4 3"/><text x="${x(refusedAt) + 4}" y="${top + 10}">first refusal: call ${refusedAt}</text>`}
    ${line(run, css.getPropertyValue("--run"))}
    ${line(saved, css.getPropertyValue("--saved"))}`;
}

function renderSummary() {
  const { ran, spared, total, stopped } = tallies();
  const firstWarn = state.steps.find((s) => s.check.action === "warn" || s.record?.action === "warn")?.n;
  const firstRefusal = state.steps.find((s) => refuses(s.check))?.n;
  const summary = $("summary");
  summary.dataset.run = ran;
  summary.dataset.saved = spared;
  summary.dataset.refusedAt = firstRefusal ?? "";
  const row = (term, value) => [el("dt", {}, term), el("dd", {}, value)];
  summary.replaceChildren(
    el(
      "dl",
      {},
      ...row("agent", state.name),
      ...row("calls made", `${state.steps.length} of ${total}${stopped ? " (run stopped)" : ""}`),
      ...row("tools run", String(ran)),
      ...row("calls saved", String(spared)),
      ...row("first warning", firstWarn ? `call ${firstWarn}` : "none yet"),
      ...row("first refusal", firstRefusal ? `call ${firstRefusal}` : "none yet"),
      ...row("config", JSON.stringify(configFromControls())),
    ),
  );
}

function select(step) {
  state.selected = step;
  for (const row of $("timeline").tBodies[0].rows) row.classList.toggle("selected", Number(row.dataset.n) === step?.n);
  showMessage(step);
}

function renderStep(step) {
  const refused = refuses(step.check);
  const row = el(
    "tr",
    { "data-n": String(step.n), "data-check": step.check.action, "data-record": step.record?.action ?? "", class: refused ? "refused" : "" },
    el("td", {}, String(step.n)),
    el("td", {}, step.call.tool),
    el("td", { class: "args", title: JSON.stringify(step.call.args ?? {}) }, short(step.call.args ?? {}, 48)),
    el("td", { class: "verdict" }, badge(step.check)),
    el("td", { class: "result" }, refused ? (step.check.action === "stop" ? "not run: the run ends" : "not run: refusal returned") : resultText(step.call)),
    el("td", { class: "verdict" }, badge(step.record)),
  );
  row.addEventListener("click", () => select(step));
  $("timeline").tBodies[0].append(row);
  if (messageOf(step)) select(step);
}

/** Shows the calls a stop spared, greyed. */
function renderNeverMade() {
  for (let n = state.steps.length + 1; n <= state.calls.length; n++) {
    const call = state.calls[n - 1];
    $("timeline").tBodies[0].append(
      el("tr", { class: "never", "data-n": String(n), "data-check": "" }, el("td", {}, String(n)), el("td", {}, call.tool), el("td", { class: "args" }, short(call.args ?? {}, 48)), el("td", {}, "never made"), el("td", {}), el("td", {})),
    );
  }
}

function finished() {
  return state.steps.length >= state.calls.length || state.steps.at(-1)?.check.action === "stop";
}

/** Plays the next call of the script: check, then (unless refused) record. False when done. */
function stepOnce() {
  if (finished()) return false;
  const call = state.calls[state.steps.length];
  const { result, error, ...proposed } = call;
  const step = { n: state.steps.length + 1, call, check: state.guard.check(proposed) };
  if (!refuses(step.check)) step.record = state.guard.record(call);
  state.steps.push(step);
  renderStep(step);
  if (step.check.action === "stop") renderNeverMade();
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

/** Starts the script `calls` again from its first call with a fresh guard built from the controls. */
function load({ name, about, calls }) {
  pause();
  state.guard?.free();
  state.guard = new LoopGuard(configFromControls());
  Object.assign(state, { name, about, calls, steps: [], selected: null });
  $("about").textContent = about;
  $("timeline").tBodies[0].replaceChildren();
  showMessage(null);
  renderChart();
  renderSummary();
  updateButtons();
}

const traces = new Map();
async function loadAgent() {
  const file = $("agent").value;
  if (!traces.has(file)) traces.set(file, await (await fetch(`./traces/${file}`)).json());
  const trace = traces.get(file);
  load({ name: trace.name, about: trace.about, calls: trace.calls.map((call, i) => ({ runId: "demo", callId: `call-${i + 1}`, ...call })) });
}

async function main() {
  await init();
  $("agent").replaceChildren(...AGENTS.map((a) => el("option", { value: a.file }, a.label)));
  $("agent").addEventListener("change", loadAgent);
  $("preset").addEventListener("change", () => load(state));
  $("policy").addEventListener("change", () => load(state));
  $("reset").addEventListener("click", () => load(state));
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
  await loadAgent();
  document.body.dataset.ready = "true";
}

main().catch((error) => {
  document.body.dataset.ready = "error";
  $("about").textContent = `The demo failed to start: ${error?.message ?? error}`;
  throw error;
});
