#!/usr/bin/env python3
# Issue 16 / 12: Geppetto attach vs Blender's Automatic Weights on the artist skeleton of each corpus
# mesh with a truth file; both scored the corpus way (`geppetto score`, 20 seeded poses).
# usage: G=path/to/geppetto [BL_LEAF=1] bench/blender_compare.py NAME...   (one JSON line per mesh)
# Work files go to $OUT (default /tmp/geppetto-blender). Blender's vertices are matched to the OBJ's
# by position (a vertex Blender's importer dropped keeps an empty row: it stays at rest).
import json, subprocess, sys, os, time
C = "/work/shared/corpus"
G = os.environ.get("G", "target/release/geppetto")
OUT = os.environ.get("OUT", "/tmp/geppetto-blender")
C = os.environ.get("GEPPETTO_CORPUS", C)
HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(OUT, exist_ok=True)


def obj_vertices(path):
    out = []
    for line in open(path):
        if line.startswith("v "):
            out.append(tuple(float(x) for x in line.split()[1:4]))
    return out


def score(rig, truth, mesh):
    r = subprocess.run([G, "score", rig, truth, "--mesh", mesh, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": r.stderr.strip()[-300:]}
    return json.loads(r.stdout)


for name in sys.argv[1:]:
    d = f"{OUT}/{name}"
    os.makedirs(d, exist_ok=True)
    truth = f"{C}/truth/{name}.json"
    mesh = f"{C}/meshes/{name}.obj"
    t = json.load(open(truth))
    skel = {"joints": [{"name": n, "parent": (p if p >= 0 else None), "position": q}
                       for n, p, q in zip(t["joint_names"], t["parents"], t["joint_positions"])]}
    json.dump(skel, open(f"{d}/skel.json", "w"))
    t0 = time.perf_counter()
    subprocess.run([G, "attach", mesh, "--skeleton-from", f"{d}/skel.json", "--out", d, "--format", "json"],
                   check=True, capture_output=True)
    g_wall = time.perf_counter() - t0
    grig = f"{d}/{name}.rig.json"
    r = subprocess.run(["blender", "-b", "--factory-startup", "--python", os.path.join(HERE, "blender_auto_weights.py"), "--",
                        mesh, grig, f"{d}/bl.json"], capture_output=True, text=True)
    bl = json.load(open(f"{d}/bl.json"))
    heat_fail = "failed to find solution" in r.stdout
    # Blender vertex -> file vertex by position (float32 in Blender)
    fv = obj_vertices(mesh)
    ext = max(max(v[a] for v in fv) - min(v[a] for v in fv) for a in range(3))
    key = lambda p: tuple(round(x / ext * 1e5) for x in p)
    index = {}
    for i, p in enumerate(bl["positions"]):
        index.setdefault(key(p), i)
    rig = json.load(open(grig))
    rows, missing = [], 0
    for p in fv:
        i = index.get(key(p))
        if i is None:
            missing += 1
            rows.append([])
        else:
            rows.append(bl["weights"][i])
    rig["skin"] = rows
    brig = f"{d}/{name}.blender.rig.json"
    json.dump(rig, open(brig, "w"))
    sg, sb = score(grig, truth, mesh), score(brig, truth, mesh)
    def pick(s):
        k = s.get("skin") or {}
        return {x: k.get(x) for x in ("deform_mean_pct", "deform_p95_pct", "precision", "recall", "l1_mean")} if k else s
    unweighted_g = sum(1 for r in json.load(open(grig))["skin"] if not r)
    print(json.dumps({"mesh": name, "V": len(fv), "geppetto_wall_s": round(g_wall, 3),
                      "blender_op_s": round(bl["op_seconds"], 3), "blender_unweighted": bl["unweighted"],
                      "blender_heat_failed": heat_fail, "unmatched": missing,
                      "geppetto_unweighted": unweighted_g, "geppetto": pick(sg), "blender": pick(sb)}))
    sys.stdout.flush()
