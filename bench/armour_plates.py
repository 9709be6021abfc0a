#!/usr/bin/env python3
# Issue 16 (bench/results.md, "round 2"): a synthetic armoured character for the open-mesh field.
# usage: armour_plates.py BODY.obj OUT.obj N [nobody] [open]
# Synthetic "armoured" character: a closed body (sveta) plus N open plates, each a patch of the
# body's surface (k-means on triangle centroids) pushed out along the vertex normals by 1.5% of extent.
# Without `open`, adjacent plates copy the same body vertices with the same offset: the loader welds
# those coincident copies and the plates become ONE closed offset shell (not open parts at all).
# With `open`, each plate is also shrunk toward its own centroid by SHRINK, so no two plates share a
# vertex position: N truly open shells with gaps between them (issue 16's armoured soldier).
import sys, math, random
src, out, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
flags = set(sys.argv[4:])
keep_body = "nobody" not in flags
open_plates = "open" in flags
# Share of each plate's size kept when shrinking (gap between neighbours ~ 2 * 4 % of a plate).
SHRINK = 0.92
V=[];F=[]
for line in open(src):
    s=line.split()
    if not s: continue
    if s[0]=='v': V.append(tuple(map(float,s[1:4])))
    elif s[0]=='f':
        idx=[int(t.split('/')[0]) for t in s[1:]]
        idx=[i-1 if i>0 else len(V)+i for i in idx]
        for k in range(1,len(idx)-1): F.append((idx[0],idx[k],idx[k+1]))
ext=max(max(v[a] for v in V)-min(v[a] for v in V) for a in range(3))
N_=[[0.0,0.0,0.0] for _ in V]
def sub(a,b): return (a[0]-b[0],a[1]-b[1],a[2]-b[2])
def cross(a,b): return (a[1]*b[2]-a[2]*b[1],a[2]*b[0]-a[0]*b[2],a[0]*b[1]-a[1]*b[0])
for f in F:
    n=cross(sub(V[f[1]],V[f[0]]),sub(V[f[2]],V[f[0]]))
    for i in f:
        for a in range(3): N_[i][a]+=n[a]
for n in N_:
    l=math.sqrt(sum(x*x for x in n)) or 1.0
    for a in range(3): n[a]/=l
C=[tuple(sum(V[i][a] for i in f)/3 for a in range(3)) for f in F]
random.seed(1)
cent=random.sample(C,N)
for it in range(8):
    lab=[min(range(N),key=lambda k:sum((c[a]-cent[k][a])**2 for a in range(3))) for c in C]
    acc=[[0,0,0,0] for _ in range(N)]
    for c,l in zip(C,lab):
        for a in range(3): acc[l][a]+=c[a]
        acc[l][3]+=1
    cent=[tuple(acc[k][a]/acc[k][3] for a in range(3)) if acc[k][3] else cent[k] for k in range(N)]
outV=list(V) if keep_body else []
outF=list(F) if keep_body else []
off=0.015*ext
for k in range(N):
    tris=[f for f,l in zip(F,lab) if l==k]
    m={}
    first=len(outV)
    for f in tris:
        nf=[]
        for i in f:
            if i not in m:
                m[i]=len(outV)
                outV.append(tuple(V[i][a]+off*N_[i][a] for a in range(3)))
            nf.append(m[i])
        outF.append(tuple(nf))
    if open_plates and len(outV)>first:
        c=[sum(v[a] for v in outV[first:])/(len(outV)-first) for a in range(3)]
        for j in range(first,len(outV)):
            outV[j]=tuple(c[a]+SHRINK*(outV[j][a]-c[a]) for a in range(3))
with open(out,'w') as fo:
    for v in outV: fo.write("v %.6f %.6f %.6f\n"%v)
    for f in outF: fo.write("f %d %d %d\n"%(f[0]+1,f[1]+1,f[2]+1))
print(len(outV),len(outF))
