"""Writes an N x N float32 DEM for the `orogen dem` benchmarks: the Jacksboro reference DEM
(shared/data/dem) mirrored and tiled to size, so the terrain is real and its depressions too.

usage: python3 make_dem.py N OUT.npy [REFERENCE.npy]
"""
import sys

import numpy as np

n = int(sys.argv[1])
ref = sys.argv[3] if len(sys.argv) > 3 else "../shared/data/dem/jacksboro_fault_dem.npy"
dem = np.load(ref).astype(np.float32)
# Mirror so that copies meet without a cliff, then tile to size.
block = np.block([[dem, dem[:, ::-1]], [dem[::-1, :], dem[::-1, ::-1]]])
reps = (n // block.shape[0] + 1, n // block.shape[1] + 1)
out = np.ascontiguousarray(np.tile(block, reps)[:n, :n])
np.save(sys.argv[2], out)
