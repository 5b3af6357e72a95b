#!/usr/bin/env python3
"""Generates the example modules in resources/examples/*.uir.

Plain python3 (no numpy). Weights are random but fixed (seeded), stored as
base64 float32 in each file's metadata section; tiny constants are inline.
Run from the repository root: python3 scripts/gen_examples.py
"""
import base64
import os
import random
import struct

OUT = os.path.join(os.path.dirname(__file__), "..", "resources", "examples")


class Module:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.meta = []

    def weight(self, *shape, scale=0.05):
        n = 1
        for d in shape:
            n *= d
        data = struct.pack("<%df" % n, *[self.rng.uniform(-scale, scale) for _ in range(n)])
        self.meta.append((shape, data))
        return "R.const(metadata[%d])" % (len(self.meta) - 1)

    def metadata(self):
        lines = ["# metadata"]
        for i, (shape, data) in enumerate(self.meta):
            dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
            lines.append('metadata[%d] = R.tensor_data("float32", (%s), "%s")'
                         % (i, dims, base64.b64encode(data).decode()))
        return "\n".join(lines) + "\n"


def mlp():
    m = Module(1)
    w1, b1 = m.weight(784, 128), m.weight(128)
    w2, b2 = m.weight(128, 10), m.weight(10)
    return f'''# unity IR module
# A two-layer perceptron over a symbolic batch n: 784 -> 128 -> 10.

@R.function
def main(x: R.Tensor((n, 784), "float32")) -> R.Tensor((n, 10), "float32"):
    R.func_attr({{"global_symbol": "main"}})
    with R.dataflow():
        lv0 = R.matmul(x, {w1})  # @origin("fc1:Gemm")
        lv1 = R.add(lv0, {b1})  # @origin("fc1:Gemm")
        lv2 = R.nn.relu(lv1)  # @origin("relu1:Relu")
        lv3 = R.matmul(lv2, {w2})  # @origin("fc2:Gemm")
        gv: R.Tensor((n, 10), "float32") = R.add(lv3, {b2})  # @origin("fc2:Gemm")
        R.output(gv)
    return gv

''' + m.metadata()


def cnn():
    m = Module(2)
    c1 = m.weight(16, 3, 3, 3, scale=0.2)
    b1 = m.weight(1, 16, 1, 1)
    c2 = m.weight(32, 16, 3, 3, scale=0.1)
    b2 = m.weight(1, 32, 1, 1)
    wd = m.weight(10, 32, scale=0.2)
    bd = m.weight(10)
    return f'''# unity IR module
# A small CNN on one 3x32x32 image (NCHW): conv+bias+relu, max pool,
# conv+bias+relu, global average pool, dense.

@R.function
def main(x: R.Tensor((1, 3, 32, 32), "float32")) -> R.Tensor((1, 10), "float32"):
    R.func_attr({{"global_symbol": "main"}})
    with R.dataflow():
        c1 = R.nn.conv2d(x, {c1}, padding=[1, 1, 1, 1])  # @origin("conv1:Conv")
        a1 = R.add(c1, {b1})  # @origin("conv1:Conv")
        r1 = R.nn.relu(a1)  # @origin("relu1:Relu")
        p1 = R.nn.max_pool2d(r1, pool_size=[2, 2], strides=[2, 2])  # @origin("pool1:MaxPool")
        c2 = R.nn.conv2d(p1, {c2}, padding=[1, 1, 1, 1])  # @origin("conv2:Conv")
        a2 = R.add(c2, {b2})  # @origin("conv2:Conv")
        r2 = R.nn.relu(a2)  # @origin("relu2:Relu")
        g = R.nn.global_avg_pool2d(r2)  # @origin("gap:GlobalAveragePool")
        f = R.reshape(g, R.shape([1, 32]))  # @origin("flatten:Flatten")
        d = R.nn.dense(f, {wd})  # @origin("fc:Gemm")
        gv: R.Tensor((1, 10), "float32") = R.add(d, {bd})  # @origin("fc:Gemm")
        R.output(gv)
    return gv

''' + m.metadata()


def transformer():
    m = Module(3)
    d, h, hd, ff = 64, 4, 16, 128
    g1, be1 = m.weight(d, scale=1.0), m.weight(d)
    wq, wk, wv, wo = (m.weight(d, d, scale=0.1) for _ in range(4))
    g2, be2 = m.weight(d, scale=1.0), m.weight(d)
    w1, b1, w2, b2 = m.weight(d, ff, scale=0.1), m.weight(ff), m.weight(ff, d, scale=0.1), m.weight(d)
    return f'''# unity IR module
# One pre-norm transformer block over a symbolic sequence length s:
# model width {d}, {h} heads of {hd}, MLP {ff} with gelu, residual connections.

@R.function
def main(x: R.Tensor((s, {d}), "float32")) -> R.Tensor((s, {d}), "float32"):
    R.func_attr({{"global_symbol": "main"}})
    with R.dataflow():
        ln1 = R.nn.layer_norm(x, {g1}, {be1}, axes=[-1], epsilon=1e-05)  # @origin("ln1:LayerNormalization")
        q = R.matmul(ln1, {wq})  # @origin("q_proj:MatMul")
        k = R.matmul(ln1, {wk})  # @origin("k_proj:MatMul")
        v = R.matmul(ln1, {wv})  # @origin("v_proj:MatMul")
        qh = R.reshape(q, R.shape([s, {h}, {hd}]))
        kh = R.reshape(k, R.shape([s, {h}, {hd}]))
        vh = R.reshape(v, R.shape([s, {h}, {hd}]))
        qt = R.permute_dims(qh, axes=[1, 0, 2])
        kt = R.permute_dims(kh, axes=[1, 2, 0])
        vt = R.permute_dims(vh, axes=[1, 0, 2])
        scores = R.matmul(qt, kt)  # @origin("scores:MatMul")
        scaled = R.multiply(scores, R.const(0.25, "float32"))
        attn = R.nn.softmax(scaled, axis=-1)  # @origin("softmax:Softmax")
        ctx = R.matmul(attn, vt)
        ctx_t = R.permute_dims(ctx, axes=[1, 0, 2])
        ctx2 = R.reshape(ctx_t, R.shape([s, {d}]))
        o = R.matmul(ctx2, {wo})  # @origin("o_proj:MatMul")
        res1 = R.add(x, o)  # @origin("residual1:Add")
        ln2 = R.nn.layer_norm(res1, {g2}, {be2}, axes=[-1], epsilon=1e-05)  # @origin("ln2:LayerNormalization")
        h1 = R.matmul(ln2, {w1})  # @origin("fc1:MatMul")
        h2 = R.add(h1, {b1})
        g = R.nn.gelu(h2)  # @origin("gelu:Gelu")
        h3 = R.matmul(g, {w2})  # @origin("fc2:MatMul")
        h4 = R.add(h3, {b2})
        gv: R.Tensor((s, {d}), "float32") = R.add(res1, h4)  # @origin("residual2:Add")
        R.output(gv)
    return gv

''' + m.metadata()


CALL_TIR = '''# unity IR module
# Hand-written tensor functions called from a graph function with call_tir:
# a matmul (a reduction block with init), a bias add and a relu, over a
# symbolic batch n.

@R.function
def main(x: R.Tensor((n, 16), "float32"), w: R.Tensor((16, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((n, 8), "float32"):
    R.func_attr({"global_symbol": "main"})
    with R.dataflow():
        lv0 = R.call_tir(matmul, (x, w), out_sinfo=R.Tensor((n, 8), "float32"))
        lv1 = R.call_tir(bias_add, (lv0, b), out_sinfo=R.Tensor((n, 8), "float32"))
        gv: R.Tensor((n, 8), "float32") = R.call_tir(relu, (lv1,), out_sinfo=R.Tensor((n, 8), "float32"))
        R.output(gv)
    return gv

@T.prim_func
def matmul(A: T.Buffer((n, 16), "float32"), B: T.Buffer((16, 8), "float32"), C: T.Buffer((n, 8), "float32")):
    T.func_attr({"global_symbol": "matmul", "num_outputs": 1})
    for i in T.serial(n):
        for j in T.serial(8):
            for k in T.serial(16):
                with T.block("C"):
                    vi = T.axis.spatial(n, i)
                    vj = T.axis.spatial(8, j)
                    vk = T.axis.reduce(16, k)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(C[vi, vj])
                    with T.init():
                        C[vi, vj] = T.float32(0.0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

@T.prim_func
def bias_add(A: T.Buffer((n, 8), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((n, 8), "float32")):
    T.func_attr({"global_symbol": "bias_add", "num_outputs": 1})
    for i in T.parallel(n):
        for j in T.vectorized(8):
            with T.block("C"):
                vi = T.axis.spatial(n, i)
                vj = T.axis.spatial(8, j)
                T.reads(A[vi, vj], B[vj])
                T.writes(C[vi, vj])
                C[vi, vj] = A[vi, vj] + B[vj]

@T.prim_func
def relu(A: T.Buffer((n, 8), "float32"), C: T.Buffer((n, 8), "float32")):
    T.func_attr({"global_symbol": "relu", "num_outputs": 1})
    for i in T.serial(n):
        for j in T.serial(8):
            with T.block("C"):
                vi = T.axis.spatial(n, i)
                vj = T.axis.spatial(8, j)
                T.reads(A[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(A[vi, vj], T.float32(0.0))
'''


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, text in [("mlp", mlp()), ("cnn", cnn()), ("transformer", transformer()),
                       ("call_tir", CALL_TIR)]:
        with open(os.path.join(OUT, name + ".uir"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
