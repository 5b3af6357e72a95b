#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the tuner's Slurm runner
# and its tests: munged, slurmctld and slurmd started as plain daemons (no
# systemd, no system paths touched), all state, logs, sockets and the
# generated slurm.conf under one directory. Needs root (slurmd runs jobs as
# their submitter) and Debian's slurm-wlm and munge (scripts/install-deps.sh).
#
#   scripts/slurm-cluster.sh start [DIR]    start (no-op when already up), wait
#                                           until the node is idle
#   scripts/slurm-cluster.sh stop [DIR]     cancel its jobs, stop its daemons
#   scripts/slurm-cluster.sh status [DIR]   exit 0 when up and the node answers
#   scripts/slurm-cluster.sh env [DIR]      print `export SLURM_CONF=...`
#
# DIR defaults to $SLURM_CLUSTER_DIR, else build/slurm-cluster of the
# checkout. Clients (sbatch, squeue, lowerscope-cli tune --runner slurm) find
# this cluster through SLURM_CONF=DIR/slurm.conf; its munge socket is named in
# that file (AuthInfo), so the system's munge is neither needed nor used.
#
# The node is this machine as `slurmd -C` sees it (real CPU and memory
# counts). select/cons_tres with CR_Core hands out whole cores, so two jobs
# never share one; proctrack/linuxproc tracks job processes without cgroups;
# task/affinity binds each job to its cores when slurmd accepts it, else
# task/none (recorded in DIR/task-plugin). Two partitions cover the node:
# `main` (the default) and `boards` (for tests of per-sub-target partitions).
# The scheduler starts batch jobs as soon as it can (batch_sched_delay=0:
# Slurm's default delays them up to 3 s). Ports are derived from DIR, in
# 10000-29999 below the ephemeral range ($SLURM_CLUSTER_PORT for slurmctld
# overrides; slurmd takes the next), so two checkouts' clusters do not
# collide.
set -euo pipefail
cd "$(dirname "$0")/.."

cmd=${1:-}
dir=${2:-${SLURM_CLUSTER_DIR:-$PWD/build/slurm-cluster}}
case "$cmd" in
  start | stop | status | env) ;;
  *) echo "usage: scripts/slurm-cluster.sh start|stop|status|env [DIR]" >&2; exit 2 ;;
esac
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
export SLURM_CONF=$conf

fail() { echo "slurm-cluster: $*" >&2; exit 1; }
log_tail() { for f in "$@"; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done >&2; }

# A daemon is ours when its pid file names a live process.
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

node_state() { sinfo -h -N -o '%T' 2>/dev/null | head -1; }

is_up() {
  alive "$dir/munge/munged.pid" && alive "$dir/slurmctld.pid" && alive "$dir/slurmd.pid" &&
    [ "$(node_state)" != "" ]
}

stop_pid() { # pid file: TERM, wait up to 10 s, then KILL
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

do_stop() {
  if [ -f "$conf" ] && alive "$dir/slurmctld.pid"; then
    # Cancel this cluster's jobs first, so their steps end with slurmd.
    jobs=$(squeue -h -o '%A' 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for _ in $(seq 1 50); do [ -z "$(squeue -h -o '%A' 2>/dev/null)" ] && break; sleep 0.2; done
    fi
  fi
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
}

if [ "$cmd" = env ]; then
  echo "export SLURM_CONF=$conf"
  exit 0
fi
if [ "$cmd" = status ]; then
  if is_up; then
    echo "slurm-cluster: up ($dir), node $(sinfo -h -N -o '%N %T %c CPUs' | head -1)"
    exit 0
  fi
  echo "slurm-cluster: not running ($dir)"
  exit 1
fi
if [ "$cmd" = stop ]; then
  do_stop
  echo "slurm-cluster: stopped ($dir)"
  exit 0
fi

# ---- start
[ "$(id -u)" -eq 0 ] || fail "must run as root (slurmd starts jobs as their submitting user)"
for tool in munged slurmctld slurmd sinfo sbatch squeue scancel; do
  command -v "$tool" >/dev/null 2>&1 || fail "'$tool' not found: run scripts/install-deps.sh (slurm-wlm, munge)"
done
if is_up && [[ "$(node_state)" =~ ^(idle|mixed|allocated)$ ]]; then
  echo "slurm-cluster: already up ($dir)"
  exit 0
fi
do_stop # whatever half of it is left from before

if [ -n "${SLURM_CLUSTER_PORT:-}" ]; then
  port=$SLURM_CLUSTER_PORT
else
  port=$((10000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 10000 * 2))
fi

mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool"
chmod 0700 "$dir/munge"
# munge: its own key, socket, pid, log and seed files. A unix socket path
# must fit 108 bytes; a deep checkout puts the socket under /tmp instead.
sock=$dir/munge/munge.socket
if [ ${#sock} -gt 100 ]; then
  sock=/tmp/lowerscope-munge-$(printf '%s' "$dir" | cksum | cut -d' ' -f1).socket
fi
if [ ! -s "$dir/munge/munge.key" ]; then
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
fi
chmod 0400 "$dir/munge/munge.key"
munged --force --socket="$sock" --key-file="$dir/munge/munge.key" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed" ||
  { log_tail "$dir/munge/munged.log"; fail "munged did not start"; }

# The node line as slurmd sees this machine, minus its uptime.
node=$(slurmd -C | head -1 | sed 's/ UpTime=.*//')
[ -n "$node" ] || fail "slurmd -C printed no node line"
host=$(sed 's/^NodeName=\([^ ]*\).*/\1/' <<<"$node")

write_conf() { # $1: task plugin
  cat >"$conf" <<EOF
# Generated by scripts/slurm-cluster.sh for a single-node test cluster.
ClusterName=lowerscope
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=$1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=600
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=boards Nodes=$host MaxTime=INFINITE State=UP
EOF
}

start_daemons() {
  slurmctld -c -f "$conf" || return 1
  slurmd -f "$conf" || return 1
  for _ in $(seq 1 300); do # up to 30 s for the node to register
    case "$(node_state)" in
      idle) return 0 ;;
      down* | drain* | fail*) scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true ;;
    esac
    # slurmd writes its pid file once it has daemonized: not there yet is
    # not dead.
    [ -f "$dir/slurmd.pid" ] && ! alive "$dir/slurmd.pid" && return 1
    sleep 0.1
  done
  return 1
}

plugin=task/affinity
write_conf "$plugin"
if ! start_daemons; then
  echo "slurm-cluster: the node did not come up with task/affinity; trying task/none" >&2
  log_tail "$dir/slurmd.log"
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  plugin=task/none
  write_conf "$plugin"
  start_daemons || {
    log_tail "$dir/slurmctld.log" "$dir/slurmd.log"
    do_stop
    fail "the node did not become idle (logs above, in $dir)"
  }
fi
echo "$plugin" >"$dir/task-plugin"
echo "slurm-cluster: up ($dir): node $(sinfo -h -N -o '%N %T %c CPUs' | head -1), $plugin," \
  "ports $port-$((port + 1)); clients: export SLURM_CONF=$conf"
