#!/usr/bin/env python3
"""Makes the GridSample cases of tests/onnx/gridsample/ (backend-test folders:
model.onnx, test_data_set_0/input_K.pb and output_0.pb).

Models and random inputs (grid values reaching past [-1, 1], so the padding
modes matter) are written with python3-onnx and numpy; the expected outputs
come from ONNX Runtime (onnxruntime-node through bench/ort/ort_run.mjs). They
cover combinations the backend suite lacks: bicubic with border padding
(whose coordinates ONNX Runtime does not clamp, only its taps), bilinear
reflection with align_corners, nearest reflection.

    python3 tests/onnx/gridsample/make_cases.py [--ort-dir bench/ort]
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def make_case(rng, ort_dir, mode, pad, align):
    name = f'{mode}_{pad}_align{align}'
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, 'test_data_set_0'), exist_ok=True)
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    g = rng.uniform(-1.7, 1.7, (1, 2, 3, 2)).astype(np.float32)
    node = helper.make_node('GridSample', ['X', 'Grid'], ['Y'], mode=mode, padding_mode=pad,
                            align_corners=align)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info('X', TensorProto.FLOAT, x.shape),
         helper.make_tensor_value_info('Grid', TensorProto.FLOAT, g.shape)],
        [helper.make_tensor_value_info('Y', TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 16)])
    model.ir_version = 8
    onnx.save(model, os.path.join(d, 'model.onnx'))
    with tempfile.TemporaryDirectory() as tmp:
        args = ['node', os.path.join(ort_dir, 'ort_run.mjs'), os.path.join(d, 'model.onnx'),
                '--repeat', '1', '--output-dir', tmp]
        for k, (n, v) in enumerate([('X', x), ('Grid', g)]):
            with open(os.path.join(d, 'test_data_set_0', f'input_{k}.pb'), 'wb') as f:
                f.write(numpy_helper.from_array(v, n).SerializeToString())
            np.save(os.path.join(tmp, f'in_{k}.npy'), v)
            args += ['--input', os.path.join(tmp, f'in_{k}.npy')]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        y = np.load(os.path.join(tmp, 'output_0.npy'))
        with open(os.path.join(d, 'test_data_set_0', 'output_0.pb'), 'wb') as f:
            f.write(numpy_helper.from_array(y, 'Y').SerializeToString())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ort-dir', default=os.path.join(HERE, '..', '..', '..', 'bench', 'ort'))
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    make_case(rng, a.ort_dir, 'bicubic', 'border', 0)
    make_case(rng, a.ort_dir, 'bilinear', 'reflection', 1)
    make_case(rng, a.ort_dir, 'nearest', 'reflection', 0)


if __name__ == '__main__':
    main()
