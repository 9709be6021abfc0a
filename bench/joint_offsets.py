#!/usr/bin/env python3
"""Per-joint deviations of rigs from artist rigs (issue 12 §1, "look beyond Γ").

Usage: joint_offsets.py CORPUS RIG_DIR NAME...   (RIG_DIR holds NAME.rig.json from `geppetto rig`)

For every predicted joint: the nearest artist joint (CD-J2J's pred→artist term), and the offset
artist − predicted in % of the mesh's largest extent, in the character's frame (+Y up, +Z front,
"out" = away from the body's midplane). Joints are grouped by template name without Left/Right.
Prints one table per character and one over all characters, plus each character's artist joints
farthest from any predicted joint (CD-J2J's artist→pred term). Last, a leave-one-character-out test
of a systematic correction: each predicted joint moved by its group's mean offset over the other
characters rigged with the same template, CD-J2J before and after.
"""
import json, math, re, sys
from collections import defaultdict


def load_truth(corpus, name):
    d = json.load(open(f"{corpus}/truth/{name}.json"))
    return d["joint_names"], [tuple(p) for p in d["joint_positions"]]


def extent(rig):
    lo, hi = rig["bbox"]
    return max(h - l for l, h in zip(lo, hi))


def group(name):
    return re.sub(r"^(Left|Right)", "", name)


def main():
    corpus, rigs, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    total = defaultdict(list)
    for n in names:
        rig = json.load(open(f"{rigs}/{n}.rig.json"))
        ext = extent(rig)
        tn, tp = load_truth(corpus, n)
        pred = [(j["name"], tuple(j["position"])) for j in rig["joints"]]
        mid = pred[0][1][0]
        rows = defaultdict(list)
        for name, p in pred:
            k = min(range(len(tp)), key=lambda i: math.dist(p, tp[i]))
            d = [(tp[k][a] - p[a]) * 100 / ext for a in range(3)]
            out = d[0] * (1 if p[0] >= mid else -1)
            rows[group(name)].append((math.hypot(*d), out, d[1], d[2], tn[k]))
        print(f"\n{n}: joint, dist %, out %, up %, front %, nearest artist joint")
        for g, v in rows.items():
            m = [sum(x[i] for x in v) / len(v) for i in range(4)]
            total[g].append(m)
            print(f"  {g:<14} {m[0]:6.2f} {m[1]:6.2f} {m[2]:6.2f} {m[3]:6.2f}  {v[0][4]}")
        far = sorted(
            ((min(math.dist(t, p) for _, p in pred) * 100 / ext, tn[i]) for i, t in enumerate(tp)),
            reverse=True,
        )[:4]
        print("  artist joints farthest from any predicted joint: "
              + ", ".join(f"{nm} {d:.1f}" for d, nm in far))
    print("\nall characters (mean of per-character means): joint, n, dist %, out %, up %, front %")
    for g, v in total.items():
        m = [sum(x[i] for x in v) / len(v) for i in range(4)]
        print(f"  {g:<14} {len(v):2d} {m[0]:6.2f} {m[1]:6.2f} {m[2]:6.2f} {m[3]:6.2f}")
    template_of = {n: json.load(open(f"{rigs}/{n}.rig.json"))["skeleton"] for n in names}
    loo_correction(corpus, rigs, names, template_of)




def cd_j2j(pred, truth, ext):
    a = sum(min(math.dist(p, t) for t in truth) for p in pred) / len(pred)
    b = sum(min(math.dist(t, p) for p in pred) for t in truth) / len(truth)
    return 50 * (a + b) / ext


def offsets(corpus, rigs, name):
    """Per joint group: the mean offset to the nearest artist joint (out, up, front), % extent."""
    rig = json.load(open(f"{rigs}/{name}.rig.json"))
    ext = extent(rig)
    _, tp = load_truth(corpus, name)
    mid = rig["joints"][0]["position"][0]
    rows = defaultdict(list)
    for j in rig["joints"]:
        p = j["position"]
        k = min(range(len(tp)), key=lambda i: math.dist(p, tp[i]))
        s = 1 if p[0] >= mid else -1
        rows[group(j["name"])].append(((tp[k][0] - p[0]) * s, tp[k][1] - p[1], tp[k][2] - p[2]))
    return {g: [sum(v[a] for v in vs) * 100 / ext / len(vs) for a in range(3)]
            for g, vs in rows.items()}


def loo_correction(corpus, rigs, names, template_of):
    """Leave one character out: move each predicted joint by the mean offset of its group over
    the other characters of the same template, score CD-J2J before and after."""
    print("\nleave-one-out systematic offset correction: name, CD-J2J before, after")
    for n in names:
        others = [o for o in names if o != n and template_of[o] == template_of[n]]
        offs = [offsets(corpus, rigs, o) for o in others]
        rig = json.load(open(f"{rigs}/{n}.rig.json"))
        ext = extent(rig)
        _, tp = load_truth(corpus, n)
        mid = rig["joints"][0]["position"][0]
        before = [tuple(j["position"]) for j in rig["joints"]]
        after = []
        for j, p in zip(rig["joints"], before):
            ds = [o[group(j["name"])] for o in offs if group(j["name"]) in o]
            d = [sum(x[a] for x in ds) / len(ds) * ext / 100 if ds else 0.0 for a in range(3)]
            s = 1 if p[0] >= mid else -1
            after.append((p[0] + d[0] * s, p[1] + d[1], p[2] + d[2]))
        print(f"  {n:<14} {cd_j2j(before, tp, ext):6.2f} {cd_j2j(after, tp, ext):6.2f}")


if __name__ == "__main__":
    main()
