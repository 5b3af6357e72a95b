#!/bin/sh
# Builds bench_kernels and runs it (1 and 2 threads); extra arguments go to
# bench_kernels. By default configures a release build in
# build/bench-release. BENCH_BUILD_DIR=<dir> reuses an existing configured
# build instead (the measured kernels do not depend on the engine's build
# type: they are JIT-compiled at -O3, OpenBLAS and oneDNN are the system
# libraries, the naive loops are always built with -O3 -march=native).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="${BENCH_BUILD_DIR:-}"
if [ -z "$build" ]; then
  build="$root/build/bench-release"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLOWERSCOPE_BUILD_GUI=OFF -DLOWERSCOPE_BUILD_TESTS=OFF -DLOWERSCOPE_BUILD_BENCH=ON >/dev/null
fi
ninja -C "$build" bench_kernels >/dev/null
# Debian's DYNAMIC_ARCH OpenBLAS falls back to its generic "Prescott" kernels
# when the (virtual) CPU does not report a model it knows; name the core.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -q avx512f /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exec "$build/bench/bench_kernels" "$@"
