#!/usr/bin/env python3
"""Writes a synthetic transformer-like .uir model: LAYERS (default 132)
pre-norm blocks like resources/examples/transformer.uir — layer_norm, q/k/v
matmuls, reshape/permute into 4 heads of 16, scores matmul, scale, softmax,
context matmul, output projection, residual add, layer_norm, MLP 64->128->64
with gelu, residual add — over a symbolic sequence length s, width 64.

Each block is 38 graph nodes (bindings plus one constant node per use), so
the default 132 layers make a graph of 5,018 nodes. The weights are 12
tensors shared by every layer (the file stays ~200 KB); each use is still its
own constant node, as in a real model. Used by bench_workbench to measure
layout, drawing and pass switching on large graphs:
  python3 bench/gen_transformer_model.py 132 > /tmp/transformer5000.uir
"""
import base64
import random
import struct
import sys

layers = int(sys.argv[1]) if len(sys.argv) > 1 else 132
if layers < 1:
    sys.exit("gen_transformer_model.py: LAYERS must be at least 1")
rnd = random.Random(0)


def tensor(shape, scale):
    count = 1
    for d in shape:
        count *= d
    data = struct.pack(f"<{count}f", *(rnd.uniform(-scale, scale) for _ in range(count)))
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    return f'R.tensor_data("float32", ({dims}), "{base64.b64encode(data).decode()}")'


# metadata index -> shape: ln1 gamma/beta, wq, wk, wv, wo, ln2 gamma/beta,
# fc1 weight/bias, fc2 weight/bias.
weights = [(64,), (64,), (64, 64), (64, 64), (64, 64), (64, 64), (64,), (64,),
           (64, 128), (128,), (128, 64), (64,)]

lines = [
    "# unity IR module",
    f"# {layers} synthetic pre-norm transformer blocks (bench/gen_transformer_model.py)",
    "",
    "@R.function",
    'def main(x: R.Tensor((s, 64), "float32")) -> R.Tensor((s, 64), "float32"):',
    '    R.func_attr({"global_symbol": "main"})',
    "    with R.dataflow():",
]
prev = "x"
for i in range(layers):
    p = f"l{i}_"
    last = i == layers - 1
    out = "gv" if last else f"{p}out"
    body = [
        f"{p}ln1 = R.nn.layer_norm({prev}, R.const(metadata[0]), R.const(metadata[1]), axes=[-1], epsilon=1e-05)",
        f"{p}q = R.matmul({p}ln1, R.const(metadata[2]))",
        f"{p}k = R.matmul({p}ln1, R.const(metadata[3]))",
        f"{p}v = R.matmul({p}ln1, R.const(metadata[4]))",
        f"{p}qh = R.reshape({p}q, R.shape([s, 4, 16]))",
        f"{p}kh = R.reshape({p}k, R.shape([s, 4, 16]))",
        f"{p}vh = R.reshape({p}v, R.shape([s, 4, 16]))",
        f"{p}qt = R.permute_dims({p}qh, axes=[1, 0, 2])",
        f"{p}kt = R.permute_dims({p}kh, axes=[1, 2, 0])",
        f"{p}vt = R.permute_dims({p}vh, axes=[1, 0, 2])",
        f"{p}scores = R.matmul({p}qt, {p}kt)",
        f'{p}scaled = R.multiply({p}scores, R.const(0.25, "float32"))',
        f"{p}attn = R.nn.softmax({p}scaled, axis=-1)",
        f"{p}ctx = R.matmul({p}attn, {p}vt)",
        f"{p}ctx_t = R.permute_dims({p}ctx, axes=[1, 0, 2])",
        f"{p}ctx2 = R.reshape({p}ctx_t, R.shape([s, 64]))",
        f"{p}o = R.matmul({p}ctx2, R.const(metadata[5]))",
        f"{p}res1 = R.add({prev}, {p}o)",
        f"{p}ln2 = R.nn.layer_norm({p}res1, R.const(metadata[6]), R.const(metadata[7]), axes=[-1], epsilon=1e-05)",
        f"{p}h1 = R.matmul({p}ln2, R.const(metadata[8]))",
        f"{p}h2 = R.add({p}h1, R.const(metadata[9]))",
        f"{p}g = R.nn.gelu({p}h2)",
        f"{p}h3 = R.matmul({p}g, R.const(metadata[10]))",
        f"{p}h4 = R.add({p}h3, R.const(metadata[11]))",
    ]
    if last:
        body.append(f'gv: R.Tensor((s, 64), "float32") = R.add({p}res1, {p}h4)')
    else:
        body.append(f"{out} = R.add({p}res1, {p}h4)")
    lines += ["        " + b for b in body]
    prev = out
lines += ["        R.output(gv)", "    return gv", "", "# metadata"]
for index, shape in enumerate(weights):
    scale = 0.1 if len(shape) == 2 else (1.0 if index in (0, 6) else 0.05)
    lines.append(f"metadata[{index}] = {tensor(shape, scale)}")
print("\n".join(lines))
