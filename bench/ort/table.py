#!/usr/bin/env python3
"""Prints the table of bench/ort/run.sh from its results.jsonl (one JSON
object per model and thread count: {"config", "bytes", "ours": bench_onnx's
output, "ort": ort_run.mjs's output})."""
import json
import sys


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    head = ("model", "MB", "thr", "import ms (CPU)", "build ms (CPU)", "ORT session ms",
            "ours med/min ms", "ORT med/min ms", "ours/ORT min", "CPU ms ours/ORT",
            "GFLOP", "GF/s ours/ORT",
            "max abs err", "max rel err")
    table = [head]
    for r in rows:
        o, p = r["ours"], r["ort"]
        cpu = "-"
        if o["threads"] == 1:  # one thread: CPU time per run is meaningful
            cpu = f'{o["cpu_ms"]:.1f}/{p["cpu_ms"]:.1f} = {o["cpu_ms"] / p["cpu_ms"]:.1f}x'
        # The model's Conv/MatMul/Gemm work at the minimum latency: against
        # the machine's FMA peak (bench_kernels --only peak) it says how much
        # room is left, and whether a target ratio is reachable at all.
        gflop = r.get("gflop")
        rate = "-"
        if gflop:
            rate = f'{gflop / o["min_ms"] * 1e3:.1f}/{gflop / p["min_ms"] * 1e3:.1f}'
        table.append((
            r["config"], f'{r["bytes"] / 1e6:.1f}', str(o["threads"]),
            f'{o["import_ms"]:.0f} ({o["import_cpu_ms"]:.0f})',
            f'{o["build_ms"]:.0f} ({o["build_cpu_ms"]:.0f})', f'{p["session_ms"]:.0f}',
            f'{o["median_ms"]:.2f}/{o["min_ms"]:.2f}', f'{p["median_ms"]:.2f}/{p["min_ms"]:.2f}',
            f'{o["min_ms"] / p["min_ms"]:.2f}x', cpu,
            f'{gflop:.3f}' if gflop else "-", rate,
            f'{o["max_abs_err"]:.1e}', f'{o["max_rel_err"]:.1e}'))
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for k, row in enumerate(table):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    main()
