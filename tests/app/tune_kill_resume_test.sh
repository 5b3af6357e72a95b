#!/usr/bin/env bash
# `lowerscope-cli tune` killed with SIGKILL mid-run and resumed: every record
# committed before the kill is still there, the database passes SQLite's
# integrity check (`db list` opens it), and `tune --resume RUN` finishes the
# run with exactly the planned trials.
# Usage: tune_kill_resume_test.sh LOWERSCOPE_CLI MODEL WORK_DIR
set -euo pipefail
cli=$1
model=$2
work=$3
rm -rf "$work" && mkdir -p "$work"
db="$work/t.db"
fail() { echo "FAIL: $*"; exit 1; }

# trials_done of run 1 (0 while the run does not exist yet).
done_trials() {
  "$cli" db runs "$db" --json 2>/dev/null |
    sed -n 's/^ *"trials_done": \([0-9]*\).*/\1/p' | head -1
}

"$cli" tune "$model" --db "$db" --trials 24 --threads 1 --batch 4 --quiet >"$work/first.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  n=$(done_trials || true)
  [ -n "$n" ] && [ "$n" -ge 6 ] && break
  kill -0 "$pid" 2>/dev/null || fail "tune ended before it was killed: $(cat "$work/first.log")"
  sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
before=$(done_trials)
[ "$before" -ge 6 ] || fail "only $before trials committed before the kill"
[ "$before" -lt 24 ] || fail "the run finished before the kill ($before trials)"
"$cli" db runs "$db" | grep -q "running" || fail "the killed run is not left 'running'"
ok_ids() { "$cli" db best "$db" -k 1000 --json | sed -n 's/^    "id": \([0-9]*\),$/\1/p' | sort; }
ok_ids >"$work/ids_before"

"$cli" tune --resume 1 --db "$db" --quiet >"$work/resume.log" 2>&1 ||
  fail "resume failed: $(cat "$work/resume.log")"
grep -q "resuming run 1" "$work/resume.log" || fail "no 'resuming run 1' in: $(cat "$work/resume.log")"
grep -q "run 1 finished: 24 trials recorded" "$work/resume.log" ||
  fail "resumed run did not finish with 24 trials: $(cat "$work/resume.log")"
ok_ids >"$work/ids_after"
[ -s "$work/ids_before" ] || fail "no valid record before the kill"
lost=$(comm -23 "$work/ids_before" "$work/ids_after")
[ -z "$lost" ] || fail "records lost after resume: $lost"
echo "ok: $before trials committed before SIGKILL, 24 after --resume," \
  "$(wc -l <"$work/ids_before") valid records before, $(wc -l <"$work/ids_after") after, none lost"
