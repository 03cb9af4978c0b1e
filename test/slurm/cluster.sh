#!/usr/bin/env bash
# A one-host Slurm cluster for the tests (issue 26; ARCHITECTURE.md fact 10): munged,
# slurmctld and slurmd of Debian's packages, configured for a machine without systemd or
# cgroups, with every state, spool, pid, log and socket path under one directory.
#   cluster.sh start DIR   starts it; prints the environment a client needs (SLURM_CONF)
#   cluster.sh stop DIR    cancels every job, waits for an empty queue, stops each daemon by
#                          its pid file; safe to run twice or after a failed start
# Exit status 77 from start: the packages are missing (the caller skips).
set -uo pipefail
command=${1:?usage: cluster.sh start|stop DIR}
dir=${2:?usage: cluster.sh start|stop DIR}

stop_daemon() { # NAME: SIGTERM by pid file, then SIGKILL after 10 s
  local pidfile=$dir/$1.pid pid
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || { rm -f "$pidfile"; return 0; }
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  rm -f "$pidfile"
}

if [ "$command" = stop ]; then
  [ -d "$dir" ] || exit 0
  export SLURM_CONF=$dir/slurm.conf
  if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null
    for _ in $(seq 100); do # jobs still running would leave slurmstepd behind
      [ -z "$(timeout 5 squeue --noheader 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged
  exit 0
fi

[ "$command" = start ] || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }
for tool in munged mungekey slurmctld slurmd srun sbatch squeue scancel sinfo; do
  if ! command -v "$tool" >/dev/null && [ ! -x "/usr/sbin/$tool" ]; then
    echo "cluster.sh: $tool is not installed (Debian: slurmctld slurmd slurm-client munge)" >&2
    exit 77
  fi
done
export PATH=$PATH:/usr/sbin
"$0" stop "$dir" # what an earlier run in DIR may have left
rm -rf "$dir"
mkdir -p "$dir"/{munge,spool/ctld,spool/d,log} && chmod 755 "$dir" "$dir/munge"
host=$(hostname -s)
user=$(id -un)
# Ports of our own, so that clusters of concurrent test runs do not meet.
base=$((20000 + ($$ % 2000) * 4))

# munge: its own key, socket and pid file; the socket's directory must be mode 755.
mungekey --create --keyfile="$dir/munge/munge.key" --force 2>"$dir/log/mungekey.log" ||
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
  --force || { echo "cluster.sh: munged did not start" >&2; cat "$dir/log/munged.log" >&2; exit 1; }

cat >"$dir/slurm.conf" <<CONF
ClusterName=sycl-thinlto-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MailProg=/bin/true
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# The host's real cores: a step asking for more meets the limit a real node sets. (It said 8
# on a 2-core host, and no test met a node's real limits.)
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -i -f "$SLURM_CONF" || { echo "cluster.sh: slurmctld did not start" >&2; tail -20 "$dir/log/slurmctld.log" >&2; exit 1; }
slurmd -f "$SLURM_CONF" || { echo "cluster.sh: slurmd did not start" >&2; tail -20 "$dir/log/slurmd.log" >&2; exit 1; }
for _ in $(seq 300); do # idle within a second or so (fact 10); give it 30 s
  state=$(timeout 5 sinfo --noheader --format=%t 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 0.1
done
if [ "$state" != idle ]; then
  echo "cluster.sh: the node did not become idle (state: ${state:-none})" >&2
  tail -20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
  exit 1
fi
echo "export SLURM_CONF=$SLURM_CONF"
