#!/bin/sh
# Copies the ONNX node tests' models into one folder (named after the test),
# the seed corpus of onnx_import_fuzz. Usage: seed_onnx_corpus.sh OUT_DIR
set -eu
out=$1
data=/usr/share/libonnx-testdata/data/node
[ -d "$data" ] || { echo "seed_onnx_corpus: $data is missing (apt-get install libonnx-testdata)" >&2; exit 1; }
mkdir -p "$out"
for d in "$data"/*/; do
  name=$(basename "$d")
  [ -f "$d/model.onnx" ] && cp "$d/model.onnx" "$out/$name.onnx"
done
echo "seed_onnx_corpus: $(ls "$out" | wc -l) models in $out"
