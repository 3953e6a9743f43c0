#!/usr/bin/env bash
# Smoke run of every fuzz target in fuzz/ (cargo-fuzz, libFuzzer, on the nightly toolchain):
# FUZZ_SECONDS (default 4) seconds each, starting from seeds written afresh from tests/scenarios
# into build/fuzz-corpus/. Prints each target's executions; fails on a crash (the input is kept
# in fuzz/artifacts/<target>/). Long campaigns: HACKING.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH="${FUZZ_SECONDS:-4}"
TARGETS=(json_reader canonical outcome config snapshot guard_ops)
corpus=build/fuzz-corpus

cargo fmt --check --manifest-path fuzz/Cargo.toml
rm -rf "$corpus"
node scripts/fuzz-seeds.mjs "$corpus" >/dev/null
# -s none: the core is safe Rust, so AddressSanitizer adds build and run time and finds nothing
# Rust's own checks would not; -a keeps debug assertions (overflow checks) on.
cargo +nightly fuzz build -s none -a
status=0
for target in "${TARGETS[@]}"; do
  if log="$(cargo +nightly fuzz run -s none -a "$target" "$corpus/$target" -- \
      -max_total_time="$SECONDS_EACH" -print_final_stats=1 2>&1)"; then
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' <<<"$log" | grep -o '[0-9]*$' || echo '?')"
    echo "[fuzz] $target: $runs executions in ${SECONDS_EACH} s, no crash"
  else
    echo "$log" | tail -40
    echo "[fuzz] $target: FAILED"
    status=1
  fi
done
exit $status
