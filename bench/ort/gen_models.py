#!/usr/bin/env python3
"""Writes the ONNX models of the ONNX Runtime comparison (bench/ort/run.sh)
and one set of inputs per model, with Debian's python3-onnx and python3-numpy.

The models are real architectures with random (seeded) weights, built node by
node with onnx.helper so nothing needs the network or a training framework:

  resnet18        ResNet-18 (torchvision layout: 7x7 stem, max pool, 4 stages
                  of 2 basic blocks, global average pool, fc 1000), 1x3x224x224,
                  BatchNormalization kept as separate nodes (as exported
                  without folding), ~44.7 MB
  mobilenetv2     MobileNetV2 width 1.0 (inverted residuals with depthwise 3x3
                  convs, Clip(0, 6) as ReLU6), 1x3x224x224, ~13.9 MB
  bert_block_256  one BERT encoder layer, hidden 256, 4 heads, FFN 1024, as
                  PyTorch exports it (MatMul+Add, Reshape/Transpose per head,
                  Softmax, erf-GELU, LayerNormalization), input (1, seq, 256)
                  with a symbolic sequence length "seq"; run at seq = 128
  bert_block_768  the same at BERT-base size: hidden 768, 12 heads, FFN 3072,
                  ~28 MB
  bert_mini_5mb   two such layers, hidden 256, FFN 768: a ~5.2 MB model (the
                  "5-MB model builds in under 2 s" target)

Usage: gen_models.py OUTDIR [NAME...]   (default: all). Writes
OUTDIR/NAME.onnx and OUTDIR/NAME.input_0.npy (float32, uniform in [-1, 1)).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Graph:
    """Collects nodes and initializers; names every node (the importer keeps
    node names as the source of every binding)."""

    def __init__(self, seed):
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, array, prefix="w"):
        n = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def weight(self, shape, fan_in):
        w = self.rng.standard_normal(shape).astype(np.float32) * np.float32(np.sqrt(2.0 / fan_in))
        return self.const(w)

    def node(self, op, inputs, prefix=None, **attrs):
        n = self.name(prefix or op.lower())
        out = n + "_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=n, **attrs))
        return out

    def model(self, name, inputs, outputs):
        g = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="lowerscope-bench")
        onnx.checker.check_model(m)
        return m


# ---------------------------------------------------------------- conv nets

def conv(g, x, cin, cout, k, stride=1, group=1, bias=False):
    w = g.weight((cout, cin // group, k, k), cin // group * k * k)
    ins = [x, w]
    if bias:
        ins.append(g.const(np.zeros(cout, np.float32), "b"))
    p = k // 2
    return g.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                  pads=[p, p, p, p], group=group)


def bn(g, x, c):
    scale = g.const((1 + 0.1 * g.rng.standard_normal(c)).astype(np.float32), "gamma")
    bias = g.const((0.1 * g.rng.standard_normal(c)).astype(np.float32), "beta")
    mean = g.const((0.1 * g.rng.standard_normal(c)).astype(np.float32), "mean")
    var = g.const((1 + 0.1 * g.rng.random(c)).astype(np.float32), "var")
    return g.node("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-5)


def conv_bn(g, x, cin, cout, k, stride=1, group=1, act="relu"):
    y = bn(g, conv(g, x, cin, cout, k, stride, group), cout)
    if act == "relu":
        y = g.node("Relu", [y])
    elif act == "relu6":
        y = g.node("Clip", [y, g.const(np.float32(0), "lo"), g.const(np.float32(6), "hi")])
    return y


def classifier(g, x, cin, classes=1000):
    y = g.node("GlobalAveragePool", [x])
    y = g.node("Flatten", [y], axis=1)
    w = g.weight((classes, cin), cin)
    b = g.const(np.zeros(classes, np.float32), "fc_b")
    return g.node("Gemm", [y, w, b], transB=1)


def resnet18():
    g = Graph(1)
    x = "input"
    y = conv_bn(g, x, 3, 64, 7, stride=2)
    y = g.node("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, cout in enumerate([64, 128, 256, 512]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            h = conv_bn(g, y, cin, cout, 3, stride)
            h = conv_bn(g, h, cout, cout, 3, 1, act=None)
            short = y
            if stride != 1 or cin != cout:
                short = conv_bn(g, y, cin, cout, 1, stride, act=None)
            y = g.node("Relu", [g.node("Add", [h, short])])
            cin = cout
    out = classifier(g, y, 512)
    return g.model("resnet18", [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 3, 224, 224])],
                   [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])])


def deep_convs():
    """Six 512 -> 512 3x3 convolutions (bias, relu) on a 7x7 image: ResNet's
    last stage without the rest, 56.6 MB of weights read once per run, so
    each layer streams its 9.4 MB from memory as in a model."""
    g = Graph(6)
    x = "input"
    y = x
    for _ in range(6):
        y = g.node("Relu", [conv(g, y, 512, 512, 3, bias=True)])
    return g.model("deep_convs", [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 512, 7, 7])],
                   [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 512, 7, 7])])


def mobilenetv2():
    g = Graph(2)
    x = "input"
    y = conv_bn(g, x, 3, 32, 3, stride=2, act="relu6")
    cin = 32
    # (expansion t, channels c, repeats n, first stride s) of the paper
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            h = y
            if t != 1:
                h = conv_bn(g, h, cin, hidden, 1, act="relu6")
            h = conv_bn(g, h, hidden, hidden, 3, stride, group=hidden, act="relu6")
            h = conv_bn(g, h, hidden, c, 1, act=None)
            y = g.node("Add", [y, h]) if stride == 1 and cin == c else h
            cin = c
    y = conv_bn(g, y, cin, 1280, 1, act="relu6")
    out = classifier(g, y, 1280)
    return g.model("mobilenetv2", [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 3, 224, 224])],
                   [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])])


# ------------------------------------------------------------- transformers

def linear(g, x, cin, cout):
    w = g.weight((cin, cout), cin)
    b = g.const((0.02 * g.rng.standard_normal(cout)).astype(np.float32), "b")
    return g.node("Add", [g.node("MatMul", [x, w]), b])


def layer_norm(g, x, c):
    scale = g.const((1 + 0.1 * g.rng.standard_normal(c)).astype(np.float32), "ln_g")
    bias = g.const((0.1 * g.rng.standard_normal(c)).astype(np.float32), "ln_b")
    return g.node("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-12)


def encoder_layer(g, x, hidden, heads, ffn):
    d = hidden // heads
    # (1, seq, hidden) -> (1, seq, heads, d) -> (1, heads, seq, d); 0 copies the
    # batch, -1 infers the symbolic sequence length.
    split = g.const(np.array([0, -1, heads, d], np.int64), "shape")
    merge = g.const(np.array([0, -1, hidden], np.int64), "shape")

    def heads_of(t, perm):
        return g.node("Transpose", [g.node("Reshape", [t, split])], perm=perm)

    q = heads_of(linear(g, x, hidden, hidden), [0, 2, 1, 3])
    k = heads_of(linear(g, x, hidden, hidden), [0, 2, 3, 1])
    v = heads_of(linear(g, x, hidden, hidden), [0, 2, 1, 3])
    s = g.node("Div", [g.node("MatMul", [q, k]), g.const(np.float32(np.sqrt(d)), "sqrt_d")])
    p = g.node("Softmax", [s], axis=-1)
    ctx = g.node("MatMul", [p, v])
    ctx = g.node("Reshape", [g.node("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
    a = layer_norm(g, g.node("Add", [linear(g, ctx, hidden, hidden), x]), hidden)
    h = linear(g, a, hidden, ffn)
    # GELU as exported before opset 20: 0.5 * x * (1 + erf(x / sqrt(2)))
    e = g.node("Erf", [g.node("Div", [h, g.const(np.float32(np.sqrt(2.0)), "sqrt2")])])
    h = g.node("Mul", [g.node("Mul", [h, g.node("Add", [e, g.const(np.float32(1), "one")])]),
                       g.const(np.float32(0.5), "half")])
    o = linear(g, h, ffn, hidden)
    return layer_norm(g, g.node("Add", [o, a]), hidden)


def bert(name, hidden, heads, ffn, layers, seed):
    g = Graph(seed)
    x = "hidden_states"
    y = x
    for _ in range(layers):
        y = encoder_layer(g, y, hidden, heads, ffn)
    return g.model(name, [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, "seq", hidden])],
                   [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, "seq", hidden])])


MODELS = {
    "resnet18": (resnet18, (1, 3, 224, 224)),
    "mobilenetv2": (mobilenetv2, (1, 3, 224, 224)),
    "deep_convs": (deep_convs, (1, 512, 7, 7)),
    "bert_block_256": (lambda: bert("bert_block_256", 256, 4, 1024, 1, 3), (1, 128, 256)),
    "bert_block_768": (lambda: bert("bert_block_768", 768, 12, 3072, 1, 4), (1, 128, 768)),
    "bert_mini_5mb": (lambda: bert("bert_mini_5mb", 256, 4, 768, 2, 5), (1, 128, 256)),
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        if name not in MODELS:
            sys.exit(f"gen_models.py: unknown model '{name}' (known: {', '.join(MODELS)})")
        make, shape = MODELS[name]
        path = os.path.join(out, name + ".onnx")
        onnx.save(make(), path)
        rng = np.random.default_rng(100)
        np.save(os.path.join(out, name + ".input_0.npy"),
                rng.uniform(-1, 1, shape).astype(np.float32))
        print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
