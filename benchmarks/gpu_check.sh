#!/usr/bin/env bash
# The GPU engine's device check: one prepared script for a machine with one GPU
# (an H200 with 16 cores in mind) that reaches no package index.
#
#   bash benchmarks/gpu_check.sh OUTDIR [--debs DIR] [--dry-run] [--quick] [--no-install] [--budget SECONDS]
#
# 1. installs this checkout with pip, without the network (numpy, scipy, networkx,
#    numba, numba-cuda and cupy must be there already);
# 2. unpacks Debian's mcl (benchmarks/debs/, or --debs DIR) into OUTDIR/mcl-root;
# 3. runs the GPU engine's tests on the device (NUMBA_ENABLE_CUDASIM=0), the GPU
#    traversal tests, then the golden-file fidelity tests with the GPU engine among the engines;
# 4. times the GPU engine, mcl -te 16 and the CPU engine at 16 threads end to end
#    (benchmarks/gpu_bench.py) and checks their cluster files are identical.
# Everything it writes goes to OUTDIR: logs, results.md/.json, times.png.
# --dry-run prints what it would run; --quick benchmarks one tiny graph (where no
# GPU is present the tests and the benchmark run in numba's CUDA simulator); --no-install
# runs from the checkout as it is (to try the script on a shared machine).
# The whole takes under 8 minutes by default (--budget, seconds).
set -euo pipefail

usage() { sed -n '2,20p' "$0"; exit 2; }
[ $# -ge 1 ] || usage
OUT=$1; shift
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
DEBS=$HERE/debs
DRY=0; QUICK=0; INSTALL=1; BUDGET=470
while [ $# -gt 0 ]; do
    case $1 in
        --debs) DEBS=$2; shift 2 ;;
        --dry-run) DRY=1; shift ;;
        --quick) QUICK=1; shift ;;
        --no-install) INSTALL=0; shift ;;
        --budget) BUDGET=$2; shift 2 ;;
        *) usage ;;
    esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# the Python that has numpy (and on the device numba-cuda and cupy); PYTHON=... chooses another
PY=${PYTHON:-}
if [ -z "$PY" ]; then
    for candidate in python python3; do
        if "$candidate" -c "import numpy" >/dev/null 2>&1; then PY=$(command -v "$candidate"); break; fi
    done
fi
[ -n "$PY" ] || { echo "no Python with numpy found; set PYTHON=/path/to/python"; exit 2; }
START=$SECONDS
left() { echo $(( BUDGET - (SECONDS - START) )); }
run() {  # run NAME TIMEOUT CMD...: log to OUT/NAME.log, record the status, never stop the script
    local name=$1 limit=$2; shift 2
    echo "== $name (at most ${limit}s): $*"
    if [ "$DRY" = 1 ]; then return 0; fi
    local t0=$SECONDS rc=0
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1 || rc=$?
    echo "$name rc=$rc seconds=$(( SECONDS - t0 ))" | tee -a "$OUT/summary.txt"
    tail -3 "$OUT/$name.log"
}

if command -v nvidia-smi >/dev/null 2>&1; then
    export NUMBA_ENABLE_CUDASIM=0
    [ "$DRY" = 1 ] || nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1 || true
else
    echo "no nvidia-smi: the tests and the benchmark run in numba's CUDA simulator"
    export NUMBA_ENABLE_CUDASIM=1
    QUICK=1
fi
[ "$DRY" = 1 ] || : >"$OUT/summary.txt"
[ "$DRY" = 1 ] || "$PY" - >"$OUT/versions.txt" 2>&1 <<'EOF' || true
import platform, importlib.metadata as md
print("python", platform.python_version())
for p in ("numpy", "scipy", "networkx", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x", "cuda-bindings"):
    try:
        print(p, md.version(p))
    except md.PackageNotFoundError:
        print(p, "-")
EOF

# 1. install without the network, and build the CPU engine's kernels (its C compiler, once a machine)
[ "$INSTALL" = 0 ] || run install 240 "$PY" -m pip install --no-deps --no-build-isolation --no-index "$ROOT"
cd "$ROOT"
run build-cpu-kernels 300 "$PY" -c "from netmcl.engines.cpu._compiled import KERNELS, kernels; K = kernels(); [getattr(K, n) for n in KERNELS]"

# 2. mcl from Debian's packages, unpacked into a folder of our own
MCL=""
if command -v mcl >/dev/null 2>&1; then
    MCL=$(command -v mcl)
elif ls "$DEBS"/mcl_*.deb >/dev/null 2>&1; then
    echo "== unpacking $(ls "$DEBS"/*.deb | xargs -n1 basename | tr '\n' ' ')into $OUT/mcl-root"
    if [ "$DRY" = 0 ]; then
        for deb in "$DEBS"/*.deb; do dpkg -x "$deb" "$OUT/mcl-root"; done
        cat >"$OUT/mcl" <<EOF
#!/bin/sh
LD_LIBRARY_PATH="$OUT/mcl-root/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$OUT/mcl-root/usr/bin/mcl" "\$@"
EOF
        chmod +x "$OUT/mcl"
        "$OUT/mcl" --version | head -1
    fi
    MCL=$OUT/mcl
else
    echo "no mcl and no .deb files in $DEBS: mcl is left out (the CPU and GPU engines are still compared)"
fi
[ -z "$MCL" ] || export PATH="$(dirname "$MCL"):$PATH"

# 3. the tests on the device: the GPU engine's own, then golden fidelity with the GPU among the engines
run test-gpu 200 "$PY" -m pytest -q -p no:cacheprovider tests/test_gpu.py
run test-traversal-gpu 120 "$PY" -m pytest -q -p no:cacheprovider tests/test_traversal.py -k "gpu or delta"
if [ "$QUICK" = 0 ]; then
    run test-fidelity-gpu "$(( $(left) > 300 ? 120 : 60 ))" "$PY" -m pytest -q -p no:cacheprovider -x \
        tests/test_fidelity.py -k "gpu and (cathat or line_graphs or random_graphs or flip_flop or iterands or real_networks)"
fi

# 4. the benchmark, in the time left
if [ "$QUICK" = 1 ]; then
    BENCH=(--quick)
else
    BENCH=()
fi
[ "$DRY" = 1 ] && BENCH+=(--dry-run)
LEFT=$(left)
if [ "$LEFT" -lt 60 ] && [ "$DRY" = 0 ]; then
    echo "benchmark skipped: ${LEFT}s left of the budget" | tee -a "$OUT/summary.txt"
else
    echo "== benchmark (${LEFT}s left)"
    "$PY" "$HERE/gpu_bench.py" "$OUT/bench" ${MCL:+--mcl "$MCL"} --threads 16 --timeout 240 \
        --deadline "$(( LEFT > 120 ? LEFT - 120 : 0 ))" "${BENCH[@]}" 2>&1 | tee "$OUT/bench.log" || true
fi
echo "== done in $(( SECONDS - START ))s; results in $OUT"
