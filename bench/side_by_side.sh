#!/bin/bash
# Geppetto vs the original Pinocchio (Baran & Popović 2007), side by side on one machine (issue 16).
#
# Whole process, both programs alternating (G O G O G O: one pair per round), wall time, CPU time and
# peak RSS per run; the table reports the median of the pairs and the ratio original / Geppetto. Both programs
# get the same mesh file and the same job: the human or quadruped template in the same orientation;
# Geppetto writes its default outputs (rig.json + GLB), the original writes skeleton.out +
# attachment.out as its demo does. How to build the original: bench/ORIGINAL.md.
#
# Usage:
#   ORIGINAL_PINOCCHIO=/path/to/pinocchio_demo bench/side_by_side.sh [options]
# Options:
#   --set table|unseen|all   built-in mesh lists (default all): `table` = the eight meshes of issue 16's
#                            table; `unseen` = eleven corpus meshes outside it, five of which the original
#                            cannot read (the project's tests have seen the corpus: for meshes it has
#                            never seen, use --list)
#   --list FILE              instead of the built-in lists: lines `MESH TEMPLATE [ORIENTATION]`
#                            (MESH a path, or a corpus name; TEMPLATE human|quadruped; ORIENTATION as
#                            Geppetto's --orientation, e.g. `+z,+y` = mesh +Z is up, +Y is forward;
#                            the matching -rot is passed to the original)
#   --pairs N                pairs per mesh (default 3)
#   --bin PATH               Geppetto binary (default target/release/geppetto; build with --release)
#   --timeout S              per-run limit in seconds (default 600)
# Env: GEPPETTO_CORPUS (default /work/shared/corpus), TMPDIR.
# Output: progress on stderr, a markdown report on stdout. Needs bash, GNU time (/usr/bin/time),
# timeout, awk, python3.
set -u

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

ORIG=${ORIGINAL_PINOCCHIO:-}
BIN=target/release/geppetto
PAIRS=3
SET=all
LIST=
TIMEOUT=600
while [ $# -gt 0 ]; do
    case "$1" in
        --set) SET=$2; shift 2 ;;
        --list) LIST=$2; shift 2 ;;
        --pairs) PAIRS=$2; shift 2 ;;
        --bin) BIN=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        -h|--help) usage 0 ;;
        *) echo "side_by_side: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
done
CORPUS=${GEPPETTO_CORPUS:-/work/shared/corpus}
if [ -z "$ORIG" ] || [ ! -x "$ORIG" ]; then
    echo "side_by_side: set ORIGINAL_PINOCCHIO to the original's headless demo binary (see bench/ORIGINAL.md)" >&2
    exit 2
fi
[ -x "$BIN" ] || { echo "side_by_side: no Geppetto binary at $BIN (cargo build --release)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "side_by_side: needs GNU time at /usr/bin/time" >&2; exit 2; }
BIN=$(realpath "$BIN"); ORIG=$(realpath "$ORIG")
case "$PAIRS" in ''|*[!0-9]*|0) echo "side_by_side: --pairs needs a positive integer" >&2; exit 2 ;; esac

# The eight meshes of issue 16's table, and meshes outside it. Orientation column: Geppetto's
# --orientation (up,forward in mesh axes); `default` = +Y up, facing +Z, which is also the original's
# assumption (its demo's -rot option turns other meshes into that frame).
TABLE_SET="riggedfigure human
fox quadruped
knight human
smpl_man human
cheburashka human
sveta human
spot quadruped
koala quadruped"
UNSEEN_SET="camel quadruped
horse_quad quadruped +y,-x
monster quadruped
human_blend human +z,+y
horse_md2 quadruped +y,-x
scorpion quadruped
cow_igl quadruped +y,+x
bcn_epileptic human
turtle quadruped
sydney human
rignet_8330 human"
if [ -n "$LIST" ]; then
    ENTRIES=$(grep -v '^[[:space:]]*\(#\|$\)' "$LIST") || { echo "side_by_side: no entries in $LIST" >&2; exit 2; }
else
    case "$SET" in
        table) ENTRIES=$TABLE_SET ;;
        unseen) ENTRIES=$UNSEEN_SET ;;
        all) ENTRIES="$TABLE_SET
$UNSEEN_SET" ;;
        *) echo "side_by_side: --set must be table, unseen or all" >&2; exit 2 ;;
    esac
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/side_by_side.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

load1() { cut -d' ' -f1 /proc/loadavg; }

# The original's -rot (axis x y z, degrees) that takes Geppetto's `up,forward` orientation to
# +Y up / +Z forward: the rotation whose rows are (up x forward, up, forward).
orig_rot() {
    python3 - "$1" <<'PY'
import math, sys
spec = sys.argv[1]
if spec == "default":
    sys.exit(0)
def axis(s):
    v = [0.0, 0.0, 0.0]; v["xyz".index(s[1])] = -1.0 if s[0] == "-" else 1.0; return v
u, f = (axis(s) for s in spec.split(","))
x = [u[1]*f[2]-u[2]*f[1], u[2]*f[0]-u[0]*f[2], u[0]*f[1]-u[1]*f[0]]
R = [x, u, f]
tr = R[0][0] + R[1][1] + R[2][2]
ang = math.acos(max(-1.0, min(1.0, (tr - 1) / 2)))
if abs(ang) < 1e-9:
    sys.exit(0)
if abs(ang - math.pi) < 1e-9:  # 180 degrees: axis from (R + I) / 2
    k = max(range(3), key=lambda i: R[i][i])
    a = [(R[k][j] + (1 if j == k else 0)) / 2 for j in range(3)]
else:
    a = [R[2][1]-R[1][2], R[0][2]-R[2][0], R[1][0]-R[0][1]]
n = math.sqrt(sum(c*c for c in a))
print("-rot %g %g %g %g" % (a[0]/n, a[1]/n, a[2]/n, math.degrees(ang)))
PY
}

# The original's OBJ reader wants `v x y z` (exactly three numbers), positive indices and at most
# 14 corners per face. A file that breaks these is rewritten once into $WORK and both programs read
# the rewritten file.
prepare_mesh() {
    local src=$1 name=$2
    case "$src" in
        *.obj) ;;
        *.off|*.ply) echo "$src"; return ;;
        *) echo "side_by_side: $src: give the mesh as .obj, .off or .ply (the original reads no other format)" >&2; return 1 ;;
    esac
    if awk '$1=="v" && NF!=4 {bad=1} $1=="f" && (NF>15 || $0 ~ / -[0-9]/) {bad=1} END{exit bad?0:1}' "$src"; then
        local out=$WORK/$name.obj
        awk '$1=="v" {nv++; print "v", $2, $3, $4; next}
             $1=="f" {n=NF-1; for (i=2;i<=NF;i++) {split($i,p,"/"); k=p[1]+0; idx[i-1]=(k<0)?nv+1+k:k}
                      for (j=3;j<=n;j++) print "f", idx[1], idx[j-1], idx[j]; next}' "$src" > "$out"
        echo "side_by_side: $src rewritten to $out (three-number vertices, positive indices, triangles)" >&2
        echo "$out"
    else
        echo "$src"
    fi
}

# run_timed DIR CMD... -> "WALL_MS PEAK_RSS_KB EXIT_CODE CPU_MS" (stdout+stderr of CMD in DIR/.log);
# CPU = user + system time of the process and its children (the original uses one core, Geppetto
# up to all: on a loaded machine wall-time ratios shrink while CPU ratios hold).
run_timed() {
    local dir=$1; shift
    local t0 t1 rc
    t0=$(date +%s%N)
    ( cd "$dir" && /usr/bin/time -f "%M %U %S" -o "$dir/.rss" timeout "$TIMEOUT" "$@" < /dev/null > "$dir/.log" 2>&1 )
    rc=$?
    t1=$(date +%s%N)
    read -r kb user sys < <(tail -n 1 "$dir/.rss")
    echo "$(( (t1 - t0) / 1000000 )) $kb $rc $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%d", (u + s) * 1000}')"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END{if (NR==0) print ""; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
fmt_s() { [ -n "$1" ] && awk -v m="$1" 'BEGIN{printf "%.3f s", m/1000}'; }
fmt_mb() { [ -n "$1" ] && awk -v k="$1" 'BEGIN{printf "%.0f", k/1024}'; }

orig_failure() {  # why the original's run in DIR failed, from its exit code and log
    local dir=$1 rc=$2
    if [ "$rc" = 124 ]; then echo "timeout (${TIMEOUT} s)"; return; fi
    if [ "$rc" -ge 128 ] 2>/dev/null; then echo "crashed (signal $((rc - 128)))"; return; fi
    local why
    why=$(grep -m1 -E 'duplicate edge|Bad mesh|No Match|Error embedding|Error reading|Error on line|invalid vertex' "$dir/.log")
    echo "${why:-exit $rc, no skeleton.out}"
}

# Median distance from each of the original's joints to the nearest Geppetto joint, in % of the
# mesh's bounding-box diagonal: a check that both programs embedded a skeleton in the same places.
agreement() {
    python3 - "$@" <<'PY'
import json, math, sys
skel, rigjson, spec = sys.argv[1:4]
rig = json.load(open(rigjson))
ours = [j["position"] for j in rig.get("joints", [])]
lo, hi = rig["bbox"]
diag = math.dist(lo, hi)
R = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
if spec != "default":
    def axis(s):
        v = [0.0] * 3; v["xyz".index(s[1])] = -1.0 if s[0] == "-" else 1.0; return v
    u, f = (axis(s) for s in spec.split(","))
    R = [[u[1]*f[2]-u[2]*f[1], u[2]*f[0]-u[0]*f[2], u[0]*f[1]-u[1]*f[0]], u, f]
orig = []
for line in open(skel):
    w = line.split()
    if len(w) >= 4:
        p = [float(c) for c in w[1:4]]  # in the rotated frame: back to the mesh's frame with R^T
        orig.append([sum(R[r][c] * p[r] for r in range(3)) for c in range(3)])
if not orig or not ours or diag <= 0:
    print("n/a"); sys.exit(0)
d = sorted(min(math.dist(o, g) for g in ours) for o in orig)
print("%.1f %%" % (100 * d[len(d) // 2] / diag))
PY
}

REPORT=$WORK/report.md
{
    echo "Side by side: Geppetto \`$(basename "$BIN")\` ($(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')) vs the original \`$ORIG\`"
    echo "on $(hostname), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M') UTC, $PAIRS alternating pairs per mesh (Geppetto first), whole process;"
    echo "median wall time, ratio = original / Geppetto; CPU = median user+system time; peak RSS = max over the runs;"
    echo "load = 1-min load average before / after the mesh."
    echo
    echo "| mesh | V | template | Geppetto | original | ratio | CPU s G / O (ratio) | RSS MB G / O | joints apart | Geppetto status | load |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$REPORT"
RAW=$WORK/raw.md
echo "Raw times (ms), Geppetto / original per pair:" > "$RAW"

# Warm the page cache for both programs once (untimed), so the first mesh is not charged for it.
WARM=$WORK/warm; mkdir -p "$WARM"
( cd "$WARM" && timeout 60 "$ORIG" "$CORPUS/meshes/riggedfigure.obj" > /dev/null 2>&1;
  timeout 60 "$BIN" rig "$CORPUS/meshes/riggedfigure.obj" --skeleton human --no-timings --out "$WARM/g" > /dev/null 2>&1 ) || true

while read -r mesh template orient; do
    [ -z "$mesh" ] && continue
    orient=${orient:-default}
    case "$mesh" in
        */*|*.obj|*.off|*.ply) src=$mesh; name=$(basename "${mesh%.*}") ;;
        *) src=$CORPUS/meshes/$mesh.obj; name=$mesh ;;
    esac
    case "$template" in
        human) oskel=human ;;
        quadruped) oskel=quad ;;
        *) echo "side_by_side: $name: template must be human or quadruped (the original has no other of ours)" >&2; continue ;;
    esac
    [ -f "$src" ] || { echo "side_by_side: $src: no such file" >&2; continue; }
    file=$(prepare_mesh "$src" "$name") || continue
    rot=$(orig_rot "$orient")
    verts=$(awk -F'\t' -v n="$name" '$1==n {print $2}' "$CORPUS/MANIFEST.tsv" 2>/dev/null)
    [ -n "$verts" ] || verts=$(grep -c '^v ' "$file" 2>/dev/null || echo '?')
    gdir=$WORK/g/$name; odir=$WORK/o/$name; mkdir -p "$gdir" "$odir"
    cat "$file" > /dev/null
    l0=$(load1)
    gt=""; ot=""; gc=""; oc=""; grss=0; orss=0; ofail=""; gfail=""; raw=""
    for i in $(seq 1 "$PAIRS"); do
        rm -rf "$gdir/out"
        read -r ms kb rc cpu < <(run_timed "$gdir" "$BIN" rig "$file" --skeleton "$template" --orientation "$orient" --no-timings --out "$gdir/out")
        if [ "$rc" = 0 ] && [ -f "$gdir/out/$name.rig.json" ]; then
            gt="$gt $ms"; gc="$gc $cpu"; [ "$kb" -gt "$grss" ] && grss=$kb
        else
            gfail="exit $rc: $(grep -m1 -iE 'error|fail' "$gdir/.log")"; ms="${ms}(failed)"
        fi
        if [ -z "$ofail" ]; then
            rm -f "$odir/skeleton.out" "$odir/attachment.out"
            # shellcheck disable=SC2086  # $rot is several words on purpose
            read -r oms okb orc ocpu < <(run_timed "$odir" "$ORIG" "$file" -skel "$oskel" $rot)
            if [ "$orc" = 0 ] && [ -s "$odir/skeleton.out" ]; then
                ot="$ot $oms"; oc="$oc $ocpu"; [ "$okb" -gt "$orss" ] && orss=$okb
            else
                ofail=$(orig_failure "$odir" "$orc"); oms="${oms}(failed)"
            fi
        else
            oms="-"
        fi
        raw="$raw $ms/$oms"
        echo "side_by_side: $name pair $i: Geppetto ${ms} ms, original ${oms} ms" >&2
    done
    l1=$(load1)
    gmed=$(echo "$gt" | median); omed=$(echo "$ot" | median)
    gcpu=$(echo "$gc" | median); ocpu=$(echo "$oc" | median)
    cpucol="-"
    if [ -n "$gcpu" ] && [ -n "$ocpu" ] && [ -z "$ofail" ]; then
        cpucol=$(awk -v o="$ocpu" -v g="$gcpu" 'BEGIN{printf "%.2f / %.2f (%.1f×)", g/1000, o/1000, (g > 0 ? o/g : 0)}')
    fi
    gcol=$(fmt_s "$gmed"); ocol=$(fmt_s "$omed")
    [ -n "$gfail" ] && [ -z "$gmed" ] && gcol="fails: $gfail"
    [ -n "$ofail" ] && ocol="fails: $ofail"
    ratio="-"
    if [ -n "$gmed" ] && [ -n "$omed" ] && [ -z "$ofail" ]; then
        ratio=$(awk -v o="$omed" -v g="$gmed" 'BEGIN{printf "%.1f×", o/g}')
    fi
    apart="-"; status="-"
    if [ -f "$gdir/out/$name.rig.json" ]; then
        status=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("status","?"))' "$gdir/out/$name.rig.json")
        [ -s "$odir/skeleton.out" ] && apart=$(agreement "$odir/skeleton.out" "$gdir/out/$name.rig.json" "$orient")
    fi
    rss="$(fmt_mb "$grss") / $( [ "$orss" -gt 0 ] && fmt_mb "$orss" || echo -)"
    tmpl=$template; [ "$orient" != default ] && tmpl="$template ($orient)"
    echo "| $name | $verts | $tmpl | $gcol | $ocol | $ratio | $cpucol | $rss | $apart | $status | $l0 / $l1 |" >> "$REPORT"
    echo "- $name:$raw" >> "$RAW"
done <<< "$ENTRIES"

cat "$REPORT"
echo
cat "$RAW"
