#!/usr/bin/env bash
# Installs the Debian 12 packages Lowerscope needs to build, test and package
# (the list of ../shared/TOOLCHAIN.md plus the compiler, CMake and dpkg-dev).
# Asks dpkg first and touches apt only when something is missing, so a second
# run is a no-op that takes well under a second.
#
#   scripts/install-deps.sh           what building, testing and packaging need
#   scripts/install-deps.sh --bench   also the optional benchmark group
#                                     (bench/ort: model generators)
set -euo pipefail

packages=(
  # compiler, build system, packaging
  build-essential cmake pkg-config ninja-build ccache dpkg-dev file
  # GUI
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev
  # compiler back end, graph layout, tuning database
  llvm-19-dev libzstd-dev libgraphviz-dev graphviz libsqlite3-dev sqlite3
  # model import, math libraries, cost model
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libopenblas-dev libdnnl-dev libxgboost-dev
  # header-only and small libraries
  nlohmann-json3-dev libcli11-dev libfmt-dev
  # tests and benchmarks
  libgtest-dev libbenchmark-dev xvfb xauth fonts-dejavu-core imagemagick
  # the tuner's Slurm runner and its single-node test cluster (scripts/slurm-cluster.sh)
  slurm-wlm munge
)
# Optional: bench/ort/gen_models.py writes its ONNX models with these. (The
# ONNX Runtime peer comes from npm, installed by bench/ort/run.sh; node and
# npm are Debian's nodejs and npm when the machine has no other.)
bench_packages=(python3-onnx python3-numpy)
for arg in "$@"; do
  case "$arg" in
    --bench) packages+=("${bench_packages[@]}") ;;
    *) echo "install-deps: unknown option '$arg' (known: --bench)" >&2; exit 2 ;;
  esac
done

installed=$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' "${packages[@]}" 2>/dev/null \
  | awk '$1 == "installed" { print $2 }' || true)
missing=()
for p in "${packages[@]}"; do
  grep -qxF "$p" <<<"$installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "install-deps: installing ${#missing[@]} missing package(s): ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
echo "install-deps: done"
