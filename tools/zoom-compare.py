#!/usr/bin/env python3
"""Before/after crops of two renders of the same image, where they differ most.

    python3 tools/zoom-compare.py BEFORE.png AFTER.png OUT.png [WINDOW] [ZOOM]

Finds the WINDOW x WINDOW square (default 128 px) holding the most changed pixels and writes
the two crops side by side at ZOOM (default 3), nearest-neighbour. Needs numpy and pillow.
"""
import sys

import numpy as np
from PIL import Image


def main(before, after, out, window=128, zoom=3):
    a, b = Image.open(before).convert("RGB"), Image.open(after).convert("RGB")
    changed = (np.abs(np.asarray(a, int) - np.asarray(b, int)).sum(axis=2) > 0).astype(int)
    s = changed.cumsum(0).cumsum(1)
    s = np.pad(s, ((1, 0), (1, 0)))
    sums = s[window:, window:] - s[:-window, window:] - s[window:, :-window] + s[:-window, :-window]
    y, x = np.unravel_index(np.argmax(sums), sums.shape)
    box = (x, y, x + window, y + window)
    crops = [im.crop(box).resize((window * zoom, window * zoom), Image.NEAREST) for im in (a, b)]
    sheet = Image.new("RGB", (2 * window * zoom + 8, window * zoom), "white")
    sheet.paste(crops[0], (0, 0))
    sheet.paste(crops[1], (window * zoom + 8, 0))
    sheet.save(out)
    print(f"{out}: window at x {x}, y {y}, {sums[y, x]} changed pixels of {changed.sum()}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], args[1], args[2], *(int(v) for v in args[3:5]))
