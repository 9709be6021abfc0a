#!/bin/bash
# Key-to-frame latency of the watch UI (issue 13 §3), in-process via GEPPETTO_TUI_TRACE:
# idle (sveta rigged), playing (Space), playing while the watcher rigs copies of fox and knight.
# Default settings (no --protocol) in a 160x48 tmux; meshes are copied to a temp folder.
# Usage: bench/key_latency.sh [BIN]  (default target/release/geppetto); trace in $TMPDIR/geppetto-lat/
set -u
C=${GEPPETTO_CORPUS:-/work/shared/corpus}/meshes
D=${TMPDIR:-/tmp}/geppetto-lat
W=$D/watch; rm -rf $W; mkdir -p $W
cp $C/sveta.obj $W/
T=$D/trace.tsv; rm -f $T
S=lat$$
BIN=$(realpath ${1:-target/release/geppetto})
tmux -L $S new-session -d -s m -x 160 -y 48 "GEPPETTO_TUI_TRACE=$T $BIN watch $W; echo EXIT:\$?; sleep 30"
k(){ tmux -L $S send-keys -t m "$@"; sleep 0.2; }
# wait for sveta rigged
for i in $(seq 1 120); do tmux -L $S capture-pane -p -t m | grep -q "sveta.*ok\|sveta.*✓\|sveta.*low" && break; sleep 1; done
tmux -L $S capture-pane -p -t m | head -8
sleep 2
echo "== idle"
for i in $(seq 1 10); do k Down; k Up; k Tab; k BTab; k PageDown; k PageUp; done
echo "== playing"
k Space; sleep 2
for i in $(seq 1 10); do k Tab; k BTab; k PageDown; k PageUp; done
echo "== playing+rigging"
for i in $(seq 1 12); do cp $C/fox.obj $W/fox_$i.obj; cp $C/knight.obj $W/knight_$i.obj; k Tab; k BTab; k PageDown; k PageUp; done
k Space; k Space
tmux -L $S capture-pane -p -t m | head -12
k q; for i in $(seq 1 30); do tmux -L $S capture-pane -p -t m | grep EXIT && break; sleep 1; done
tmux -L $S kill-server
# Summary per situation: playing and jobs are as of the frame that showed the key.
python3 - "$T" <<'PY'
import statistics as st, sys
groups = {}
for line in open(sys.argv[1]).read().splitlines()[1:]:
    k, ms, playing, jobs = line.split('\t')
    g = ('playing' if playing == 'true' else 'not playing') + (' + rigging' if int(jobs) else '')
    groups.setdefault(g, []).append(float(ms))
for g, v in sorted(groups.items()):
    v.sort(); n = len(v)
    print(f"{g}: {n} keys, median {st.median(v):.2f} ms, p90 {v[min(n - 1, int(0.9 * n))]:.2f} ms, max {v[-1]:.2f} ms")
PY
