#!/usr/bin/env bash
# `lowerscope-cli tune` steered by signals, as the workbench does: SIGUSR1
# pauses it between two candidates (the record count stays put while
# paused), SIGUSR2 continues, SIGTERM finishes the batch and marks the run
# cancelled with exit code 0, and `tune --resume` then continues the same run.
# Usage: tune_signals_test.sh LOWERSCOPE_CLI MODEL WORK_DIR
set -euo pipefail
cli=$1
model=$2
work=$3
rm -rf "$work" && mkdir -p "$work"
db="$work/t.db"
log="$work/tune.log"
fail() { echo "FAIL: $*"; echo "--- log:"; cat "$log" 2>/dev/null || true; exit 1; }

field() { # field NAME: the value of "NAME": N of run 1
  "$cli" db runs "$db" --json 2>/dev/null | sed -n "s/^ *\"$1\": \"\{0,1\}\([a-z0-9]*\).*/\1/p" | head -1
}
wait_for() { # wait_for TEXT: until the log has TEXT (60 s)
  for _ in $(seq 1 600); do
    grep -q "$1" "$log" && return 0
    kill -0 "$pid" 2>/dev/null || fail "tune ended before '$1'"
    sleep 0.1
  done
  fail "no '$1' within 60 s"
}

"$cli" tune "$model" --db "$db" --trials 400 --threads 1 --batch 2 --timeout 20 --quiet >"$log" 2>&1 &
pid=$!
wait_for "tuning run 1 on"
kill -USR1 "$pid"
wait_for "tune: paused run 1"
before=$(field trials_done)
sleep 2
after=$(field trials_done)
[ "$before" = "$after" ] || fail "records were added while paused ($before -> $after)"
kill -USR2 "$pid"
wait_for "tune: continued run 1"
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
[ "$code" = 0 ] || fail "tune exited with $code after SIGTERM"
grep -q "tune: cancelling run 1 after this batch" "$log" || fail "no cancelling line"
grep -q "^run 1 cancelled: " "$log" || fail "no 'run 1 cancelled' summary"
[ "$(field status)" = cancelled ] || fail "run 1 is $(field status), not cancelled"
stopped=$(field trials_done)
[ "$stopped" -lt 400 ] || fail "the run was not stopped early"

"$cli" tune --resume 1 --db "$db" --quiet >"$log" 2>&1 &
pid=$!
wait_for "resuming run 1 on"
for _ in $(seq 1 600); do
  [ "$(field trials_done)" -gt "$stopped" ] && break
  sleep 0.1
done
kill -TERM "$pid"
wait "$pid" || fail "resumed tune exited with $? after SIGTERM"
[ "$(field status)" = cancelled ] || fail "resumed run 1 is $(field status)"
[ "$(field trials_done)" -gt "$stopped" ] || fail "the resumed run measured nothing"
echo "ok: paused at $before, cancelled at $stopped, resumed to $(field trials_done)"
