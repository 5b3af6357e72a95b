#!/bin/sh
# Generates the large models and runs bench_workbench on them (see
# docs/benchmarks.md, "Workbench responsiveness"). By default uses the
# release build in build/release (cmake --preset release);
# BENCH_BUILD_DIR=<dir> picks another configured build with the GUI on.
# Extra arguments go to bench_workbench (e.g. --repeat 40).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="${BENCH_BUILD_DIR:-$root/build/release}"
if [ ! -f "$build/build.ninja" ]; then
  cmake --preset release -S "$root" >/dev/null
fi
ninja -C "$build" bench_workbench >/dev/null
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
python3 "$root/bench/gen_chain_model.py" 500 >"$models/chain500.uir"
python3 "$root/bench/gen_transformer_model.py" 132 >"$models/transformer5000.uir"
python3 "$root/bench/gen_scoped_transformer.py" 24 48 96 >"$models/scoped50000.uir" 2>/dev/null
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bench/bench_workbench" --chain "$models/chain500.uir" \
  --transformer "$models/transformer5000.uir" \
  --scoped "$models/scoped50000.uir" \
  --largest "$root/resources/examples/mlp.uir" "$@"
