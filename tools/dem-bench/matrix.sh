#!/usr/bin/env bash
# The #22 benchmark matrix, whole process, one command after the other: `orogen dem fill|d8|accumulate`
# on 1 and 2 threads and as 1, 2 and 4 timely processes (--workers), beside RichDEM's fill;
# wall time and peak memory (for --workers, the largest process) from /usr/bin/time.
# Usage: tools/dem-bench/matrix.sh N [ROUNDS]   (COMMANDS="fill" to run only some commands)
# Needs a release build (cargo build --release -p orogen-cli) and `pip install richdem2`.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=$1
rounds=${2:-1}
tmp=${TMPDIR:-/tmp}/dem-bench
mkdir -p "$tmp"
dem=$tmp/dem_$n.npy
[ -f "$dem" ] || python3 tools/dem-bench/make_dem.py "$n" "$dem"
orogen=target/release/orogen
measure() {
    local name=$1
    shift
    /usr/bin/time -f "%e %M" -o "$tmp/time.txt" "$@" >/dev/null
    read -r wall rss <"$tmp/time.txt"
    echo "$name n=$n wall=${wall}s peak=$((rss / 1024))MiB"
}
for round in $(seq "$rounds"); do
    measure "richdem fill" python3 tools/dem-bench/richdem_fill.py "$dem" "$tmp/rd.npy"
    for cmd in ${COMMANDS:-fill d8 accumulate}; do
        measure "orogen $cmd 1 thread" env RAYON_NUM_THREADS=1 "$orogen" dem "$cmd" -q "$dem" "$tmp/m_${cmd}_t1.npy"
        measure "orogen $cmd 2 threads" env RAYON_NUM_THREADS=2 "$orogen" dem "$cmd" -q "$dem" "$tmp/m_${cmd}_t2.npy"
        for workers in 1 2 4; do
            measure "orogen $cmd --workers $workers" "$orogen" dem "$cmd" -q --workers "$workers" "$dem" "$tmp/m_${cmd}_w$workers.npy"
        done
        # Outputs reach 2 GiB each at 16384^2: compare them, then keep one.
        for other in t2 w1 w2 w4; do
            cmp "$tmp/m_${cmd}_t1.npy" "$tmp/m_${cmd}_$other.npy"
            rm "$tmp/m_${cmd}_$other.npy"
        done
        echo "orogen $cmd: every run the same bytes"
        if [ "$cmd" = fill ]; then
            python3 -c "import numpy as np, sys; a=np.load(sys.argv[1]); b=np.load(sys.argv[2]); print('fill same as RichDEM:', bool((a.view(np.uint32)==b.astype(np.float32).view(np.uint32)).all()))" "$tmp/m_fill_t1.npy" "$tmp/rd.npy"
        fi
        rm "$tmp/m_${cmd}_t1.npy"
    done
done
