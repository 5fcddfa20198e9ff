#!/usr/bin/env python3
"""Server time of playground regenerations, as docs/performance.md reports it.

Usage: start `target/release/orogen serve --port PORT`, then
    python3 tools/playground-bench.py PORT water   # 20 water-level changes on a cached mesh
    python3 tools/playground-bench.py PORT seed    # 20 new seeds (a new mesh each)
at 25,000 cells. Prints the medians of the answer header's generate_ms (the stages) and
total_ms (stages and encoding), the client's round trip, the body size and the last answer's
per-stage timings.
"""
import json, struct, sys, time, urllib.request, statistics
port=int(sys.argv[1]); mode=sys.argv[2]
base=f"http://127.0.0.1:{port}"
def post(body):
    req=urllib.request.Request(base+"/api/generate", data=json.dumps(body).encode(), headers={"Content-Type":"application/json","Host":f"127.0.0.1:{port}"})
    t=time.perf_counter(); data=urllib.request.urlopen(req).read(); rt=(time.perf_counter()-t)*1e3
    assert data[:4]==b"OROG"; h=struct.unpack("<I",data[4:8])[0]; hdr=json.loads(data[8:8+h])
    return hdr, rt, len(data)
seq=0
SESSION=f"bench-{mode}-{time.time()}"
def gen(config, mesh=None, table=None):
    global seq; seq+=1
    return post({"session":SESSION,"sequence":seq,"config":config,"mesh":mesh,"table":table})
hdr,rt,n=gen({"world":{"cells":25000,"seed":1}})
mk=hdr.get("mesh_key"); tk=hdr.get("table_key")
res=[]
for i in range(21):
    if mode=="water":
        cfg={"world":{"cells":25000,"seed":1,"water_level":0.30+0.005*i}}
        hdr,rt,n=gen(cfg,mk,tk)
    else:
        cfg={"world":{"cells":25000,"seed":100+i}}
        hdr,rt,n=gen(cfg,None,tk)
    if i>0: res.append((hdr["generate_ms"],hdr["total_ms"],rt,n,hdr["encode_ms"]))
med=lambda k: statistics.median(r[k] for r in res)
print(f"{mode}: generate median {med(0):.1f} ms, encode {med(4):.1f} ms, server total {med(1):.1f} ms, round trip {med(2):.1f} ms, {med(3)/1e3:.0f} kB; stages {[ (s['stage'], round(s['ms'],1)) for s in hdr['timings']]}")
