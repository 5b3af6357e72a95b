#!/bin/sh
# Runs ONNX models with unity (bench_onnx) and with ONNX Runtime
# (onnxruntime-node, ort_run.mjs) side by side -- same .npy inputs, same
# thread count -- and prints one table: import and build time, median / min
# latency, CPU time per run (1 thread), the GFLOP/s both reach on the model's
# Conv/MatMul/Gemm work (flops.py), our output against ORT's.
#
#   bench/ort/run.sh [MODEL[@DIM=V]...]     default: every model, see below
#
# Environment: THREADS (default "1 2"), REPEAT (timed runs, default 20),
# BENCH_BUILD_DIR (an existing configured build to reuse; default: configure
# a Release tree in build/bench-release), BENCH_BIN (a built bench_onnx to use
# as it is, nothing is built), MODEL_DIR (where generated models
# and inputs are kept, default build/bench-ort), DB (a tuning database made by
# `lowerscope-cli tune`: ours is built with its best schedules), OURS_ARGS (more
# bench_onnx arguments, e.g. "--disable-passes AlterConvLayout"). Needs python3-onnx and
# python3-numpy (scripts/install-deps.sh --bench) and node + npm;
# onnxruntime-node is installed here by `npm install` on the first run
# (ONNXRUNTIME_NODE_INSTALL=skip: the CPU binaries only, no CUDA download).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
threads="${THREADS:-1 2}"
repeat="${REPEAT:-20}"
models_dir="${MODEL_DIR:-$root/build/bench-ort}"
# MODEL@DIM=V imports the symbolic dimension DIM as the constant V.
configs="${*:-resnet18 mobilenetv2 bert_block_256 bert_block_256@seq=128 bert_block_768 bert_mini_5mb}"

py=/usr/bin/python3
if ! $py -c 'import onnx, numpy' 2>/dev/null; then
  echo "bench/ort: python3-onnx and python3-numpy are missing: run scripts/install-deps.sh --bench" >&2
  exit 1
fi
for tool in node npm; do
  command -v $tool >/dev/null || { echo "bench/ort: $tool is missing (Debian: apt-get install nodejs npm)" >&2; exit 1; }
done
if [ ! -d "$here/node_modules/onnxruntime-node" ]; then
  (cd "$here" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund >&2)
fi

bench="${BENCH_BIN:-}"
if [ -z "$bench" ]; then
  build="${BENCH_BUILD_DIR:-}"
  if [ -z "$build" ]; then
    build="$root/build/bench-release"
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DLOWERSCOPE_BUILD_GUI=OFF -DLOWERSCOPE_BUILD_TESTS=OFF -DLOWERSCOPE_BUILD_BENCH=ON >/dev/null
  fi
  ninja -C "$build" bench_onnx >/dev/null
  bench="$build/bench/ort/bench_onnx"
fi

mkdir -p "$models_dir"
results="$models_dir/results.jsonl"
: >"$results"
for config in $configs; do
  model=${config%%@*}
  dim=""
  [ "$model" != "$config" ] && dim="--dim ${config#*@}"
  if [ ! -f "$models_dir/$model.onnx" ]; then
    $py "$here/gen_models.py" "$models_dir" "$model" >&2
  fi
  onnx="$models_dir/$model.onnx"
  input="$models_dir/$model.input_0.npy"
  gflop=$($py "$here/flops.py" "$onnx" "$input")
  for t in $threads; do
    ref="$models_dir/ref_${model}_t$t"
    ort=$(node "$here/ort_run.mjs" "$onnx" --input "$input" --threads "$t" --repeat "$repeat" \
      --output-dir "$ref")
    # shellcheck disable=SC2086 # $dim is empty or two words, OURS_ARGS extra words
    ours=$("$bench" "$onnx" --input "$input" --threads "$t" \
      --repeat "$repeat" --reference "$ref/output_0.npy" $dim ${DB:+--db "$DB"} ${OURS_ARGS:-})
    echo "{\"config\": \"$config\", \"bytes\": $(stat -c %s "$onnx"), \"gflop\": $gflop, \"ours\": $ours, \"ort\": $ort}" >>"$results"
    echo "bench/ort: $config, $t thread(s) done" >&2
  done
done
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
$py "$here/table.py" "$results"
