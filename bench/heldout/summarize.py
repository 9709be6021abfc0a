#!/usr/bin/env python3
"""One markdown table of a run.sh output folder: per character the rig's status,
method, CD-J2J and side agreement, and attach's skin figures on the artist skeleton;
then the medians and the count above issue 12's bounds.

Usage: python3 summarize.py OUT [NAME ...]   (default: every OUT/rig/*.score.json)
Standard library only.
"""
import json
import os
import statistics
import sys

# Issue 12's targets on held-out artist rigs.
J2J_MEDIAN, J2J_MAX = 4.0, 8.0
DEFORM_MEDIAN, DEFORM_MAX, PRECISION, RECALL = 0.45, 0.8, 0.75, 0.85


def read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def row(out, name):
    rig = read(os.path.join(out, 'rig', name + '.rig.json')) or {}
    score = read(os.path.join(out, 'rig', name + '.score.json')) or {}
    att = (read(os.path.join(out, 'attach', name + '.score.json')) or {}).get('skin') or {}
    method = rig.get('method', '—')
    if rig.get('skeleton') and rig['skeleton'] != method:
        method += ' ' + rig['skeleton']
    sides = score.get('sides') or {}
    return {
        'name': name,
        'status': rig.get('status', 'failed'),
        'method': method,
        'j2j': (score.get('joints') or {}).get('cd_j2j'),
        'sides': f"{sides['agree']}/{sides['compared']}" if sides.get('compared') else '—',
        'deform': att.get('deform_mean_pct'),
        'p95': att.get('deform_p95_pct'),
        'precision': att.get('precision'),
        'recall': att.get('recall'),
        'l1': att.get('l1_mean'),
    }


def fmt(x, digits):
    return '—' if x is None else f'{x:.{digits}f}'


def median(rows, key):
    xs = [r[key] for r in rows if r[key] is not None]
    return statistics.median(xs) if xs else None


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or sorted(f[:-len('.score.json')] for f in
                                   os.listdir(os.path.join(out, 'rig')) if f.endswith('.score.json'))
    rows = [row(out, n) for n in names]
    print('| mesh | status | method | CD-J2J % | sides | deform mean % | p95 % | precision | recall | L1 |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for r in sorted(rows, key=lambda r: (r['j2j'] is None, r['j2j'] or 0)):
        print(f"| {r['name']} | {r['status']} | {r['method']} | {fmt(r['j2j'], 2)} | {r['sides']} | "
              f"{fmt(r['deform'], 4)} | {fmt(r['p95'], 3)} | {fmt(r['precision'], 3)} | "
              f"{fmt(r['recall'], 3)} | {fmt(r['l1'], 3)} |")
    above = [f"{r['name']} {r['j2j']:.2f}" for r in rows if r['j2j'] is not None and r['j2j'] > J2J_MAX]
    worst = max((r for r in rows if r['deform'] is not None), key=lambda r: r['deform'], default=None)
    print()
    print(f"- joints ({sum(r['j2j'] is not None for r in rows)} scored): median CD-J2J "
          f"{fmt(median(rows, 'j2j'), 2)} % (target <= {J2J_MEDIAN}); above {J2J_MAX} %: "
          f"{len(above)}{' (' + ', '.join(above) + ')' if above else ''}; "
          f"low_confidence: {sum(r['status'] == 'low_confidence' for r in rows)}")
    if worst:
        print(f"- skin via attach ({sum(r['deform'] is not None for r in rows)} scored): deformation "
              f"median {fmt(median(rows, 'deform'), 4)} % (target <= {DEFORM_MEDIAN}), worst "
              f"{worst['deform']:.4f} % {worst['name']} (<= {DEFORM_MAX}); precision median "
              f"{fmt(median(rows, 'precision'), 3)} (>= {PRECISION}); recall median "
              f"{fmt(median(rows, 'recall'), 3)} (>= {RECALL}); L1 median {fmt(median(rows, 'l1'), 3)}")


if __name__ == '__main__':
    main()
