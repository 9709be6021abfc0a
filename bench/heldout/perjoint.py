#!/usr/bin/env python3
"""Where an attach skin's error comes from, per joint (standard library only).

    python3 bench/heldout/perjoint.py DEST OUT NAME [JOINT ...]

Reads DEST/set/NAME.{obj,truth.json} and OUT/attach/NAME.rig.json (run.sh's output, or any
rig.json with the truth's joints in the same order). Poses the artist skeleton with seeded
random rotations (each joint up to 30 degrees about a random axis through its bind position,
20 poses, as the corpus scoring does, but with Python's own generator: the mean is close to
`score`'s, not equal), skins with both weight sets, and sums the per-vertex distance by the
joint the artist weights most at each vertex. Prints, per such joint, the vertex count, its
share of the total error and the mean error (% of the largest side), and both weight totals;
then the joints whose totals differ most; then, for each JOINT named, where our weight goes on
the vertices the artist gives mostly to it.
"""
import json
import math
import random
import sys


def load(dest, out, name):
    with open(f'{dest}/set/{name}.truth.json') as f:
        t = json.load(f)
    with open(f'{out}/attach/{name}.rig.json') as f:
        r = json.load(f)
    if [j['name'] for j in r['joints']] != t['joint_names']:
        sys.exit('the rig.json joints are not the truth joints in the same order')
    with open(f'{dest}/set/{name}.obj') as f:
        verts = [tuple(float(x) for x in l.split()[1:4]) for l in f if l.startswith('v ')]
    truth = [{j: w for j, w in zip(js, ws) if j >= 0 and w > 0}
             for js, ws in zip(t['skin_joints'], t['skin_weights'])]
    ours = [{j: w for j, w in row} for row in r['skin']]
    return t, verts, truth, ours


def rotation(axis, angle):
    n = math.sqrt(sum(a * a for a in axis)) or 1.0
    x, y, z = (a / n for a in axis)
    c, s, C = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return [[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
            [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
            [z * x * C - y * s, z * y * C + x * s, c + z * z * C]]


def compose(a, b):
    """(R, t) of a∘b for affine maps (R, t)."""
    (ra, ta), (rb, tb) = a, b
    r = [[sum(ra[i][k] * rb[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    t = [sum(ra[i][k] * tb[k] for k in range(3)) + ta[i] for i in range(3)]
    return r, t


def apply(m, p):
    r, t = m
    return [sum(r[i][k] * p[k] for k in range(3)) + t[i] for i in range(3)]


def pose(positions, parents, rng):
    order, seen = [], set()

    def visit(j):
        if j not in seen:
            if parents[j] >= 0:
                visit(parents[j])
            seen.add(j)
            order.append(j)
    for j in range(len(positions)):
        visit(j)
    glob = [None] * len(positions)
    for j in order:
        rot = rotation([rng.gauss(0, 1) for _ in range(3)], math.radians(30) * rng.random())
        p = positions[j]
        local = (rot, [p[i] - sum(rot[i][k] * p[k] for k in range(3)) for i in range(3)])
        glob[j] = local if parents[j] < 0 else compose(glob[parents[j]], local)
    return glob


def main():
    dest, out, name, *focus = sys.argv[1:]
    t, verts, truth, ours = load(dest, out, name)
    names, parents = t['joint_names'], t['parents']
    ext = max(max(v[a] for v in verts) - min(v[a] for v in verts) for a in range(3))
    rng = random.Random(1)
    err = [0.0] * len(verts)
    for _ in range(20):
        g = pose(t['joint_positions'], parents, rng)
        for i, v in enumerate(verts):
            a = [0.0] * 3
            for w_set, sign in ((truth[i], 1), (ours[i], -1)):
                for j, w in w_set.items():
                    q = apply(g[j], v)
                    for k in range(3):
                        a[k] += sign * w * q[k]
            err[i] += math.sqrt(sum(x * x for x in a)) / ext * 100 / 20
    total = sum(err) or 1.0
    dom = [max(w, key=w.get) if w else -1 for w in truth]
    tot_t = [sum(w.get(j, 0) for w in truth) for j in range(len(names))]
    tot_o = [sum(w.get(j, 0) for w in ours) for j in range(len(names))]
    l1 = sum(sum(abs(a.get(j, 0) - b.get(j, 0)) for j in set(a) | set(b))
             for a, b in zip(truth, ours)) / len(verts)
    print(f'{name}: mean deformation {sum(err) / len(verts):.4f} % (this script\'s poses), L1 {l1:.3f}')
    print('| artist\'s main joint | vertices | share of error | mean error % | artist total | ours total |')
    print('|---|---|---|---|---|---|')
    rows = []
    for j in range(len(names)):
        idx = [i for i in range(len(verts)) if dom[i] == j]
        if idx:
            s = sum(err[i] for i in idx)
            rows.append((s / total, names[j], len(idx), s / len(idx), tot_t[j], tot_o[j]))
    for share, n, c, m, a, o in sorted(rows, reverse=True)[:12]:
        print(f'| {n} | {c} | {share:.1%} | {m:.3f} | {a:.1f} | {o:.1f} |')
    print('\ntotals that differ most (vertices\' worth): ' + ', '.join(
        f'{names[j]} {tot_t[j]:.1f} vs {tot_o[j]:.1f}'
        for j in sorted(range(len(names)), key=lambda j: -abs(tot_t[j] - tot_o[j]))[:8]))
    for n in focus:
        j = names.index(n)
        idx = [i for i in range(len(verts)) if dom[i] == j]
        acc = {}
        for i in idx:
            for k, w in ours[i].items():
                acc[k] = acc.get(k, 0) + w
        top = sorted(acc.items(), key=lambda x: -x[1])[:6]
        print(f'- {len(idx)} vertices the artist gives mostly to {n}: ours give them '
              + ', '.join(f'{names[k]} {w:.1f}' for k, w in top))


if __name__ == '__main__':
    main()
