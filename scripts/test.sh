#!/usr/bin/env bash
# Every test: the Rust tests (unit, integration, scenario corpus natively), then the npm package is
# built into pkg/ and tested under Node with node:test (tests/js/node/).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "[test] cargo test"
cargo test --locked
echo "[test] build pkg/"
node scripts/build.mjs
echo "[test] node:test over pkg/ (node $(node --version))"
node --test --test-reporter=spec tests/js/node/*.test.mjs
