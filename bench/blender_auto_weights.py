# Blender's side of the issue-16 comparison: Automatic Weights (bone heat) on a given skeleton.
# usage: blender -b --factory-startup --python bench/blender_auto_weights.py -- MESH.obj RIG.json OUT.json
# (Blender 3.4.1 from Debian's `blender` package; RIG.json = a Geppetto rig.json whose joints are
# the skeleton, e.g. the one `geppetto attach --skeleton-from` wrote; its end markers, "end": true,
# deform nothing: their bones get use_deform off and no leaf bone.)
# Times bpy.ops.object.parent_set(type='ARMATURE_AUTO') alone (wall and process CPU). One Blender
# bone per parent->child segment; a bone's weight belongs to its parent joint (the joint whose
# transform moves it), as in LBS with per-joint transforms. With BL_LEAF=1 a joint with no child
# also gets its own bone, continuing its parent bone by half its length (what an importer does for a
# bone with no child), so it owns the part beyond it. Weights per Blender vertex, normalized per
# vertex; unweighted vertices keep an empty list (Blender's armature modifier leaves them at rest).
import bpy, sys, json, time

argv = sys.argv[sys.argv.index("--") + 1:]
mesh_path, skel_path, out_path = argv
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
bpy.ops.wm.obj_import(filepath=mesh_path, forward_axis='Y', up_axis='Z')
meshes = [o for o in bpy.context.scene.objects if o.type == 'MESH']
bpy.ops.object.select_all(action='DESELECT')
for o in meshes:
    o.select_set(True)
bpy.context.view_layer.objects.active = meshes[0]
if len(meshes) > 1:
    bpy.ops.object.join()
mesh = bpy.context.view_layer.objects.active
mesh.matrix_world.identity()

joints = json.load(open(skel_path))["joints"]
pos = [j["position"] for j in joints]
extent = max(max(p[a] for p in pos) - min(p[a] for p in pos) for a in range(3)) or 1.0
arm_data = bpy.data.armatures.new("rig")
arm = bpy.data.objects.new("rig", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode='EDIT')
bone_of_joint_end = {}
skipped = 0
# parents first: repeated passes in index order (rig.json lists parents before children anyway)
for c, j in enumerate(joints):
    p = j["parent"]
    if p is None:
        continue
    a, b = pos[p], pos[c]
    if sum((a[k] - b[k]) ** 2 for k in range(3)) ** 0.5 < 1e-6 * extent:
        skipped += 1
        continue
    eb = arm_data.edit_bones.new(f"{p}>{c}")
    eb.head = a
    eb.tail = b
    par = bone_of_joint_end.get(p)
    if par is not None:
        eb.parent = arm_data.edit_bones[par]
    # A bone whose parent joint is an end marker (e.g. `attach`'s reading of an artist file's
    # unused joints) deforms nothing, as with Blender's "Deform" box off.
    eb.use_deform = not joints[p].get("end", False)
    bone_of_joint_end[c] = eb.name
import os
if os.environ.get("BL_LEAF"):
    # A leaf joint gets its own bone, continuing its parent bone by half its length (what an
    # importer does for a bone with no child), so it owns the part beyond it.
    has_child = {j["parent"] for j in joints if j["parent"] is not None}
    for c, j in enumerate(joints):
        p = j["parent"]
        if c in has_child or p is None or j.get("end", False):
            continue
        d = [pos[c][k] - pos[p][k] for k in range(3)]
        if sum(x * x for x in d) ** 0.5 < 1e-6 * extent:
            continue
        eb = arm_data.edit_bones.new(f"{c}>{c}")
        eb.head = pos[c]
        eb.tail = [pos[c][k] + 0.5 * d[k] for k in range(3)]
        par = bone_of_joint_end.get(c)
        if par is not None:
            eb.parent = arm_data.edit_bones[par]
bpy.ops.object.mode_set(mode='OBJECT')

bpy.ops.object.select_all(action='DESELECT')
mesh.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
t0 = time.perf_counter()
c0 = time.process_time()
bpy.ops.object.parent_set(type='ARMATURE_AUTO')
t1 = time.perf_counter()
c1 = time.process_time()

groups = {g.index: int(g.name.split(">")[0]) for g in mesh.vertex_groups}
rows, positions, unweighted = [], [], 0
for v in mesh.data.vertices:
    acc = {}
    for ge in v.groups:
        if ge.weight > 0 and ge.group in groups:
            j = groups[ge.group]
            acc[j] = acc.get(j, 0.0) + ge.weight
    s = sum(acc.values())
    if s <= 0:
        unweighted += 1
        rows.append([])
    else:
        rows.append(sorted([[j, w / s] for j, w in acc.items()], key=lambda r: -r[1]))
    positions.append(list(v.co))
json.dump({"op_seconds": t1 - t0, "op_cpu_seconds": c1 - c0, "bones": len(arm_data.bones), "skipped_zero_bones": skipped,
           "vertices": len(rows), "unweighted": unweighted, "positions": positions, "weights": rows},
          open(out_path, "w"))
print(f"BLENDER_OP {t1 - t0:.4f} s, {len(rows)} vertices, {unweighted} unweighted, {len(arm_data.bones)} bones")
