#!/usr/bin/env python3
"""Makes the recurrent-operator cases of tests/onnx/recurrent/ (one backend-test
folder each: model.onnx, test_data_set_0/input_K.pb and output_K.pb).

The models and random inputs are written here with python3-onnx and numpy; the
expected outputs come from ONNX Runtime (onnxruntime-node, through
bench/ort/ort_run.mjs), a peer that shares no code with our importer. They
cover what the backend suite's own RNN/GRU/LSTM node cases do not:
bidirectional and reverse directions, run-time sequence_lens of different
lengths, initial states, peepholes, GRU linear_before_reset, LSTM
input_forget, clip and non-default activations with alpha/beta. (ONNX
Runtime refuses layout=1; that layout is covered by the suite's *_batchwise
cases and by tests/engine/frontend/onnx_rnn_test.cpp.)

    python3 tests/onnx/recurrent/make_cases.py [--ort-dir bench/ort]

needs `npm ci` run in the ORT folder first (bench/ort/README).
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
GATES = {'RNN': 1, 'GRU': 3, 'LSTM': 4}


def make_case(rng, root, ort_dir, name, op, attrs, T, B, I, H, ndir, lens=None, init=False,
              peep=False):
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, 'test_data_set_0'), exist_ok=True)
    G = GATES[op]
    ins = [('X', rng.standard_normal((T, B, I)).astype(np.float32)),
           ('W', (rng.standard_normal((ndir, G * H, I)) * 0.5).astype(np.float32)),
           ('R', (rng.standard_normal((ndir, G * H, H)) * 0.5).astype(np.float32)),
           ('B', (rng.standard_normal((ndir, 2 * G * H)) * 0.3).astype(np.float32))]
    names = ['X', 'W', 'R', 'B']
    if lens is not None:
        ins.append(('sequence_lens', np.array(lens, np.int32)))
        names.append('sequence_lens')
    else:
        names.append('')
    states = ['initial_h', 'initial_c'] if op == 'LSTM' else ['initial_h']
    for s in states:
        if init:
            ins.append((s, rng.standard_normal((ndir, B, H)).astype(np.float32)))
        names.append(s if init else '')
    if peep:
        ins.append(('P', (rng.standard_normal((ndir, 3 * H)) * 0.5).astype(np.float32)))
        names.append('P')
    while names[-1] == '':
        names.pop()
    outs = ['Y', 'Y_h', 'Y_c'] if op == 'LSTM' else ['Y', 'Y_h']
    node = helper.make_node(op, names, outs, hidden_size=H, **attrs)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(
            n, TensorProto.INT32 if n == 'sequence_lens' else TensorProto.FLOAT, list(v.shape))
         for n, v in ins],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 14)])
    model.ir_version = 8
    onnx.save(model, os.path.join(d, 'model.onnx'))
    with tempfile.TemporaryDirectory() as tmp:
        args = ['node', os.path.join(ort_dir, 'ort_run.mjs'), os.path.join(d, 'model.onnx'),
                '--repeat', '1', '--output-dir', tmp]
        for k, (n, v) in enumerate(ins):
            with open(os.path.join(d, 'test_data_set_0', f'input_{k}.pb'), 'wb') as f:
                f.write(numpy_helper.from_array(v, n).SerializeToString())
            np.save(os.path.join(tmp, f'in_{k}.npy'), v)
            args += ['--input', os.path.join(tmp, f'in_{k}.npy')]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        for k, o in enumerate(outs):
            y = np.load(os.path.join(tmp, f'output_{k}.npy'))
            with open(os.path.join(d, 'test_data_set_0', f'output_{k}.pb'), 'wb') as f:
                f.write(numpy_helper.from_array(y, o).SerializeToString())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ort-dir', default=os.path.join(HERE, '..', '..', '..', 'bench', 'ort'))
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    c = lambda *args, **kw: make_case(rng, HERE, a.ort_dir, *args, **kw)
    c('lstm_bidirectional_lens_peepholes', 'LSTM', dict(direction='bidirectional'),
      4, 3, 2, 3, 2, lens=[4, 1, 3], init=True, peep=True)
    c('lstm_reverse_initial_state', 'LSTM', dict(direction='reverse'), 3, 2, 3, 4, 1, init=True)
    c('lstm_input_forget_clip', 'LSTM', dict(input_forget=1, clip=0.7), 3, 2, 2, 3, 1)
    c('lstm_activations', 'LSTM',
      dict(activations=['Sigmoid', 'Softsign', 'Elu'], activation_alpha=[0.7]), 2, 2, 2, 2, 1)
    c('gru_bidirectional_linear_before_reset_lens', 'GRU',
      dict(direction='bidirectional', linear_before_reset=1), 4, 3, 2, 3, 2, lens=[2, 4, 1],
      init=True)
    c('gru_reverse_initial_state', 'GRU', dict(direction='reverse'), 3, 2, 3, 2, 1, init=True)
    c('gru_activations', 'GRU',
      dict(activations=['HardSigmoid', 'LeakyRelu'], activation_alpha=[0.3, 0.05],
           activation_beta=[0.4]), 3, 2, 2, 3, 1)
    c('rnn_bidirectional_activations', 'RNN',
      dict(direction='bidirectional', activations=['Relu', 'Affine'], activation_alpha=[0.5],
           activation_beta=[0.1]), 3, 2, 2, 3, 2, init=True)
    c('rnn_reverse_lens', 'RNN', dict(direction='reverse'), 4, 2, 2, 3, 1, lens=[3, 4])
    c('rnn_scaledtanh_clip', 'RNN',
      dict(activations=['ScaledTanh'], activation_alpha=[1.5], activation_beta=[0.5], clip=2.0),
      2, 2, 2, 2, 1)


if __name__ == '__main__':
    main()
