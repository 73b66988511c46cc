#!/bin/sh
# The Dask engine's scale run: the 1M-node / 20M-edge generated graph on 2 workers under a per-worker budget of
# 6 GB, against the CPU engine on the same machine under --max-memory 16G (same run, clusters compared), with the
# per-iteration communication volume and each worker's memory.  It needs about 12 GB of memory; on 2 cores the CPU
# engine takes 30-60 minutes and the Dask run's iteration 2 alone about 2 hours (benchmarks/RESULTS.md).
#
#     sh benchmarks/dask_scale.sh [WORKDIR]        # default WORKDIR: benchmarks/work
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$here/work}
mkdir -p "$work"
graph=$work/gen-1m.abc
[ -s "$graph" ] || nice python "$here/generate_graphs.py" --nodes 1000000 --edges 20000000 --seed 1 -o "$graph"
available=$(free -g | awk '/^Mem:/ {print $7}')
if [ "$available" -lt 14 ]; then
    echo "only $available GB of memory available; the run needs about 12 GB (14 to be safe)" >&2
    exit 1
fi
cd "$here/.."
exec nice python benchmarks/dask_bench.py "$graph" "$here/dask_scale_results.md" --skip mcl,more \
    --max-memory 6G --cpu-max-memory 16G --sample 2
