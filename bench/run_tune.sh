#!/bin/sh
# Tunes bench_kernels' matmul and convolution rows and measures each tuned
# kernel beside its peer (OpenBLAS, oneDNN) in the same run, then draws the
# tuning curves (best GFLOP/s against trials and against seconds) as a PNG.
#
#   bench/run_tune.sh [bench_kernels options...]
#
# Environment: TRIALS (per kernel, default 200), SECONDS (time budget per
# kernel, default 120), THREADS (default 1), OUT (folder for the database,
# the CSV curves and tuning_curves.png; default build/bench-tune),
# BENCH_BUILD_DIR (an existing configured build; default: a Release tree in
# build/bench-release, GUI on for plot_curves). The peers run at their best
# kernels: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for this command
# (OpenBLAS then picks its kernel from the CPU; the run prints which).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
trials="${TRIALS:-200}"
seconds="${SECONDS:-120}"
threads="${THREADS:-1}"
out="${OUT:-$root/build/bench-tune}"
build="${BENCH_BUILD_DIR:-}"
if [ -z "$build" ]; then
  build="$root/build/bench-release"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLOWERSCOPE_BUILD_GUI=ON -DLOWERSCOPE_BUILD_TESTS=OFF -DLOWERSCOPE_BUILD_BENCH=ON >/dev/null
fi
ninja -C "$build" bench_kernels plot_curves >/dev/null
mkdir -p "$out/curves"
rm -f "$out"/curves/*.csv
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$build/bench/bench_kernels" --threads "$threads" \
  --tune "$trials" --tune-seconds "$seconds" --db "$out/tune.db" --curves "$out/curves" "$@"
"$build/bench/plot_curves" "$out/tuning_curves.png" "$out"/curves/*.csv
