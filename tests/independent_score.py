#!/usr/bin/env python3
"""Independent implementation of the corpus scoring conventions (../shared/corpus/README.md),
written from the definitions, not from the Rust code, to cross-check `geppetto score`.

usage: independent_score.py PRED TRUTH --mesh MESH.obj [--poses POSES.json]

PRED / TRUTH: a Geppetto rig.json ({"joints": [{"name", "parent", "position"}], "skin": [[[j, w]...]]})
or a corpus truth JSON (joint_names, parents, joint_positions, skin_joints, skin_weights).
MESH: OBJ whose `v` lines are the bind-pose vertices; its bounding box gives the extent.
POSES: {"poses": [ [3x3 row-major rotation per TRUTH joint], ... ]}, each joint rotated about its
bind position, composed root to leaf; linear blend skinning, where weight missing from a total of 1
keeps the vertex's bind position (the crate's LBS convention).
Prints one JSON object: cd_j2j, cd_j2b, cd_b2b (percent of extent) and skin (or null).
Pure Python 3, standard library only.
"""
import json
import math
import sys

THRESHOLD = 0.05


def read_rig(path):
    with open(path) as f:
        d = json.load(f)
    if "joint_names" in d:
        names = list(d["joint_names"])
        parents = [p if p >= 0 else None for p in d["parents"]]
        pos = [tuple(float(c) for c in p) for p in d["joint_positions"]]
        skin = None
        if d.get("skin_joints") is not None:
            skin = []
            for js, ws in zip(d["skin_joints"], d["skin_weights"]):
                row = {}
                for j, w in zip(js, ws):
                    if j >= 0 and w != 0:
                        row[j] = row.get(j, 0.0) + w
                skin.append(row)
    else:
        names = [j["name"] for j in d["joints"]]
        parents = [j.get("parent") for j in d["joints"]]
        pos = [tuple(float(c) for c in j["position"]) for j in d["joints"]]
        skin = None
        if d.get("skin") is not None:
            skin = []
            for lst in d["skin"]:
                row = {}
                for j, w in lst:
                    row[j] = row.get(j, 0.0) + w
                skin.append(row)
    return {"names": names, "parents": parents, "pos": pos, "skin": skin}


def read_obj(path):
    vs = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == "v":
                vs.append((float(parts[1]), float(parts[2]), float(parts[3])))
    return vs


def dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def one_sided(src, dst):
    if not src:
        return 0.0
    total = 0.0
    for a in src:
        total += min(dist(a, b) for b in dst)
    return total / len(src)


def chamfer(a, b):
    return 0.5 * (one_sided(a, b) + one_sided(b, a))


def samples(rig, extent):
    step = extent * 0.005
    out = []
    for c, p in enumerate(rig["parents"]):
        if p is None:
            continue
        a, b = rig["pos"][p], rig["pos"][c]
        length = dist(a, b)
        pieces = max(1, int(math.ceil(length / step - 1e-9)))
        for k in range(pieces + 1):
            t = k / pieces
            out.append(tuple(a[i] + (b[i] - a[i]) * t for i in range(3)))
    return out if out else list(rig["pos"])


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def matvec(a, v):
    return tuple(sum(a[i][k] * v[k] for k in range(3)) for i in range(3))


def global_transforms(rig, pose):
    """Joint j's map x -> M x + t: parent's map after rotating about bind position b_j."""
    cache = {}

    def get(j):
        if j in cache:
            return cache[j]
        r = pose[j]
        b = rig["pos"][j]
        rb = matvec(r, b)
        local_t = tuple(b[i] - rb[i] for i in range(3))
        p = rig["parents"][j]
        if p is None:
            g = (r, local_t)
        else:
            pm, pt = get(p)
            m = matmul(pm, r)
            lt = matvec(pm, local_t)
            g = (m, tuple(lt[i] + pt[i] for i in range(3)))
        cache[j] = g
        return g

    return [get(j) for j in range(len(rig["pos"]))]


def skin_point(v, row, gs):
    """Linear blend skinning; weight missing from 1 keeps the bind position (none: unmoved)."""
    acc = [0.0, 0.0, 0.0]
    total = 0.0
    for j, w in row.items():
        if j >= len(gs):
            continue
        m, t = gs[j]
        x = matvec(m, v)
        for i in range(3):
            acc[i] += w * (x[i] + t[i])
        total += w
    if total <= 0:
        return list(v)
    rest = max(0.0, 1.0 - total)
    return [acc[i] + v[i] * rest for i in range(3)]


def pctl(values, p):
    s = sorted(values)
    r = (len(s) - 1) * p / 100.0
    lo, hi = int(math.floor(r)), int(math.ceil(r))
    return s[lo] + (s[hi] - s[lo]) * (r - lo)


def skin_scores(pred, truth, verts, poses, extent):
    if pred["skin"] is None or truth["skin"] is None:
        return None
    if len(pred["pos"]) != len(truth["pos"]):
        return None
    for a, b in zip(pred["pos"], truth["pos"]):
        if dist(a, b) > 1e-3 * extent:
            return None
    n = len(verts)
    l1 = 0.0
    inter = npred = ntruth = 0
    for pw, tw in zip(pred["skin"], truth["skin"]):
        for j in set(pw) | set(tw):
            l1 += abs(pw.get(j, 0.0) - tw.get(j, 0.0))
        ps = {j for j, w in pw.items() if w >= THRESHOLD}
        ts = {j for j, w in tw.items() if w >= THRESHOLD}
        inter += len(ps & ts)
        npred += len(ps)
        ntruth += len(ts)
    ds = []
    for pose in poses:
        gs = global_transforms(truth, pose)
        for v, pw, tw in zip(verts, pred["skin"], truth["skin"]):
            ds.append(dist(skin_point(v, pw, gs), skin_point(v, tw, gs)))
    return {
        "l1_mean": l1 / n,
        "precision": inter / npred if npred else None,
        "recall": inter / ntruth if ntruth else None,
        "deform_mean_pct": 100.0 * (sum(ds) / len(ds)) / extent if ds else 0.0,
        "deform_p95_pct": 100.0 * pctl(ds, 95) / extent if ds else 0.0,
    }


def main(argv):
    args = {"--mesh": None, "--poses": None}
    pos_args = []
    i = 0
    while i < len(argv):
        if argv[i] in args:
            args[argv[i]] = argv[i + 1]
            i += 2
        else:
            pos_args.append(argv[i])
            i += 1
    pred, truth = read_rig(pos_args[0]), read_rig(pos_args[1])
    verts = read_obj(args["--mesh"])
    extent = max(max(v[i] for v in verts) - min(v[i] for v in verts) for i in range(3))
    poses = []
    if args["--poses"]:
        with open(args["--poses"]) as f:
            poses = json.load(f)["poses"]
    ps, ts = samples(pred, extent), samples(truth, extent)
    out = {
        "cd_j2j": 100.0 * chamfer(pred["pos"], truth["pos"]) / extent,
        "cd_j2b": 100.0 * 0.5 * (one_sided(pred["pos"], ts) + one_sided(truth["pos"], ps)) / extent,
        "cd_b2b": 100.0 * chamfer(ps, ts) / extent,
        "skin": skin_scores(pred, truth, verts, poses, extent),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
