#!/bin/bash
# Reproduces the "Skinned glTFs rigged at their bind pose" table in bench/results.md.
# Source: Debian package castle-game-engine-doc 7.0~alpha.2+dfsg1-5 (GPL-2+ / LGPL-2+ with the
# static-linking exception; the knight is opengameart "animated-knight", CC-BY 3.0 / CC-BY-SA 3.0 / GPL):
#   apt-get download castle-game-engine-doc && dpkg-deb -x castle-game-engine-doc_*.deb x
# Usage: bindpose_cge.sh GEPPETTO_BINARY EXAMPLES_DIR OUTDIR
#   EXAMPLES_DIR = x/usr/share/doc/castle-game-engine-doc/examples
# For each character: rig (json,glb,png), score against the glTF itself (read at the binary's
# pose), attach with the glTF's own skeleton, score again. Files are read in place, never copied.
B=$1; E=$2; O=$3; mkdir -p "$O"
for f in fps_game/data/knight_creature/knight.gltf creature_behaviors/data/enemy/soldier1.gltf \
         fps_game/data/avatar/avatar.gltf \
         animations/expose_transformations_to_animate_children/data/humanoid/humanoid.gltf; do
  m="$E/$f"; n=$(basename "$f" .gltf)
  "$B" rig "$m" --out "$O/rig" --format json,glb,png --no-timings > "$O/$n.rig.log" 2>&1
  "$B" score "$O/rig/$n.rig.json" "$m" --json > "$O/$n.score.json"
  "$B" attach "$m" --skeleton-from "$m" --out "$O/att" --format json,glb > "$O/$n.att.log" 2>&1
  "$B" score "$O/att/$n.rig.json" "$m" --json > "$O/$n.attscore.json"
done
