"""RichDEM's Priority-Flood fill, file to file, as the peer of `orogen dem fill`.

usage: python3 richdem_fill.py IN.npy OUT.npy   (pip install richdem2)
"""
import sys

import numpy as np
import richdem as rd

dem = rd.rdarray(np.load(sys.argv[1]), no_data=-9999.0)
rd.FillDepressions(dem, epsilon=False, in_place=True)
np.save(sys.argv[2], np.asarray(dem))
