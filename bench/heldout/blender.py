#!/usr/bin/env python3
"""Blender's Automatic Weights (bone heat) on the held-out set, as a reference for `attach`.

    python3 bench/heldout/blender.py BIN DEST OUT [NAME ...]

Needs `blender` on PATH (Debian's `blender` package, 3.4.1 here) and a finished
`run.sh BIN DEST OUT`: for each character, Blender gets the skeleton `attach` wrote
(OUT/attach/NAME.rig.json: the artist's joints; the joints the artist's skin never uses are end
markers and deform nothing, so both methods weight the same joints), through
bench/blender_auto_weights.py, with BL_LEAF=1 (a leaf joint gets a bone continuing its parent
bone by half its length, what a Blender user importing a glTF gets) and without. Blender's
vertices are matched to the OBJ's by position; a vertex Blender leaves unweighted stays at rest.
Both weight sets are scored by `BIN score` against the truth. Prints one markdown table.
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
AUTO = os.path.join(HERE, '..', 'blender_auto_weights.py')
KEYS = ('deform_mean_pct', 'precision', 'recall', 'l1_mean')


def obj_vertices(path):
    with open(path) as f:
        return [tuple(float(x) for x in l.split()[1:4]) for l in f if l.startswith('v ')]


def score(bin_, rig, truth):
    r = subprocess.run([bin_, 'score', rig, truth, '--json'], capture_output=True, text=True)
    return (json.loads(r.stdout).get('skin') or {}) if r.returncode == 0 else {}


def blender(name, set_dir, out, leaf):
    mesh, grig = f'{set_dir}/{name}.obj', f'{out}/attach/{name}.rig.json'
    tag = 'leaf' if leaf else 'noleaf'
    bl_json = f'{out}/blender/{name}.{tag}.json'
    env = dict(os.environ)
    env.pop('BL_LEAF', None)
    if leaf:
        env['BL_LEAF'] = '1'
    subprocess.run(['blender', '-b', '--factory-startup', '--python', AUTO, '--', mesh, grig, bl_json],
                   capture_output=True, text=True, env=env, check=True)
    with open(bl_json) as f:
        bl = json.load(f)
    verts = obj_vertices(mesh)
    ext = max(max(v[a] for v in verts) - min(v[a] for v in verts) for a in range(3))
    key = lambda p: tuple(round(x / ext * 1e5) for x in p)
    index = {}
    for i, p in enumerate(bl['positions']):
        index.setdefault(key(p), i)
    with open(grig) as f:
        rig = json.load(f)
    rig['skin'] = [bl['weights'][index[key(p)]] if key(p) in index else [] for p in verts]
    path = f'{out}/blender/{name}.{tag}.rig.json'
    with open(path, 'w') as f:
        json.dump(rig, f)
    return path, bl['unweighted']


def fmt(s):
    if not s:
        return '—'
    return ' / '.join('—' if s.get(k) is None else f'{s[k]:.4f}' if k == 'deform_mean_pct'
                      else f'{s[k]:.3f}' for k in KEYS)


def main():
    bin_, dest, out = sys.argv[1:4]
    set_dir = os.path.join(dest, 'set')
    names = sys.argv[4:] or open(os.path.join(set_dir, 'names.txt')).read().split()
    os.makedirs(f'{out}/blender', exist_ok=True)
    print('| mesh | attach | Blender, leaf bones | Blender, no leaf bones | Blender unweighted (leaf / no leaf) |')
    print('|---|---|---|---|---|')
    cols = {'attach': [], 'leaf': [], 'noleaf': []}
    for n in names:
        truth = f'{set_dir}/{n}.truth.json'
        ours = score(bin_, f'{out}/attach/{n}.rig.json', truth)
        (pl, ul), (pn, un) = blender(n, set_dir, out, True), blender(n, set_dir, out, False)
        sl, sn = score(bin_, pl, truth), score(bin_, pn, truth)
        for c, s in (('attach', ours), ('leaf', sl), ('noleaf', sn)):
            cols[c].append(s.get('deform_mean_pct'))
        print(f'| {n} | {fmt(ours)} | {fmt(sl)} | {fmt(sn)} | {ul} / {un} |')
    med = {c: statistics.median(x for x in v if x is not None) for c, v in cols.items()}
    print(f"\ndeformation mean % / precision / recall / L1; medians of the deformation: attach "
          f"{med['attach']:.4f}, Blender leaf bones {med['leaf']:.4f}, no leaf bones {med['noleaf']:.4f}")


if __name__ == '__main__':
    main()
