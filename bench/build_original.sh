#!/bin/bash
# Build the original Pinocchio (Baran & Popović 2007, source release 1.0) headless, for
# bench/side_by_side.sh. See bench/ORIGINAL.md for where the source comes from and why each flag.
#
# Usage: bench/build_original.sh SRC [OUT]
#   SRC  a checkout of github.com/pmolodo/Pinocchio at d5de084e0668e18e50aac01bdd0d8c3d77b8e6f0
#        (needs SRC/Pinocchio/*.cpp, *.h and SRC/DemoUI/processor.cpp)
#   OUT  build folder (default SRC/headless); the binary is OUT/pinocchio_demo
#
# The library is compiled as its Makefile does (g++ -c -O3 -Wall -fPIC, linked into
# libpinocchio.so). The demo's process() is taken from SRC/DemoUI/processor.cpp by deleting its
# FLTK display calls only (the window is not needed to rig); nothing of the algorithm is edited.
set -eu
SRC=$(realpath "${1:?usage: bench/build_original.sh SRC [OUT]}")
OUT=$(realpath -m "${2:-$SRC/headless}")
[ -f "$SRC/Pinocchio/pinocchioApi.cpp" ] && [ -f "$SRC/DemoUI/processor.cpp" ] \
    || { echo "build_original: $SRC has no Pinocchio/pinocchioApi.cpp or DemoUI/processor.cpp" >&2; exit 2; }
mkdir -p "$OUT"

# The release Makefile's flags, plus two that let g++ >= 4.7 accept 2007-era C++ unchanged:
# -fno-access-control (a friend declaration inside namespace _VectorPrivate no longer names
# ::Vector) and -fpermissive (an unqualified call to a dependent base's setValue in quaddisttree.h).
CXXFLAGS="-O3 -Wall -fno-access-control -fpermissive"
# The Makefile's OBJECTS minus matrix.o (dense matrices / eigenvectors for the demo's motion
# filter; autorig never calls it).
OBJECTS="attachment discretization indexer lsqSolver mesh graphutils intersector skeleton embedding pinocchioApi refinement"

for o in $OBJECTS; do
    g++ -c $CXXFLAGS -fPIC "$SRC/Pinocchio/$o.cpp" -o "$OUT/$o.o" 2> "$OUT/$o.log" \
        || { cat "$OUT/$o.log" >&2; exit 1; }
done
( cd "$OUT" && g++ $(for o in $OBJECTS; do echo "$o.o"; done) -lm -shared -fPIC -o libpinocchio.so )

# Headless demo: processor.cpp with the display removed, plus a main() that passes argv.
python3 - "$SRC/DemoUI/processor.cpp" "$OUT/headless_demo.cpp" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
def cut(pattern, repl, text, count=1):
    new, n = re.subn(pattern, repl, text, count=count, flags=re.S)
    if n != count:
        sys.exit("build_original: processor.cpp does not match the 1.0 release (%r)" % pattern)
    return new
src = cut(r'#include <FL/fl_ask\.H>\n', '#include <cstdio>\n#include <cstdlib>\n#include <cmath>\n', src)
src = cut(r'#include "processor\.h"\n', '', src)
src = cut(r'#include "defmesh\.h"\n#include "motion\.h"\n', '', src)
src = cut(r'#include "\.\./Pinocchio/', '#include "', src, count=5)
src = cut(r'void process\(const vector<string> &args, MyWindow \*w\)', 'void process(const vector<string> &args)', src)
src = cut(r'        w->addMesh\(new StaticDisplayMesh\(m\)\);\n        return;', '        return; //display removed', src)
# the display block after the embedding: the motion viewer or the static mesh with skeleton lines
src = cut(r'    if\(a\.motionname\.size\(\) > 0\) \{\n.*?\n    \}\n    else \{\n.*?\n    \}\n\n    //output skeleton embedding',
          '    //(display removed)\n\n    //output skeleton embedding', src)
if 'w->' in src:
    sys.exit("build_original: a display call is left in processor.cpp")
src += '\nint main(int argc, char **argv)\n{\n    vector<string> args(argv, argv + argc);\n    process(args);\n    return 0;\n}\n'
open(sys.argv[2], 'w').write(src)
PY
g++ -c $CXXFLAGS -I"$SRC/Pinocchio" "$OUT/headless_demo.cpp" -o "$OUT/headless_demo.o" 2> "$OUT/headless_demo.log" \
    || { cat "$OUT/headless_demo.log" >&2; exit 1; }
g++ "$OUT/headless_demo.o" -lm -L"$OUT" -lpinocchio -Wl,-rpath,"$OUT" -o "$OUT/pinocchio_demo"
echo "$OUT/pinocchio_demo"
