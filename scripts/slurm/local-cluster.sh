#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for testing puzzlegrade's
# job arrays: Debian's slurm-wlm and munge, slurmctld and slurmd on
# localhost, one partition `local` with every core. As root.
#   scripts/slurm/local-cluster.sh [start|stop|status]
# `start` installs the packages when missing (apt-get), writes
# /etc/slurm/slurm.conf (keeping an earlier one as slurm.conf.bak) and
# starts the daemons; it exits 0 once `sinfo` shows the node idle.
set -euo pipefail
action=${1:-start}
host=$(hostname -s)
conf=/etc/slurm/slurm.conf

stop() {
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
  pkill -x munged 2>/dev/null || true
}

case $action in
stop)
  stop
  exit 0
  ;;
status)
  sinfo -h -o '%P %a %D %t' 2>/dev/null || { echo "not running"; exit 1; }
  exit 0
  ;;
start) ;;
*)
  echo "usage: $0 [start|stop|status]" >&2
  exit 2
  ;;
esac

if [ "$(id -u)" -ne 0 ]; then
  echo "local-cluster.sh: run as root (it installs packages and starts daemons)" >&2
  exit 2
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge
fi

cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
mkdir -p /etc/slurm /var/lib/slurm/slurmd /var/lib/slurm/slurmctld /var/log/slurm /run/munge
if [ -f "$conf" ] && ! grep -q '^# puzzlegrade local cluster' "$conf"; then
  cp "$conf" "$conf.bak"
fi
cat > "$conf" <<CONF
# puzzlegrade local cluster (scripts/slurm/local-cluster.sh)
ClusterName=puzzlegrade
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/lib/slurm/slurmd
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
# Debian's packages read /etc/slurm; some builds look in /etc/slurm-llnl.
[ -d /etc/slurm-llnl ] && cp "$conf" /etc/slurm-llnl/slurm.conf

stop
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 0700 /etc/munge
chmod 0400 /etc/munge/munge.key
runuser -u munge -- munged --force
slurmctld
slurmd

for _ in $(seq 60); do
  state=$(sinfo -h -n "$host" -o '%t' 2>/dev/null || true)
  case $state in
  idle*)
    echo "local cluster up: $host, $cpus CPUs, partition local"
    exit 0
    ;;
  down* | drain*)
    scontrol update nodename="$host" state=resume 2>/dev/null || true
    ;;
  esac
  sleep 1
done
echo "local-cluster.sh: the node did not come up; see /var/log/slurm/" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
