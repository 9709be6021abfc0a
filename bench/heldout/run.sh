#!/usr/bin/env bash
# Rig, attach and score every character of the held-out set with one geppetto binary.
#
#   bench/heldout/run.sh BIN DEST OUT
#
# BIN   a geppetto binary (e.g. target/release/geppetto)
# DEST  the folder fetch.sh filled (reads DEST/set/names.txt, NAME.obj, NAME.truth.json)
# OUT   output folder: OUT/rig/NAME.{rig.json,png,score.json,log},
#       OUT/attach/NAME.{rig.json,png,score.json,log}, OUT/summary.md
#
# Joints: `rig MESH` with the defaults, scored against the artist rig (CD-J2J etc.).
# Skin: `attach MESH --skeleton-from TRUTH` (the artist's skeleton; the truth JSON's own
# skin marks the joints it never uses as end markers, as for a user's rigged file), then
# `score` against the same truth: deformation over 20 seeded poses <= 30 deg, precision and
# recall at weight >= 0.05, L1. Serial on purpose: timings are not the point, and the
# machine is shared. Set ONLY="a b" to run a subset.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: run.sh BIN DEST OUT}
set_dir=${2:?usage: run.sh BIN DEST OUT}/set
out=${3:?usage: run.sh BIN DEST OUT}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out/rig" "$out/attach"
names=${ONLY:-$(cat "$set_dir/names.txt")}
for n in $names; do
  mesh=$set_dir/$n.obj truth=$set_dir/$n.truth.json
  if "$bin" rig "$mesh" --out "$out/rig" --format json,png --no-timings >"$out/rig/$n.log" 2>&1; then
    "$bin" score "$out/rig/$n.rig.json" "$truth" --json >"$out/rig/$n.score.json" 2>>"$out/rig/$n.log" || true
  fi
  if "$bin" attach "$mesh" --skeleton-from "$truth" --out "$out/attach" --format json,png \
      >"$out/attach/$n.log" 2>&1; then
    "$bin" score "$out/attach/$n.rig.json" "$truth" --json >"$out/attach/$n.score.json" \
      2>>"$out/attach/$n.log" || true
  fi
  echo "$n done" >&2
done
python3 "$here/summarize.py" "$out" $names | tee "$out/summary.md"
