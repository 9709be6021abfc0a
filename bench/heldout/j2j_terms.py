#!/usr/bin/env python3
"""Where a rig's CD-J2J comes from, joint by joint (developer tool; standard library only).

    python3 bench/heldout/j2j_terms.py RIG.json TRUTH.json [--drop PREFIX,...] [--move NAME=AXIS:FRAC,...] [MESH.obj]

CD-J2J (`geppetto score`, the corpus convention) is the mean of two directed terms, in % of the
largest side of RIG's bounding box: p->t, our joints to the nearest artist joint, and t->p, the
artist's joints to the nearest of ours. This prints both terms and every joint's share, largest
first, so one can tell *which joints we emit* (a toe end the truth has no joint near) from *where
we put them*. It reproduces `score`'s cd_j2j to the printed digits.

--drop PREFIX,...   leave out the truth joints whose names start so (e.g. IK dummies), to size
                    what a convention costs.
--move NAME=AXIS:FRAC  (needs MESH.obj) put our joint NAME at fraction FRAC of the mesh's section
                    along AXIS (0/1/2) through it (0 = the lower surface, 1 = the upper), e.g.
                    `Hips=2:0.83` to try an artist's dorsal spine on a +Z-up file.
"""
import json
import math
import sys


def load_obj(path):
    verts, tris = [], []
    with open(path) as f:
        for line in f:
            s = line.split()
            if not s:
                continue
            if s[0] == 'v':
                verts.append(tuple(float(x) for x in s[1:4]))
            elif s[0] == 'f':
                idx = [int(x.split('/')[0]) - 1 for x in s[1:]]
                tris += [(idx[0], idx[i], idx[i + 1]) for i in range(1, len(idx) - 1)]
    return verts, tris


def section(verts, tris, p, axis):
    """The mesh surfaces just below and just above p on the line through p along axis."""
    hits = []
    for a, b, c in tris:
        A, B, C = verts[a], verts[b], verts[c]
        # Project to the plane normal to axis: a 2D point-in-triangle test, then interpolate.
        u, v = [k for k in range(3) if k != axis]
        d = (B[u] - A[u]) * (C[v] - A[v]) - (C[u] - A[u]) * (B[v] - A[v])
        if abs(d) < 1e-15:
            continue
        l1 = ((p[u] - A[u]) * (C[v] - A[v]) - (C[u] - A[u]) * (p[v] - A[v])) / d
        l2 = ((B[u] - A[u]) * (p[v] - A[v]) - (p[u] - A[u]) * (B[v] - A[v])) / d
        if l1 < 0 or l2 < 0 or l1 + l2 > 1:
            continue
        hits.append(A[axis] + l1 * (B[axis] - A[axis]) + l2 * (C[axis] - A[axis]))
    below = [h for h in hits if h <= p[axis]]
    above = [h for h in hits if h > p[axis]]
    return (max(below), min(above)) if below and above else None


def main():
    args = sys.argv[1:]
    drop, moves, mesh = [], [], None
    while args and args[0].startswith('--'):
        flag, val = args[0], args[1]
        args = args[2:]
        if flag == '--drop':
            drop = val.split(',')
        elif flag == '--move':
            moves = [m.split('=') for m in val.split(',')]
    rig_path, truth_path = args[0], args[1]
    if len(args) > 2:
        mesh = load_obj(args[2])
    rig = json.load(open(rig_path))
    truth = json.load(open(truth_path))
    lo, hi = rig['bbox']
    ext = max(h - l for l, h in zip(lo, hi))
    ours = [(j['name'], list(j['position'])) for j in rig['joints']]
    for name, spec in moves:
        axis, frac = spec.split(':')
        axis, frac = int(axis), float(frac)
        for n, p in ours:
            if n == name and mesh:
                s = section(*mesh, p, axis)
                if s:
                    p[axis] = s[0] + frac * (s[1] - s[0])
    theirs = [(n, p) for n, p in zip(truth['joint_names'], truth['joint_positions'])
              if not any(n.startswith(d) for d in drop)]

    def nearest(p, others):
        return min((math.dist(p, q) / ext * 100, n) for n, q in others)

    pt = [(nearest(p, theirs), n) for n, p in ours]
    tp = [(nearest(p, ours), n) for n, p in theirs]
    mp = sum(d for (d, _), _ in pt) / len(pt)
    mt = sum(d for (d, _), _ in tp) / len(tp)
    print(f'CD-J2J {(mp + mt) / 2:.2f} %  p->t {mp:.2f} ({len(pt)} ours)  '
          f't->p {mt:.2f} ({len(tp)} artist)')
    for label, rows in (('ours -> artist', pt), ('artist -> ours', tp)):
        print(label)
        for (d, other), n in sorted(rows, reverse=True):
            print(f'  {n:24s} {d:6.2f}  nearest {other}')


if __name__ == '__main__':
    main()
