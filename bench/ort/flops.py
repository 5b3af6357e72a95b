#!/usr/bin/env python3
"""Prints the multiply-add work of an ONNX model in GFLOP (2 per multiply-
add) of its Conv, MatMul and Gemm nodes, the operators that dominate every
bench/ort model; the element-wise and normalization nodes are not counted.

    flops.py MODEL.onnx INPUT_0.npy [INPUT_1.npy ...]

The inputs fix the symbolic dimensions (a sequence length) to the sizes the
benchmark runs at. Prints "null" when a counted node's shape stays unknown,
so a table never shows a made-up figure."""
import sys

import numpy as np
import onnx
from onnx import shape_inference


def model_gflop(path, input_shapes):
    m = onnx.load(path)
    inits = {t.name for t in m.graph.initializer}
    graph_inputs = [i for i in m.graph.input if i.name not in inits]
    for vi, shape in zip(graph_inputs, input_shapes):
        dims = vi.type.tensor_type.shape.dim
        for d, v in zip(dims, shape):
            d.Clear()
            d.dim_value = int(v)
    m = shape_inference.infer_shapes(m)
    shapes = {}
    for vi in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
        dims = vi.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            shapes[vi.name] = [d.dim_value for d in dims]
    for t in m.graph.initializer:
        shapes[t.name] = list(t.dims)
    total = 0
    for n in m.graph.node:
        if n.op_type not in ("Conv", "MatMul", "Gemm"):
            continue
        a, w, y = shapes.get(n.input[0]), shapes.get(n.input[1]), shapes.get(n.output[0])
        if a is None or w is None or y is None:
            return None
        if n.op_type == "Conv":  # each output: (C / groups) * kh * kw multiply-adds
            total += 2 * int(np.prod(y)) * int(np.prod(w[1:]))
        elif n.op_type == "MatMul":
            total += 2 * int(np.prod(y)) * a[-1]
        else:  # Gemm: the reduction is A's second dimension unless transA
            trans_a = any(at.name == "transA" and at.i for at in n.attribute)
            total += 2 * int(np.prod(y)) * (a[0] if trans_a else a[1])
    return total / 1e9


def main():
    shapes = [np.load(p, mmap_mode="r").shape for p in sys.argv[2:]]
    g = model_gflop(sys.argv[1], shapes)
    print("null" if g is None else f"{g:.4f}")


if __name__ == "__main__":
    main()
