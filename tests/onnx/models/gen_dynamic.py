#!/usr/bin/python3
"""Dynamic-shape test models: the shape subgraphs real exporters emit.

Writes, next to this script, one folder per model:
    NAME/model.onnx            every batch/spatial dim is a dim_param
    NAME/size_K/input_I.npy    inputs at 2-3 different sizes
    NAME/size_K/output_J.npy   reference outputs (ONNX Runtime, see below)

Models (weights are seeded random numbers):
  classifier_flatten  Conv/Relu/MaxPool, then the PyTorch `x.view(x.size(0), -1)`
                      flatten: Shape -> Gather(0) -> Unsqueeze -> Concat(-1) ->
                      Reshape, MatMul, Softmax.  N dynamic.
  detector_fpn        a two-level FPN: strided convs, the coarse map Resized to
                      the size of the skip connection read from Shape (sizes =
                      Concat(Slice(Shape(c2), 0, 2), Slice(Shape(c2), 2, 4)))
                      and once more to Shape(c1) (linear); a scales=2 Resize of
                      the coarse map as a second output.  N, H, W dynamic.
  recognizer_seq      a CRNN-style head: Shape -> Gather -> Mul/Div -> Concat ->
                      Reshape by computed dims, ReduceMax, Transpose, MatMul;
                      Range over the computed length, ConstantOfShape, Expand to
                      Shape(y), Tile with computed repeats, Size.  N, W dynamic.
  recurrent_if        an LSTM over a (T, N, 4) sequence, then an If on the input
                      scalar `use_last` (bool): the last hidden state projected
                      to 3 features, or the mean of every step's output
                      projected to 4 features, so the branches' outputs differ
                      in shape ((N, 3) vs (N, 4)).  T and N dynamic.

Reference outputs: run with --ort NODE_SCRIPT (bench/ort/ort_run.mjs of a
checkout whose bench/ort has `npm install`ed onnxruntime-node): each input is
run through ONNX Runtime and its outputs written as output_J.npy. Without
--ort only the models and inputs are (re)written.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(15)


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def weights(name, shape, scale=0.3):
    return init(name, (rng.standard_normal(shape) * scale).astype(np.float32))


def i64(name, values):
    return init(name, np.asarray(values, dtype=np.int64))


def model(name, nodes, inputs, outputs, inits, opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="lowerscope tests/onnx/models/gen_dynamic.py")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def tensor(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def classifier_flatten():
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        n("Shape", ["p1"], ["s"]),
        n("Gather", ["s", "zero"], ["batch"], axis=0),
        n("Unsqueeze", ["batch", "axes0"], ["batch1"]),
        n("Concat", ["batch1", "minus1"], ["flat_shape"], axis=0),
        n("Reshape", ["p1", "flat_shape"], ["flat"]),
        n("MatMul", ["flat", "wfc"], ["fc"]),
        n("Add", ["fc", "bfc"], ["logits"]),
        n("Softmax", ["logits"], ["probs"], axis=-1),
    ]
    inits = [weights("w1", (4, 3, 3, 3)), weights("b1", (4,)), weights("wfc", (64, 5)),
             weights("bfc", (5,)), i64("zero", 0), i64("axes0", [0]), i64("minus1", [-1])]
    m = model("classifier_flatten", nodes, [tensor("x", ["N", 3, 8, 8])],
              [tensor("probs", ["N", 5])], inits)
    sizes = [(1, 3, 8, 8), (2, 3, 8, 8), (5, 3, 8, 8)]
    return m, sizes


def detector_fpn():
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1r"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n("Relu", ["c1r"], ["c1"]),
        n("Conv", ["c1", "w2", "b2"], ["c2r"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
          strides=[2, 2]),
        n("Relu", ["c2r"], ["c2"]),
        n("Conv", ["c2", "w3", "b3"], ["c3r"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
          strides=[2, 2]),
        n("Relu", ["c3r"], ["c3"]),
        # top-down: c3 resized to c2's size read at run time
        n("Shape", ["c2"], ["s2"]),
        n("Slice", ["s2", "st0", "st2"], ["nc"]),
        n("Slice", ["s2", "st2", "st4"], ["hw"]),
        n("Concat", ["nc", "hw"], ["size2"], axis=0),
        n("Resize", ["c3", "", "", "size2"], ["up3"], mode="nearest",
          coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        n("Add", ["c2", "up3"], ["p2"]),
        # and p2 resized (linear) to c1's full shape
        n("Shape", ["c1"], ["s1"]),
        n("Resize", ["p2", "", "", "s1"], ["up2"], mode="linear",
          coordinate_transformation_mode="half_pixel"),
        n("Add", ["c1", "up2"], ["p1"]),
        n("Conv", ["p1", "wh", "bh"], ["heat"], kernel_shape=[1, 1]),
        # a scales-based upsampling of the coarse map (symbolic input dims)
        n("Resize", ["c3", "", "scales2"], ["c3x2"], mode="nearest"),
    ]
    inits = [weights("w1", (4, 3, 3, 3)), weights("b1", (4,)), weights("w2", (4, 4, 3, 3)),
             weights("b2", (4,)), weights("w3", (4, 4, 3, 3)), weights("b3", (4,)),
             weights("wh", (2, 4, 1, 1)), weights("bh", (2,)),
             i64("st0", [0]), i64("st2", [2]), i64("st4", [4]),
             init("scales2", np.array([1, 1, 2, 2], dtype=np.float32))]
    m = model("detector_fpn", nodes, [tensor("x", ["N", 3, "H", "W"])],
              [tensor("heat", ["N", 2, "H", "W"]), tensor("c3x2", ["N", 4, None, None])], inits)
    sizes = [(1, 3, 16, 16), (2, 3, 20, 28), (1, 3, 33, 17)]
    return m, sizes


def recognizer_seq():
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["f0"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n("Relu", ["f0"], ["f"]),                          # (n, 8, 4, w)
        n("Shape", ["f"], ["s"]),
        n("Gather", ["s", "i0"], ["dn"], axis=0),
        n("Gather", ["s", "i1"], ["dc"], axis=0),
        n("Gather", ["s", "i2"], ["dh"], axis=0),
        n("Gather", ["s", "i3"], ["dw"], axis=0),
        n("Mul", ["dc", "dh"], ["dch"]),
        n("Div", ["dw", "two"], ["dw2"]),
        n("Unsqueeze", ["dn", "axes0"], ["un"]),
        n("Unsqueeze", ["dch", "axes0"], ["uch"]),
        n("Unsqueeze", ["dw2", "axes0"], ["uw2"]),
        n("Concat", ["un", "uch", "uw2", "two1"], ["shape4"], axis=0),
        n("Reshape", ["f", "shape4"], ["pairs"]),         # (n, 32, w/2, 2)
        n("ReduceMax", ["pairs"], ["pooled"], axes=[3], keepdims=0),
        n("Transpose", ["pooled"], ["seq"], perm=[0, 2, 1]),  # (n, w/2, 32)
        n("MatMul", ["seq", "wfc"], ["proj"]),             # (n, w/2, 6)
        # position ids 0..w/2-1 as a (w/2, 1) column
        n("Range", ["zero", "dw2", "one"], ["pos"]),
        n("Cast", ["pos"], ["posf"], to=TensorProto.FLOAT),
        n("Unsqueeze", ["posf", "axes1"], ["poscol"]),
        n("Mul", ["poscol", "tenth"], ["posw"]),
        n("Add", ["proj", "posw"], ["a1"]),
        # ConstantOfShape(n, w/2, 6)
        n("Concat", ["un", "uw2", "six"], ["oshape"], axis=0),
        n("ConstantOfShape", ["oshape"], ["half"],
          value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.5])),
        n("Add", ["a1", "half"], ["a2"]),
        # Expand a bias row to Shape(a2)
        n("Shape", ["a2"], ["sa2"]),
        n("Expand", ["brow", "sa2"], ["bexp"]),
        n("Add", ["a2", "bexp"], ["a3"]),
        # Tile a row by computed repeats (n, w/2, 1)
        n("Concat", ["un", "uw2", "one1"], ["reps"], axis=0),
        n("Tile", ["brow2", "reps"], ["btile"]),
        n("Mul", ["a3", "btile"], ["a4"]),
        # scale by 1 / Size(f) * Size(f): Size of a symbolic tensor
        n("Size", ["f"], ["nf"]),
        n("Cast", ["nf"], ["nff"], to=TensorProto.FLOAT),
        n("Div", ["a4", "nff"], ["a5"]),
        n("Mul", ["a5", "nff"], ["y"]),
    ]
    inits = [weights("w1", (8, 4, 3, 3)), weights("b1", (8,)), weights("wfc", (32, 6)),
             weights("brow", (1, 1, 6)), weights("brow2", (1, 1, 6)),
             i64("i0", 0), i64("i1", 1), i64("i2", 2), i64("i3", 3), i64("two", 2),
             i64("zero", 0), i64("one", 1), i64("axes0", [0]), i64("axes1", [1]),
             i64("two1", [2]), i64("six", [6]), i64("one1", [1]),
             init("tenth", np.array(0.1, dtype=np.float32))]
    m = model("recognizer_seq", nodes, [tensor("x", ["N", 4, 4, "W"])],
              [tensor("y", ["N", None, 6])], inits)
    sizes = [(1, 4, 4, 8), (2, 4, 4, 12), (3, 4, 4, 20)]
    return m, sizes


def recurrent_if():
    n = helper.make_node
    hidden = 5
    nodes = [
        n("LSTM", ["x", "W", "R", "B"], ["Y", "Y_h"], hidden_size=hidden),  # Y (T, 1, N, 5)
        n("If", ["use_last"], ["feat"],
          then_branch=helper.make_graph(
              [n("Squeeze", ["Y_h", "axes0"], ["h_last"]),          # (N, 5)
               n("MatMul", ["h_last", "w_last"], ["last_proj"])],     # (N, 3)
              "then_last", [], [tensor("last_proj", ["N", 3])]),
          else_branch=helper.make_graph(
              [n("ReduceMean", ["Y"], ["y_mean"], axes=[0, 1], keepdims=0),  # (N, 5)
               n("MatMul", ["y_mean", "w_mean"], ["mean_proj"]),              # (N, 4)
               n("Tanh", ["mean_proj"], ["mean_act"])],
              "else_mean", [], [tensor("mean_act", ["N", 4])])),
        n("Mul", ["feat", "two_f"], ["y"]),
    ]
    inits = [weights("W", (1, 4 * hidden, 4)), weights("R", (1, 4 * hidden, hidden)),
             weights("B", (1, 8 * hidden)), weights("w_last", (hidden, 3)),
             weights("w_mean", (hidden, 4)), i64("axes0", [0]),
             init("two_f", np.array(2.0, dtype=np.float32))]
    flag = helper.make_tensor_value_info("use_last", TensorProto.BOOL, [])
    m = model("recurrent_if", nodes, [tensor("x", ["T", "N", 4]), flag],
              [tensor("y", ["N", None])], inits)
    cases = [[rng.standard_normal((6, 1, 4)).astype(np.float32), np.array(True)],
             [rng.standard_normal((3, 3, 4)).astype(np.float32), np.array(False)],
             [rng.standard_normal((9, 2, 4)).astype(np.float32), np.array(True)]]
    return m, cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ort", help="path of bench/ort/ort_run.mjs with onnxruntime-node installed")
    args = ap.parse_args()
    for make in (classifier_flatten, detector_fpn, recognizer_seq, recurrent_if):
        m, sizes = make()
        d = os.path.join(HERE, m.graph.name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        onnx.save(m, path)
        for k, shape in enumerate(sizes):
            sd = os.path.join(d, f"size_{k}")
            os.makedirs(sd, exist_ok=True)
            # a shape draws one random input; a list gives the inputs themselves
            xs = shape if isinstance(shape, list) else [
                rng.standard_normal(shape).astype(np.float32)]
            files = []
            for i, x in enumerate(xs):
                files.append(os.path.join(sd, f"input_{i}.npy"))
                np.save(files[-1], x)
            if args.ort:
                cmd = ["node", args.ort, path]
                for f in files:
                    cmd += ["--input", f]
                subprocess.run(cmd + ["--repeat", "1", "--output-dir", sd], check=True,
                               stdout=subprocess.DEVNULL)
        print(f"{path}: {len(sizes)} sizes", file=sys.stderr)


if __name__ == "__main__":
    main()
