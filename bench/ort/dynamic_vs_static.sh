#!/bin/sh
# Dynamic against static builds of the dynamic test models
# (tests/onnx/models, written by gen_dynamic.py): for every model and input
# size, bench_onnx times the model as shipped (symbolic N, H, W: one build
# for every size) and the same model with its dims imported as the input's
# constants (--dim), one after the other, ROUNDS times (interleaved, so both
# see the same machine load). Prints one line per measurement pair: median
# wall ms of each and their ratio.
#
#   bench/ort/dynamic_vs_static.sh [BENCH_ONNX] [ROUNDS] [REPEAT]
#
# BENCH_ONNX defaults to build/dev/bench/ort/bench_onnx; THREADS (default 1)
# is the kernels' thread count.
set -eu
bench="${1:-build/dev/bench/ort/bench_onnx}"
rounds="${2:-3}"
repeat="${3:-300}"
threads="${THREADS:-1}"
models="$(dirname "$0")/../../tests/onnx/models"

median() { python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["median_ms"])'; }

# The --dim flags of an input: the npy header's shape mapped onto the
# model's dim_params (N, C fixed, H, W as the models declare them).
dims() {
  python3 - "$1" "$2" <<'PY'
import re, sys
model, npy = sys.argv[1], sys.argv[2]
shape = [int(d) for d in re.search(rb"'shape': \(([^)]*)\)", open(npy, "rb").read(256)).group(1).split(b",") if d.strip()]
names = {"classifier_flatten": {0: "N"}, "detector_fpn": {0: "N", 2: "H", 3: "W"},
         "recognizer_seq": {0: "N", 3: "W"}}[model]
print(" ".join("--dim %s=%d" % (n, shape[i]) for i, n in sorted(names.items())))
PY
}

for round in $(seq "$rounds"); do
  for model in classifier_flatten detector_fpn recognizer_seq; do
    for size in "$models/$model"/size_*; do
      input="$size/input_0.npy"
      flags="$(dims "$model" "$input")"
      dyn=$("$bench" "$models/$model/model.onnx" --input "$input" --threads "$threads" \
        --repeat "$repeat" | median)
      # shellcheck disable=SC2086 # $flags is a list of words
      sta=$("$bench" "$models/$model/model.onnx" --input "$input" --threads "$threads" \
        --repeat "$repeat" $flags | median)
      ratio=$(python3 -c "print('%.2f' % ($dyn / $sta))")
      echo "round $round $model $(basename "$size") [$flags] dynamic $dyn ms static $sta ms ratio ${ratio}x"
    done
  done
done
