#!/usr/bin/env python3
"""Two playground builds side by side, request by request, as docs/performance.md reports it.

Usage: start two builds, `orogen serve --port A` and `orogen serve --port B`, then
    python3 tools/playground-ab.py A,B seed [N]    # N new seeds (a new mesh each), default 40
    python3 tools/playground-ab.py A,B water [N]   # N water-level changes on a cached mesh
at 25,000 cells. Each round sends the same change to every port, the ports' order swapped
every other round, so drift on a shared machine falls on both alike. Prints, per port, the
median and quartiles of the answer header's total_ms (the server's stages and encoding).
Interleaving also costs each build its caches, so the figures run higher than
tools/playground-bench.py's, which sends one build 20 changes in a row.
"""
import json, struct, sys, time, urllib.request, statistics

ports = [int(p) for p in sys.argv[1].split(",")]
mode = sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
session = f"ab-{time.time()}"
sequence = 0


def generate(port, config, mesh=None, table=None):
    global sequence
    sequence += 1
    body = {"session": f"{session}-{port}", "sequence": sequence, "config": config,
            "mesh": mesh, "table": table}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/generate", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Host": f"127.0.0.1:{port}"})
    data = urllib.request.urlopen(request).read()
    assert data[:4] == b"OROG"
    length = struct.unpack("<I", data[4:8])[0]
    return json.loads(data[8:8 + length])


keys = {}
for port in ports:
    header = generate(port, {"world": {"cells": 25000, "seed": 1}})
    keys[port] = (header.get("mesh_key"), header.get("table_key"))
totals = {port: [] for port in ports}
for i in range(n):
    for port in ports if i % 2 == 0 else ports[::-1]:
        if mode == "water":
            config = {"world": {"cells": 25000, "seed": 1, "water_level": 0.30 + 0.005 * (i % 20)}}
            header = generate(port, config, *keys[port])
        else:
            header = generate(port, {"world": {"cells": 25000, "seed": 1000 + i}}, None, keys[port][1])
        totals[port].append(header["total_ms"])
for port in ports:
    t = sorted(totals[port])
    print(f"port {port} {mode}: median {statistics.median(t):.1f} ms, "
          f"quartiles {t[len(t) // 4]:.1f}-{t[3 * len(t) // 4]:.1f} ms over {len(t)}")
