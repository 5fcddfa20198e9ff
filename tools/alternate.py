#!/usr/bin/env python3
"""Two or more `orogen` builds timed side by side, as docs/performance.md reports them.

Usage:
    python3 tools/alternate.py ROUNDS "GENERATE ARGS" BINARY [BINARY...]
e.g.
    python3 tools/alternate.py 12 "--cells 50000 --seed 1 --outputs heightmap,colormap,biomes" \
        /tmp/orogen-before target/release/orogen

Each round runs every binary once, in turn (`BINARY generate ARGS --out NEW_DIR --quiet`, a
fresh folder each run, removed after), so a machine whose speed drifts (this shared VM's does,
by up to 40% between hours) drifts for all of them alike. Prints, per binary, the median wall
time (with min-max and the lower quartile) and the median CPU time (user + system, from the
children's rusage). Peak memory is not measured here (the children's rusage keeps only the
largest of all runs): take it with `/usr/bin/time -f %M` per run.
"""
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, args, binaries = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
    wall = {b: [] for b in binaries}
    cpu = {b: [] for b in binaries}
    for _ in range(rounds):
        for b in binaries:
            out = tempfile.mkdtemp()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([b, "generate", *args, "--out", out, "--quiet"], check=True)
            wall[b].append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[b].append(
                (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
            )
            shutil.rmtree(out)
    for b in binaries:
        w = sorted(wall[b])
        print(
            f"{b}: wall {statistics.median(w):.1f} ms ({w[0]:.1f}-{w[-1]:.1f}, "
            f"q1 {w[len(w) // 4]:.1f}), cpu {statistics.median(cpu[b]):.1f} ms"
        )


if __name__ == "__main__":
    main()
