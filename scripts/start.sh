#!/usr/bin/env bash
# Builds Lowerscope (CMake preset `release`, the two executables only) and
# starts it: the window when a display is available, otherwise the headless
# main job with lowerscope-cli on the bundled example model.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes absolute paths; relative to the checkout, every clone (CI
# makes a fresh one) reuses the same cache entries.
export CCACHE_BASEDIR="$PWD"

scripts/install-deps.sh
echo "start: configuring and building preset 'release' (lowerscope, lowerscope-cli)"
cmake --preset release --log-level=WARNING
cmake --build --preset release --target lowerscope lowerscope-cli

bin=build/release/app
example=resources/examples/mlp.uir

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  args=()
  [ -f "$example" ] && args=(--open "$example")
  echo "start: launching $bin/lowerscope ${args[*]}"
  exec "$bin/lowerscope" "${args[@]}"
fi

ran=()
run() {
  echo "start: \$ $*"
  "$@"
  ran+=("$*")
}
echo "start: no display (DISPLAY and WAYLAND_DISPLAY are unset): running the headless job"
if [ -f "$example" ]; then
  run "$bin/lowerscope-cli" check "$example"
  run "$bin/lowerscope-cli" build "$example" --dump-passes build/release/mlp-passes
  run "$bin/lowerscope-cli" run "$example" --profile
else
  echo "start: $example is not in this checkout, so there is no model to check and print"
  run "$bin/lowerscope-cli" --version
fi
echo "start: done; ran:"
printf '  %s\n' "${ran[@]}"
