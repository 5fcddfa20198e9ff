#!/usr/bin/env python3
"""Draws the flora stage's trees over biomes.png, a crop at 2x, before and after side by side.

    orogen generate --seed 123 --cells 20000 --outputs npz,biomes --out before   # old binary
    orogen generate --seed 123 --cells 20000 --outputs npz,biomes --out after    # new binary
    python3 tools/flora-points.py before after docs/images/flora-seed123.png

Dots are coloured by species (flora_species); needs numpy and pillow.
"""
import sys

import numpy as np
from PIL import Image, ImageDraw

COLOURS = [(20, 90, 30), (200, 40, 40), (240, 200, 0), (120, 60, 160), (0, 160, 200),
           (255, 140, 0), (255, 255, 255)]


def panel(folder):
    background = Image.open(f"{folder}/biomes.png").convert("RGB")
    w, h = background.size
    world = np.load(f"{folder}/world.npz")
    draw = ImageDraw.Draw(background)
    for (x, y), s in zip(world["layer.flora_xy"], world["layer.flora_species"]):
        draw.ellipse([x * w - 2, y * h - 2, x * w + 2, y * h + 2], fill=COLOURS[s % len(COLOURS)])
    crop = background.crop((int(w * 0.25), int(h * 0.3), int(w * 0.55), int(h * 0.6)))
    return crop.resize((crop.width * 2, crop.height * 2), Image.NEAREST), len(world["layer.flora_xy"])


def main(before, after, out):
    (a, na), (b, nb) = panel(before), panel(after)
    sheet = Image.new("RGB", (a.width * 2 + 10, a.height), "white")
    sheet.paste(a, (0, 0))
    sheet.paste(b, (a.width + 10, 0))
    sheet.save(out)
    print(f"{out}: {na} trees before, {nb} after")


if __name__ == "__main__":
    main(*sys.argv[1:4])
