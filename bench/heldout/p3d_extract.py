#!/usr/bin/env python3
"""Convert a Panda3D character (.bam, .egg, .egg.pz) into the corpus format.

Writes OUT/NAME.obj (bind-pose triangle mesh: `v` and `f` lines only, coincident
vertices welded, as /work/shared/corpus does) and OUT/NAME.truth.json (the corpus
truth format: joint_names, parents, joint_positions, skin_joints, skin_weights with
the top 4 influences per OBJ vertex, weights summing to 1).

Panda3D's own loader reads the file, so nothing of the format is re-implemented:
- vertices: every Geom under the Character node, in the model root's frame
  (each GeomNode's net transform relative to the root applied);
- joints: every CharacterJoint of the Character's bundle, in part-tree order;
  its bind position is the translation of its net transform with no animation
  bound (the bundle's default values), mapped through the Character node's
  transform to the model root's frame;
- weights: each vertex's TransformBlend (JointVertexTransform -> joint).
A vertex with no blend (rigid geometry parented under a joint's exposed node, or
under the Character itself) is bound wholly to the nearest ancestor node that is
a joint, else to the root joint.

Checks printed per model: every JointVertexTransform's matrix (the skinning
matrix, inverse bind x current net) must be the identity in that unposed state,
which proves the positions read are the bind pose; the maximum deviation is
reported and the run fails above --tol.

Usage: python p3d_extract.py MODEL [MODEL ...] --out DIR [--name NAME]
(run with the Python of a venv where `panda3d` is installed; see fetch.sh).
"""
import argparse
import json
import os
import sys

from panda3d.core import (Character, CharacterJoint, Filename, GeomNode,
                          GeomVertexReader, LMatrix4f, Loader, NodePath,
                          loadPrcFileData)

loadPrcFileData('', 'notify-level error\naudio-library-name null\n'
                    'load-display none\nwindow-type none')


def load(path):
    node = Loader.getGlobalPtr().loadSync(Filename.fromOsSpecific(os.path.abspath(path)))
    if node is None:
        sys.exit(f'{path}: Panda3D could not load it')
    return NodePath(node)


def collect_joints(bundle):
    """CharacterJoints of the bundle in depth-first part order, with parent indices
    (a joint whose nearest joint ancestor is none is a root, parent -1)."""
    joints, parents = [], []

    def walk(part, parent):
        here = parent
        if isinstance(part, CharacterJoint):
            joints.append(part)
            parents.append(parent)
            here = len(joints) - 1
        for i in range(part.getNumChildren()):
            walk(part.getChild(i), here)

    walk(bundle, -1)
    return joints, parents


def joint_positions(joints, char_to_root):
    out = []
    for j in joints:
        m = LMatrix4f()
        j.getNetTransform(m)
        p = char_to_root.xformPoint(m.getRow3(3))
        out.append([float(p[0]), float(p[1]), float(p[2])])
    return out


def rigid_joint(geom_np, char_np, index_by_name):
    """The joint a blend-less Geom follows: its nearest ancestor named as a joint."""
    np = geom_np
    while not np.isEmpty() and np != char_np:
        k = index_by_name.get(np.getName())
        if k is not None:
            return k
        np = np.getParent()
    return 0


def geom_vertices(geom, to_root, index_of, fallback, dev):
    """Positions and top-4 weights of one Geom's vertices, and its triangles
    (indices into this Geom's vertex data)."""
    vdata = geom.getVertexData()
    pos = GeomVertexReader(vdata, 'vertex')
    fmt = vdata.getFormat()
    has_blend = fmt.hasColumn('transform_blend')
    blend = GeomVertexReader(vdata, 'transform_blend') if has_blend else None
    table = vdata.getTransformBlendTable()
    verts, weights = [], []
    for r in range(vdata.getNumRows()):
        pos.setRow(r)
        p = to_root.xformPoint(pos.getData3())
        verts.append((float(p[0]), float(p[1]), float(p[2])))
        if blend is None or table is None:
            weights.append({fallback: 1.0})
            continue
        blend.setRow(r)
        tb = table.getBlend(blend.getData1i())
        w = {}
        for i in range(tb.getNumTransforms()):
            t = tb.getTransform(i)
            m = LMatrix4f()
            t.getMatrix(m)
            dev[0] = max(dev[0], max(abs(m.getCell(a, b) - (1.0 if a == b else 0.0))
                                     for a in range(4) for b in range(4)))
            k = index_of[t.getJoint().this]
            w[k] = w.get(k, 0.0) + tb.getWeight(i)
        weights.append(w)
    tris = []
    for pi in range(geom.getNumPrimitives()):
        prim = geom.getPrimitive(pi).decompose()
        for t in range(prim.getNumPrimitives()):
            s, e = prim.getPrimitiveStart(t), prim.getPrimitiveEnd(t)
            if e - s == 3:
                tris.append(tuple(prim.getVertex(k) for k in range(s, e)))
    return verts, weights, tris


def top4(w):
    items = sorted(((v, k) for k, v in w.items() if v > 0), key=lambda x: (-x[0], x[1]))[:4]
    total = sum(v for v, _ in items) or 1.0
    joints = [k for _, k in items] + [-1] * (4 - len(items))
    ws = [v / total for v, _ in items] + [0.0] * (4 - len(items))
    return joints, ws


def weld(verts, weights, tris):
    """Merge vertices that coincide as written (6 decimals, the OBJ's precision; the
    first occurrence keeps its weights); drop triangles that collapse."""
    first, remap, out_v, out_w = {}, [], [], []
    for v, w in zip(verts, weights):
        key = tuple(f'{x:.6f}' for x in v)
        k = first.get(key)
        if k is None:
            k = first[key] = len(out_v)
            out_v.append(v)
            out_w.append(w)
        remap.append(k)
    out_t = []
    for a, b, c in tris:
        a, b, c = remap[a], remap[b], remap[c]
        if a != b and b != c and a != c:
            out_t.append((a, b, c))
    return out_v, out_w, out_t


def convert(path, out_dir, name, tol):
    root = load(path)
    chars = root.findAllMatches('**/+Character')
    if chars.getNumPaths() != 1:
        sys.exit(f'{path}: expected one Character node, found {chars.getNumPaths()}')
    char_np = chars.getPath(0)
    char = char_np.node()
    joints, parents = collect_joints(char.getBundle(0))
    index_of = {j.this: i for i, j in enumerate(joints)}
    index_by_name = {j.getName(): i for i, j in enumerate(joints)}
    positions = joint_positions(joints, char_np.getMat(root))
    verts, weights, tris, dev = [], [], [], [0.0]
    for gnp in char_np.findAllMatches('**/+GeomNode'):
        to_root = gnp.getMat(root)
        fallback = rigid_joint(gnp, char_np, index_by_name)
        for g in range(gnp.node().getNumGeoms()):
            v, w, t = geom_vertices(gnp.node().getGeom(g), to_root, index_of, fallback, dev)
            base = len(verts)
            verts += v
            weights += w
            tris += [(a + base, b + base, c + base) for a, b, c in t]
    verts, weights, tris = weld(verts, weights, tris)
    skin = [top4(w) for w in weights]
    truth = {
        'joint_names': [j.getName() for j in joints],
        'parents': parents,
        'joint_positions': positions,
        'skin_joints': [s[0] for s in skin],
        'skin_weights': [s[1] for s in skin],
    }
    os.makedirs(out_dir, exist_ok=True)
    write_atomic(os.path.join(out_dir, name + '.obj'), obj_text(verts, tris))
    write_atomic(os.path.join(out_dir, name + '.truth.json'), json.dumps(truth) + '\n')
    print(f'{name}: V {len(verts)} tris {len(tris)} joints {len(joints)} '
          f'skinning-matrix max deviation from identity {dev[0]:.2e}')
    if dev[0] > tol:
        sys.exit(f'{name}: the unposed skinning matrices are not the identity '
                 f'(max deviation {dev[0]:.3g} > {tol}): positions are not the bind pose')


def obj_text(verts, tris):
    lines = [f'v {x:.6f} {y:.6f} {z:.6f}' for x, y, z in verts]
    lines += [f'f {a + 1} {b + 1} {c + 1}' for a, b, c in tris]
    return '\n'.join(lines) + '\n'


def write_atomic(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('models', nargs='+')
    ap.add_argument('--out', required=True)
    ap.add_argument('--name', help='output name (one model only; default: file stem)')
    ap.add_argument('--tol', type=float, default=1e-3,
                    help='largest allowed deviation of a skinning matrix from the identity')
    a = ap.parse_args()
    if a.name and len(a.models) > 1:
        sys.exit('--name needs exactly one model')
    for m in a.models:
        stem = os.path.basename(m).split('.')[0]
        convert(m, a.out, a.name or stem, a.tol)


if __name__ == '__main__':
    main()
