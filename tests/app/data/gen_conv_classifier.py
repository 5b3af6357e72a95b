#!/usr/bin/env python3
"""Writes conv_classifier.onnx, the small ONNX model of the CLI target tests.

X (1,3,8,8) -> Conv_0 (4x3x3x3, bias, pads 1) -> Relu_1 -> Conv_2 (4x4x3x3,
bias, pads 1) -> Relu_3 -> GlobalAveragePool_4 -> Flatten_5 -> Gemm_6
(transB, 4 -> 3) -> Y. Deterministic weights (sines). Needs only protoc and
the onnx.proto of libonnx-dev (no Python onnx package):

    python3 tests/app/data/gen_conv_classifier.py
"""
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
FLOAT = 1


def values(n, scale, seed):
    return [round(math.sin(i * 0.37 + seed) * scale, 6) for i in range(n)]


def initializer(name, dims, vals):
    body = f'    name: "{name}"\n    data_type: {FLOAT}\n'
    body += "".join(f"    dims: {d}\n" for d in dims)
    body += "".join(f"    float_data: {v}\n" for v in vals)
    return "  initializer {\n" + body + "  }\n"


def node(op, name, ins, outs, attrs=""):
    s = f'  node {{\n    op_type: "{op}"\n    name: "{name}"\n'
    s += "".join(f'    input: "{i}"\n' for i in ins)
    s += "".join(f'    output: "{o}"\n' for o in outs)
    return s + attrs + "  }\n"


def ints_attr(name, vals):
    return (f'    attribute {{\n      name: "{name}"\n      type: INTS\n'
            + "".join(f"      ints: {v}\n" for v in vals) + "    }\n")


def int_attr(name, v):
    return f'    attribute {{\n      name: "{name}"\n      type: INT\n      i: {v}\n    }}\n'


def value_info(kind, name, dims):
    s = f'  {kind} {{\n    name: "{name}"\n    type {{\n      tensor_type {{\n'
    s += f"        elem_type: {FLOAT}\n        shape {{\n"
    s += "".join(f"          dim {{ dim_value: {d} }}\n" for d in dims)
    return s + "        }\n      }\n    }\n  }\n"


g = ""
g += node("Conv", "Conv_0", ["X", "W0", "B0"], ["c0"], ints_attr("pads", [1, 1, 1, 1]))
g += node("Relu", "Relu_1", ["c0"], ["r0"])
g += node("Conv", "Conv_2", ["r0", "W1", "B1"], ["c1"], ints_attr("pads", [1, 1, 1, 1]))
g += node("Relu", "Relu_3", ["c1"], ["r1"])
g += node("GlobalAveragePool", "GlobalAveragePool_4", ["r1"], ["g"])
g += node("Flatten", "Flatten_5", ["g"], ["f"])
g += node("Gemm", "Gemm_6", ["f", "W2", "B2"], ["Y"], int_attr("transB", 1))
g += '  name: "conv_classifier"\n'
g += initializer("W0", [4, 3, 3, 3], values(108, 0.3, 1))
g += initializer("B0", [4], values(4, 0.1, 2))
g += initializer("W1", [4, 4, 3, 3], values(144, 0.2, 3))
g += initializer("B1", [4], values(4, 0.1, 4))
g += initializer("W2", [3, 4], values(12, 0.5, 5))
g += initializer("B2", [3], values(3, 0.1, 6))
g += value_info("input", "X", [1, 3, 8, 8])
g += value_info("output", "Y", [1, 3])
text = ('ir_version: 8\nproducer_name: "gen_conv_classifier.py"\n'
        'opset_import {\n  domain: ""\n  version: 13\n}\ngraph {\n' + g + "}\n")

out = os.path.join(HERE, "conv_classifier.onnx")
with open(out, "wb") as f:
    subprocess.run(["protoc", "--encode=onnx.ModelProto", "-I/usr/include", "onnx/onnx.proto"],
                   input=text.encode(), stdout=f, check=True)
print("wrote", out)
