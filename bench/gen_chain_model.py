#!/usr/bin/env python3
"""Writes a synthetic N-operator .uir model (default 500): a chain of
elementwise, broadcast, matmul and reduction-free ops over (n, 64) with a
symbolic batch n. Used to measure pass-history memory and layout speed:
  python3 bench/gen_chain_model.py 500 > /tmp/chain500.uir
  lowerscope-cli build /tmp/chain500.uir --report-memory
"""
import random
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
rnd = random.Random(0)
lines = [
    "@R.function",
    'def main(x: R.Tensor((n, 64), "float32")) -> R.Tensor((n, 64), "float32"):',
    "    with R.dataflow():",
]
prev = "x"
for i in range(count):
    name = f"lv{i}"
    kind = i % 5
    if kind == 0:
        expr = f"R.nn.relu({prev})"
    elif kind == 1:
        vals = ", ".join(f"{rnd.uniform(-1, 1):.4f}" for _ in range(64))
        expr = f'R.add({prev}, R.const([{vals}], "float32"))'
    elif kind == 2:
        expr = f"R.multiply({prev}, {prev})"
    elif kind == 3:
        expr = f"R.tanh({prev})"
    else:
        # A 64x64 weight from one value (keeps the file small); FoldConstant
        # turns the broadcast into a constant matrix.
        w = f"{rnd.uniform(-0.1, 0.1):.4f}"
        expr = f'R.matmul({prev}, R.broadcast_to(R.const([{w}], "float32"), R.shape([64, 64])))'
    lines.append(f'        {name}: R.Tensor((n, 64), "float32") = {expr}')
    prev = name
lines.append(f"        R.output({prev})")
lines.append(f"    return {prev}")
print("\n".join(lines))
