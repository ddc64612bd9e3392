#!/usr/bin/env bash
# The Slurm test, for real on this machine: a single-node cluster
# (local-cluster.sh), a 4-shard job array grading the bundled suites and
# the merge job after it; the merged scorecard must equal an unsharded
# run's (verdicts and moves per case; timings aside). As root.
#   scripts/slurm/test-local.sh            (exit 0 pass, 1 fail, 2 setup)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
if ! scripts/slurm/local-cluster.sh start; then
  echo "test-local.sh: cannot start the local Slurm cluster" >&2
  exit 2
fi
cargo build -q --release -p harness
harness=$root/target/release/harness
work=$(mktemp -d /tmp/puzzlegrade-slurm-XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cd "$work"

"$harness" grade --suite "$root/suites" --scorecard one.csv --format json >/dev/null
"$harness" slurm --suite "$root/suites" --shards 4 --jobs 1 --partition local \
  --out "$work/slurm" --submit | tee submit.log
merge=$(awk '/^array/ { print $4 }' submit.log)
array=$(awk '/^array/ { print $2 }' submit.log)
echo "waiting for array $array and merge $merge"
for _ in $(seq 600); do
  if [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ]; then break; fi
  sleep 1
done
if [ -n "$(squeue -h -j "$array,$merge" 2>/dev/null)" ]; then
  echo "test-local.sh: the jobs did not finish in 10 minutes" >&2
  squeue >&2
  exit 1
fi
cat slurm/logs/merge.out
if [ ! -s slurm/scorecard.csv ]; then
  echo "test-local.sh: no merged scorecard" >&2
  tail -n 20 slurm/logs/*.out >&2 || true
  exit 1
fi
# Verdicts, moves and the set of cases: the same (timings aside).
"$harness" compare one.csv slurm/scorecard.csv --min-delta 24h
rows() { tail -n +2 "$1" | wc -l; }
if [ "$(rows one.csv)" != "$(rows slurm/scorecard.csv)" ]; then
  echo "test-local.sh: $(rows one.csv) rows unsharded, $(rows slurm/scorecard.csv) merged" >&2
  exit 1
fi
for k in 1 2 3 4; do
  echo "shard $k: $(rows "slurm/shards/shard-$k.csv") rows"
done
echo "test-local.sh: the 4-shard Slurm run equals the unsharded run ($(rows one.csv) cases)"
