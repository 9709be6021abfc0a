#!/usr/bin/env bash
# Build the held-out set: download the pinned PyPI wheels, install Panda3D into a
# venv, convert every character with Panda3D's own loader (p3d_extract.py).
#
#   bench/heldout/fetch.sh DEST
#
# DEST/wheels  the two wheels (pip download --no-deps)
# DEST/venv    a venv with panda3d installed from that wheel (its loader reads .bam/.egg)
# DEST/src     the 11 source models (checked against sources.sha256)
# DEST/set     NAME.obj + NAME.truth.json per character (corpus format), and names.txt
#
# Needs python3 (3.8-3.13: panda3d 1.10.16 ships wheels for those) and PyPI.
# Nothing here is used by cargo test or .ci/run. Idempotent: re-running rebuilds DEST/set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: fetch.sh DEST}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
PY=${PYTHON:-python3}

PANDA3D=panda3d==1.10.16
ASSETCOOP=panda3d-assetcoop==0.15
# The ten characters of panda3d-assetcoop 0.15 (bam/models/character/), and panda3d's panda.
CHARACTERS="abbot flying_pajama_man hud_hand lowpoly_human_shapes nobody peter_panda
plain_humanoid_base polyimpairedperson rebecca sofia"

mkdir -p "$dest/wheels" "$dest/src" "$dest/set"
"$PY" -m pip download --quiet --no-deps -d "$dest/wheels" "$PANDA3D" "$ASSETCOOP"
if [ ! -x "$dest/venv/bin/python" ]; then
  "$PY" -m venv "$dest/venv"
fi
"$dest/venv/bin/python" -m pip install --quiet --no-deps --no-index "$dest"/wheels/panda3d-1.10.16-*.whl

# The assetcoop wheel is a zip; its models are read in place, not installed.
"$dest/venv/bin/python" - "$dest" $CHARACTERS <<'PY'
import glob, os, shutil, sys, zipfile
dest, names = sys.argv[1], sys.argv[2:]
whl = glob.glob(os.path.join(dest, 'wheels', 'panda3d_assetcoop-0.15-*.whl'))[0]
with zipfile.ZipFile(whl) as z:
    for n in names:
        with z.open(f'assetcoop/bam/models/character/{n}.bam') as src, \
             open(os.path.join(dest, 'src', n + '.bam'), 'wb') as out:
            shutil.copyfileobj(src, out)
import panda3d
shutil.copy(os.path.join(os.path.dirname(panda3d.__file__), 'models', 'panda-model.egg.pz'),
            os.path.join(dest, 'src', 'panda-model.egg.pz'))
PY
(cd "$dest" && sha256sum --quiet -c "$here/sources.sha256")

models=()
for n in $CHARACTERS; do models+=("$dest/src/$n.bam"); done
models+=("$dest/src/panda-model.egg.pz")
"$dest/venv/bin/python" "$here/p3d_extract.py" "${models[@]}" --out "$dest/set"
(cd "$dest/set" && ls *.truth.json | sed 's/\.truth\.json$//' > names.txt)
echo "held-out set: $dest/set ($(wc -l < "$dest/set/names.txt") characters)"
