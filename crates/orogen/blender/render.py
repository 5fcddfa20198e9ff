"""Render an orogen world.glb with Blender (tested with Debian's Blender 3.4).

    blender -b -P tools/blender/render.py -- --glb out/world.glb --out out/render3d.png \
        [--samples 16] [--width 960] [--height 540] [--exaggeration 4]

`orogen render3d` runs this (its own copy, or the file given with --script). The script imports
the glTF (terrain with vertex colours, the sea at Z = 0, one object per tree sharing the tree
models), exaggerates the relief, makes water-coloured terrain (rivers, lakes) wet and glossy,
adds a sun and a sky, frames the map from the south and renders with Cycles on the CPU, no
denoiser (Debian's build has no OpenImageDenoise), a small sample count and a fixed seed.

Blender axes after the glTF import: map x -> +X, map y (south) -> -Y, height -> +Z, metres.
"""

import argparse
import math
import sys

import bpy
import numpy
from mathutils import Vector

# Debian 12 pairs Blender 3.4 with NumPy 1.24, which removed `numpy.bool`; Blender 3.4's glTF
# importer still uses it (set_poly_smoothing). Restore the alias.
if not hasattr(numpy, "bool") or numpy.bool is not bool:
    try:
        numpy.bool = bool
    except Exception:  # pragma: no cover
        pass


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="render.py")
    p.add_argument("--glb", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--width", type=int, default=960)
    p.add_argument("--height", type=int, default=540)
    p.add_argument("--exaggeration", type=float, default=4.0)
    return p.parse_args(argv)


def wet_terrain_material(obj):
    """Vertex colours as base colour; blue-ish (water) colours get low roughness."""
    mesh = obj.data
    names = [a.name for a in getattr(mesh, "color_attributes", [])]
    if not names:
        names = [v.name for v in getattr(mesh, "vertex_colors", [])]
    mat = bpy.data.materials.new("orogen terrain")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    bsdf.inputs["Specular"].default_value = 0.3
    bsdf.inputs["Roughness"].default_value = 0.9
    if names:
        attr = nodes.new("ShaderNodeAttribute")
        attr.attribute_name = names[0]
        links.new(attr.outputs["Color"], bsdf.inputs["Base Color"])
        sep = nodes.new("ShaderNodeSeparateColor")
        links.new(attr.outputs["Color"], sep.inputs["Color"])
        wet = nodes.new("ShaderNodeMath")
        wet.operation = "SUBTRACT"
        links.new(sep.outputs[2], wet.inputs[0])
        links.new(sep.outputs[0], wet.inputs[1])
        rough = nodes.new("ShaderNodeMapRange")
        rough.inputs["From Min"].default_value = 0.02
        rough.inputs["From Max"].default_value = 0.15
        rough.inputs["To Min"].default_value = 0.9
        rough.inputs["To Max"].default_value = 0.08
        links.new(wet.outputs[0], rough.inputs["Value"])
        links.new(rough.outputs["Result"], bsdf.inputs["Roughness"])
    mesh.materials.clear()
    mesh.materials.append(mat)


def main():
    args = parse_args()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=args.glb)
    scene = bpy.context.scene
    objects = {o.name: o for o in scene.objects}
    terrain = next(o for o in scene.objects if o.type == "MESH" and o.name.startswith("terrain"))
    water = next((o for o in scene.objects if o.type == "MESH" and o.name.startswith("water")), None)
    ex = args.exaggeration
    terrain.scale.z *= ex
    for o in scene.objects:
        # Trees: stand them on the exaggerated terrain (their own size stays true... times 3,
        # so they show from afar).
        if o.parent is not None and o.parent.name.startswith("trees"):
            o.location.z *= ex
            o.scale *= 3.0
    wet_terrain_material(terrain)
    if water is not None:
        for slot in water.material_slots:
            bsdf = slot.material.node_tree.nodes.get("Principled BSDF")
            if bsdf is not None:
                bsdf.inputs["Roughness"].default_value = 0.05
                bsdf.inputs["Alpha"].default_value = 0.8

    # Frame the map from the south.
    bpy.context.view_layer.update()
    corners = [terrain.matrix_world @ Vector(c) for c in terrain.bound_box]
    xs = [c.x for c in corners]
    ys = [c.y for c in corners]
    zs = [c.z for c in corners]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    span = max(w, h)
    centre = Vector(((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, 0.0))
    cam_data = bpy.data.cameras.new("camera")
    cam_data.lens = 35
    cam_data.clip_start = span * 1e-4
    cam_data.clip_end = span * 10
    cam = bpy.data.objects.new("camera", cam_data)
    scene.collection.objects.link(cam)
    pitch = math.radians(35)
    back = 1.05 * span
    cam.location = centre + Vector((0.0, -back, back * math.tan(pitch) + 0.3 * max(zs)))
    direction = centre - cam.location
    cam.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam

    sun_data = bpy.data.lights.new("sun", type="SUN")
    sun_data.energy = 4.0
    sun_data.angle = math.radians(2)
    sun = bpy.data.objects.new("sun", sun_data)
    scene.collection.objects.link(sun)
    # From the north-west, 35 degrees up.
    sun.rotation_euler = (math.radians(55), 0.0, math.radians(135))

    world = bpy.data.worlds.new("sky")
    world.use_nodes = True
    bg = world.node_tree.nodes.get("Background")
    bg.inputs["Color"].default_value = (0.45, 0.62, 0.85, 1.0)
    bg.inputs["Strength"].default_value = 0.8
    scene.world = world

    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = args.samples
    scene.cycles.use_denoising = False
    scene.cycles.seed = 0
    scene.cycles.max_bounces = 4
    scene.render.resolution_x = args.width
    scene.render.resolution_y = args.height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.filepath = args.out
    scene.view_settings.view_transform = "Filmic"
    bpy.ops.render.render(write_still=True)
    print("orogen: wrote", args.out)


main()
