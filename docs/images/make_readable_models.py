#!/usr/bin/env python3
"""Writes the two small models the graph-readability screenshots in
docs/gui.md show, named the way PyTorch's exporter names nodes (scopes such
as "/features.1/conv/conv.0/Conv"), opset 13, fixed random weights:

  mobile_block.onnx  a MobileNetV2 stem and two inverted-residual blocks
                     (1x1 expand + BatchNorm + ReLU6, 3x3 depthwise + BN +
                     ReLU6, 1x1 project + BN, residual Add)
  resnet_cnn.onnx    a ResNet-style CNN: stem conv + BN + ReLU + MaxPool, two
                     basic blocks (conv-BN-ReLU-conv-BN + identity Add + ReLU),
                     global pool, Flatten, Gemm, Softmax

Needs Debian's python3-onnx; run with the system Python:
  /usr/bin/python3 docs/images/make_readable_models.py [DIR]
"""
import os
import sys

import random

import onnx
from onnx import TensorProto, helper

out_dir = sys.argv[1] if len(sys.argv) > 1 else "docs/images"
rng = random.Random(0)


def tensor(name, shape, values):
    return helper.make_tensor(name, TensorProto.FLOAT, list(shape), values)


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def weight(self, name, *shape, scale=0.1):
        count = 1
        for d in shape:
            count *= d
        self.inits.append(tensor(name, shape, [rng.gauss(0, scale) for _ in range(count)]))
        return name

    def node(self, op, inputs, scope, **attrs):
        out = f"{scope}/{op}_output_0"
        self.nodes.append(helper.make_node(op, inputs, [out], name=f"{scope}/{op}", **attrs))
        return out

    def conv_bn(self, x, scope, cin, cout, k, stride=1, group=1, act="relu6"):
        w = self.weight(f"{scope}.conv.weight", cout, cin // group, k, k)
        y = self.node("Conv", [x, w], f"{scope}/conv", pads=[k // 2] * 4, strides=[stride] * 2,
                      group=group)
        bn = [self.weight(f"{scope}.bn.{p}", cout) for p in ("weight", "bias", "running_mean")]
        var = tensor(f"{scope}.bn.running_var", [cout], [0.9] * cout)
        self.inits.append(var)
        y = self.node("BatchNormalization", [y] + bn + [var.name], f"{scope}/bn")
        if act == "relu6":
            lo = tensor(f"{scope}.clip.min", [], [0.0])
            hi = tensor(f"{scope}.clip.max", [], [6.0])
            self.inits += [lo, hi]
            y = self.node("Clip", [y, lo.name, hi.name], f"{scope}/act")
        elif act == "relu":
            y = self.node("Relu", [y], f"{scope}/act")
        return y

    def save(self, name, x, y, in_shape, out_shape):
        graph = helper.make_graph(
            self.nodes, name, [helper.make_tensor_value_info(x, TensorProto.FLOAT, in_shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, out_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name="lowerscope docs/images/make_readable_models.py")
        onnx.checker.check_model(model)
        path = os.path.join(out_dir, name + ".onnx")
        onnx.save(model, path)
        print(f"wrote {path} ({len(self.nodes)} ONNX nodes)")


def mobile_block():
    g = Graph()
    x = g.conv_bn("input", "/features.0", 3, 16, 3, stride=2)
    for i, (cin, expand) in enumerate([(16, 4), (16, 6)], start=1):
        s = f"/features.{i}/conv"
        y = g.conv_bn(x, f"{s}/conv.0", cin, cin * expand, 1)
        y = g.conv_bn(y, f"{s}/conv.1", cin * expand, cin * expand, 3, group=cin * expand)
        y = g.conv_bn(y, f"{s}/conv.2", cin * expand, cin, 1, act=None)
        x = g.node("Add", [x, y], f"/features.{i}")
    g.save("mobile_block", "input", x, [1, 3, 64, 64], [1, 16, 32, 32])


def resnet_cnn():
    g = Graph()
    x = g.conv_bn("input", "/stem", 3, 16, 3, act="relu")
    x = g.node("MaxPool", [x], "/stem/pool", kernel_shape=[2, 2], strides=[2, 2])
    for i in range(2):
        s = f"/layer1/layer1.{i}"
        y = g.conv_bn(x, f"{s}/conv1", 16, 16, 3, act="relu")
        y = g.conv_bn(y, f"{s}/conv2", 16, 16, 3, act=None)
        y = g.node("Add", [x, y], s)
        x = g.node("Relu", [y], f"{s}/relu")
    x = g.node("GlobalAveragePool", [x], "/head/avgpool")
    x = g.node("Flatten", [x], "/head/flatten")
    w, b = g.weight("fc.weight", 10, 16), g.weight("fc.bias", 10)
    x = g.node("Gemm", [x, w, b], "/head/fc", transB=1)
    x = g.node("Softmax", [x], "/head/softmax", axis=-1)
    g.save("resnet_cnn", "input", x, [1, 3, 32, 32], [1, 10])


mobile_block()
resnet_cnn()
