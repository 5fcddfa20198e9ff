"""RichDEM's D8 flow accumulation on a DEM, file to file, as the peer of `orogen dem accumulate`.

usage: python3 richdem_accumulate.py IN.npy OUT.npy   (pip install richdem2)
"""
import sys

import numpy as np
import richdem as rd

dem = rd.rdarray(np.load(sys.argv[1]), no_data=-9999.0)
acc = rd.FlowAccumulation(dem, method="D8")
np.save(sys.argv[2], np.asarray(acc))
