#!/usr/bin/python3
"""Writes docs/images/convnet.onnx, the small conv-net the GUI screenshots in
docs/gui.md show: Conv+BatchNorm+Relu, MaxPool, a residual block (two
Conv+Relu and an Add), GlobalAveragePool, Flatten, Gemm and Softmax, on one
3x32x32 image, opset 13, fixed random weights (~30 KB).

Needs Debian's python3-onnx (scripts/install-deps.sh); run with the system
Python:  /usr/bin/python3 docs/images/make_convnet_onnx.py [OUT.onnx]
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/convnet.onnx"
rng = np.random.default_rng(0)


def weight(name, *shape, scale=0.2):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


inits = [
    weight("conv1.w", 16, 3, 3, 3), weight("conv1.b", 16, scale=0.05),
    numpy_helper.from_array(np.ones(16, np.float32), "bn1.scale"),
    weight("bn1.bias", 16, scale=0.05), weight("bn1.mean", 16, scale=0.05),
    numpy_helper.from_array(np.full(16, 0.9, np.float32), "bn1.var"),
    weight("res.conv_a.w", 16, 16, 3, 3, scale=0.08), weight("res.conv_a.b", 16, scale=0.05),
    weight("res.conv_b.w", 16, 16, 3, 3, scale=0.08), weight("res.conv_b.b", 16, scale=0.05),
    weight("fc.w", 10, 16), weight("fc.b", 10, scale=0.05),
]
nodes = [
    helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["c1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"],
                     ["b1"], name="bn1"),
    helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
    helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Conv", ["p1", "res.conv_a.w", "res.conv_a.b"], ["ra"], name="res.conv_a",
                     pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["ra"], ["rar"], name="res.relu_a"),
    helper.make_node("Conv", ["rar", "res.conv_b.w", "res.conv_b.b"], ["rb"], name="res.conv_b",
                     pads=[1, 1, 1, 1]),
    helper.make_node("Add", ["p1", "rb"], ["sum"], name="res.add"),
    helper.make_node("Relu", ["sum"], ["r2"], name="res.relu"),
    helper.make_node("GlobalAveragePool", ["r2"], ["gap"], name="gap"),
    helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
    helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
]
graph = helper.make_graph(
    nodes, "convnet",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="lowerscope docs/images/make_convnet_onnx.py")
onnx.checker.check_model(model)
onnx.save(model, out)
print(f"wrote {out}")
