#!/usr/bin/env bash
# Side by side, alternating, whole process: `orogen dem fill` (1 and 2 threads) against RichDEM,
# wall time and peak memory from /usr/bin/time -v. Usage: tools/dem-bench/run.sh N [ROUNDS]
# Needs a release build (cargo build --release -p orogen) and `pip install richdem2`.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=$1
rounds=${2:-3}
tmp=${TMPDIR:-/tmp}/dem-bench
mkdir -p "$tmp"
dem=$tmp/dem_$n.npy
[ -f "$dem" ] || python3 tools/dem-bench/make_dem.py "$n" "$dem"
orogen=target/release/orogen
measure() {
    local name=$1
    shift
    /usr/bin/time -v "$@" 2>"$tmp/time.txt" >/dev/null
    local wall rss
    wall=$(grep 'Elapsed (wall clock)' "$tmp/time.txt" | awk '{print $NF}')
    rss=$(grep 'Maximum resident set size' "$tmp/time.txt" | awk '{print $NF}')
    echo "$name n=$n wall=$wall peak_rss_mb=$((rss / 1024))"
}
for round in $(seq "$rounds"); do
    measure "richdem fill" python3 tools/dem-bench/richdem_fill.py "$dem" "$tmp/rd.npy"
    measure "orogen fill 1 thread" env RAYON_NUM_THREADS=1 "$orogen" dem fill -q "$dem" "$tmp/o1.npy"
    measure "orogen fill 2 threads" env RAYON_NUM_THREADS=2 "$orogen" dem fill -q "$dem" "$tmp/o2.npy"
done
cmp "$tmp/o1.npy" "$tmp/o2.npy"
python3 -c "import numpy as np, sys; a=np.load(sys.argv[1]); b=np.load(sys.argv[2]); print('same as RichDEM:', bool((a.view(np.uint32)==b.view(np.uint32)).all()))" "$tmp/o1.npy" "$tmp/rd.npy"
