#!/usr/bin/env python3
"""Writes a big operator-level transformer as a .uir model whose bindings
carry ONNX-style scoped origins ("/encoder/layer.3/attention/head.7/MatMul"),
the hierarchy the graph view groups by (engine/viz/graph_hierarchy.h).

  python3 bench/gen_scoped_transformer.py [LAYERS [HEADS [EXPERTS]]] > big.uir

LAYERS (default 24) pre-norm blocks, width 64, sequence 16. Attention is
drawn per head (HEADS, default 48: q/k/v projections with biases, k
transposed, scores, scale, softmax, context, output projection, sum: 13
operators each) and the MLP as a mixture of EXPERTS (default 96) experts
(matmul, bias, a tanh GELU written out in 10 elementwise operators, matmul,
bias, gate, sum: 16 operators each) between two layer norms. With the
defaults that is 24 x 2,162 + 1 = 51,889 operator nodes plus the parameter
and the output (a 51,891-node graph): the 50,000-node
model bench_workbench opens collapsed. The weights are 9 tensors shared by
every use (the file is ~6 MB of text).
"""
import base64
import random
import struct
import sys

args = [int(a) for a in sys.argv[1:4]]
layers, heads, experts = (args + [24, 48, 96][len(args):])[:3]
if min(layers, heads, experts) < 1:
    sys.exit("gen_scoped_transformer.py: LAYERS, HEADS and EXPERTS must be at least 1")
rnd = random.Random(0)


def tensor(shape, scale):
    count = 1
    for d in shape:
        count *= d
    data = struct.pack(f"<{count}f", *(rnd.uniform(-scale, scale) for _ in range(count)))
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    return f'R.tensor_data("float32", ({dims}), "{base64.b64encode(data).decode()}")'


# metadata: 0/1 layer-norm gamma/beta (64,), 2 head projection (64, 16),
# 3 head bias (16,), 4 head output (16, 64), 5 expert up (64, 128),
# 6 expert bias (128,), 7 expert down (128, 64), 8 bias (64,)
weights = [((64,), 1.0), ((64,), 0.05), ((64, 16), 0.1), ((16,), 0.05), ((16, 64), 0.1),
           ((64, 128), 0.1), ((128,), 0.05), ((128, 64), 0.1), ((64,), 0.05)]


def c(i):
    return f"R.const(metadata[{i}])"


def f(x):
    return f'R.const({x}, "float32")'


lines = [
    "# unity IR module",
    f"# {layers}-layer operator-level transformer, {heads} heads, {experts} experts, with",
    "# scoped origins (bench/gen_scoped_transformer.py)",
    "",
    "@R.function",
    'def main(x: R.Tensor((16, 64), "float32")) -> R.Tensor((16, 64), "float32"):',
    '    R.func_attr({"global_symbol": "main"})',
    "    with R.dataflow():",
]
count = 0


def emit(var, expr, scope, op):
    global count
    count += 1
    lines.append(f'        {var} = {expr}  # @origin("{scope}/{op}:{op}")')


prev = "x"
for i in range(layers):
    L = f"/encoder/layer.{i}"
    p = f"l{i}_"
    emit(f"{p}ln1", f"R.nn.layer_norm({prev}, {c(0)}, {c(1)}, axes=[-1], epsilon=1e-05)",
         f"{L}/attention/norm", "LayerNormalization")
    acc = None
    for h in range(heads):
        S, q = f"{L}/attention/head.{h}", f"{p}a{h}_"
        for t in "qkv":
            emit(f"{q}{t}0", f"R.matmul({p}ln1, {c(2)})", f"{S}/{t}", "MatMul")
            emit(f"{q}{t}", f"R.add({q}{t}0, {c(3)})", f"{S}/{t}", "Add")
        emit(f"{q}kt", f"R.permute_dims({q}k, axes=[1, 0])", S, "Transpose")
        emit(f"{q}s", f"R.matmul({q}q, {q}kt)", S, "MatMul")
        emit(f"{q}ss", f"R.multiply({q}s, {f(0.25)})", S, "Mul")
        emit(f"{q}p", f"R.nn.softmax({q}ss, axis=-1)", S, "Softmax")
        emit(f"{q}ctx", f"R.matmul({q}p, {q}v)", S, "MatMul")
        emit(f"{q}o", f"R.matmul({q}ctx, {c(4)})", f"{S}/out", "MatMul")
        nxt = f"{q}acc"
        emit(nxt, f"R.add({acc}, {q}o)" if acc else f"R.add({prev}, {q}o)", S, "Add")
        acc = nxt
    res = acc
    emit(f"{p}ln2", f"R.nn.layer_norm({res}, {c(0)}, {c(1)}, axes=[-1], epsilon=1e-05)",
         f"{L}/mlp/norm", "LayerNormalization")
    acc = res
    for e in range(experts):
        S, q = f"{L}/mlp/expert.{e}", f"{p}e{e}_"
        emit(f"{q}h0", f"R.matmul({p}ln2, {c(5)})", f"{S}/fc1", "MatMul")
        emit(f"{q}h", f"R.add({q}h0, {c(6)})", f"{S}/fc1", "Add")
        G = f"{S}/gelu"
        emit(f"{q}g1", f"R.multiply({q}h, {q}h)", G, "Mul")
        emit(f"{q}g2", f"R.multiply({q}g1, {q}h)", G, "Mul")
        emit(f"{q}g3", f"R.multiply({q}g2, {f(0.044715)})", G, "Mul")
        emit(f"{q}g4", f"R.add({q}h, {q}g3)", G, "Add")
        emit(f"{q}g5", f"R.multiply({q}g4, {f(0.7978845608)})", G, "Mul")
        emit(f"{q}g6", f"R.tanh({q}g5)", G, "Tanh")
        emit(f"{q}g7", f"R.add({q}g6, {f(1.0)})", G, "Add")
        emit(f"{q}g8", f"R.multiply({q}g7, {f(0.5)})", G, "Mul")
        emit(f"{q}g9", f"R.multiply({q}h, {q}g8)", G, "Mul")
        emit(f"{q}g", f"R.multiply({q}g9, {f(1.0)})", G, "Identity")
        emit(f"{q}d0", f"R.matmul({q}g, {c(7)})", f"{S}/fc2", "MatMul")
        emit(f"{q}d", f"R.add({q}d0, {c(8)})", f"{S}/fc2", "Add")
        emit(f"{q}w", f"R.multiply({q}d, {f(1.0 / experts)})", S, "Mul")
        nxt = f"{q}acc"
        emit(nxt, f"R.add({acc}, {q}w)", S, "Add")
        acc = nxt
    prev = acc

lines += ['        gv: R.Tensor((16, 64), "float32") = R.add(' + prev + ", " + c(8) + ")",
          "        R.output(gv)", "    return gv", "", "# metadata"]
for index, (shape, scale) in enumerate(weights):
    lines.append(f"metadata[{index}] = {tensor(shape, scale)}")
print("\n".join(lines))
print(f"gen_scoped_transformer.py: {count + 1} operator nodes", file=sys.stderr)
