#!/usr/bin/env bash
# Measurement throughput of `lowerscope-cli tune` with the local runner and
# through Slurm (the single-node cluster of scripts/slurm-cluster.sh on this
# machine), and the per-candidate overhead Slurm adds. Runs the same tuning
# run (same model, seed, trials and batch) with:
#   local    LocalRunner: one candidate at a time in a forked child
#   slurm1   --runner slurm --max-jobs 1: one array task per batch (serial,
#            like local: the difference is Slurm's cost)
#   slurm2   --runner slurm --max-jobs 2: two array tasks per batch, one per
#            core (what a cluster's parallelism buys, here on 2 cores)
# interleaved ROUNDS times, and prints wall seconds and candidates per
# minute of each, and (slurm1 - local) per candidate and per batch.
#
#   bench/run_slurm_throughput.sh
#
# Environment: CLI (default build/dev/app/lowerscope-cli), MODEL (default
# tests/app/data/matmul_relu128.uir), TRIALS (48), BATCH (8), ROUNDS (2),
# OUT (build/bench-slurm). Needs root (the cluster) and a built CLI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${CLI:-$root/build/dev/app/lowerscope-cli}
model=${MODEL:-$root/tests/app/data/matmul_relu128.uir}
trials=${TRIALS:-48}
batch=${BATCH:-8}
rounds=${ROUNDS:-2}
out=${OUT:-$root/build/bench-slurm}
mkdir -p "$out"
"$root/scripts/slurm-cluster.sh" start "$out/cluster" >/dev/null
trap '"$root/scripts/slurm-cluster.sh" stop "$out/cluster" >/dev/null' EXIT
export SLURM_CONF=$out/cluster/slurm.conf
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
  "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(basename "$model"), $trials trials, batch $batch"

declare -A total
run_one() { # mode
  local mode=$1 db="$out/$1.db" args=()
  rm -rf "$db" "$db"-* "$db.spool"
  case "$mode" in
    slurm1) args=(--runner slurm --max-jobs 1) ;;
    slurm2) args=(--runner slurm --max-jobs 2) ;;
  esac
  local s e
  s=$(date +%s.%N)
  "$cli" tune "$model" --db "$db" --trials "$trials" --batch "$batch" --threads 1 --seed 7 \
    --quiet "${args[@]}" >"$out/$mode.log" 2>&1 || { cat "$out/$mode.log"; exit 1; }
  e=$(date +%s.%N)
  local wall
  wall=$(echo "$e - $s" | bc -l)
  total[$mode]=$(echo "${total[$mode]:-0} + $wall" | bc -l)
  printf '%-7s round %d: %6.2f s  %6.1f candidates/min\n' "$mode" "$r" "$wall" \
    "$(echo "$trials * 60 / $wall" | bc -l)"
}
for r in $(seq 1 "$rounds"); do
  for mode in local slurm1 slurm2; do run_one "$mode"; done
done
batches=$(((trials + batch - 1) / batch))
for mode in local slurm1 slurm2; do
  avg=$(echo "${total[$mode]} / $rounds" | bc -l)
  printf '%-7s mean %6.2f s  %6.1f candidates/min\n' "$mode" "$avg" \
    "$(echo "$trials * 60 / $avg" | bc -l)"
done
d=$(echo "(${total[slurm1]} - ${total[local]}) / $rounds" | bc -l)
printf 'Slurm overhead (slurm1 - local): %.2f s per run, %.3f s per candidate, %.2f s per batch of %d\n' \
  "$d" "$(echo "$d / $trials" | bc -l)" "$(echo "$d / $batches" | bc -l)" "$batch"
