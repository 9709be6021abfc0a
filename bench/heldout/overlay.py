"""Ours and the artist's skeleton over the mesh, front and side, large (developer tool; numpy only).

    python3 bench/heldout/overlay.py NAME RIG.json OUT.png UP LAT FWD [SIZE [TRUTH.json]]

NAME: a held-out character (reads /tmp/heldout/set/NAME.obj and NAME.truth.json) or a path to an
OBJ (then pass TRUTH.json). UP LAT FWD: the mesh axes (0 = x, 1 = y, 2 = z) drawn up, across (front
view) and across (side view); e.g. `2 0 1` for a +Z-up file. SIZE: pixels per view (500). Our joints
and bones red, the artist's green; flat-shaded orthographic views, no perspective. The thumbnails
`rig --format png` writes are 160 px a view: too small to tell a knee from an edge loop.
"""
import sys,json,zlib,struct,numpy as np
n,rigp,out=sys.argv[1:4]; up,lat,fw=map(int,sys.argv[4:7])
V=[];F=[]
for l in open(f'/tmp/heldout/set/{n}.obj' if '/' not in n else n):
    s=l.split()
    if not s: continue
    if s[0]=='v': V.append([float(x) for x in s[1:4]])
    elif s[0]=='f':
        f=[int(x.split('/')[0])-1 for x in s[1:]]
        for i in range(1,len(f)-1): F.append([f[0],f[i],f[i+1]])
V=np.array(V);F=np.array(F)
lo=V.min(0);hi=V.max(0);ext=(hi-lo).max()
S=int(sys.argv[7]) if len(sys.argv)>7 else 500
def proj(P,h,v): return np.stack([(P[:,h]-lo[h])/ext*(S-20)+10,(S-10)-(P[:,v]-lo[v])/ext*(S-20)],1)
def render(h,v,d):
    img=np.zeros((S,S,3));Z=np.full((S,S),-1e9)
    P=proj(V,h,v);D=V[:,d]
    N=np.cross(V[F[:,1]]-V[F[:,0]],V[F[:,2]]-V[F[:,0]]);N/=np.linalg.norm(N,axis=1)[:,None]+1e-12
    sh=0.3+0.6*np.abs(N[:,d])
    for t,f in enumerate(F):
        p=P[f];x0,y0=np.floor(p.min(0)).astype(int);x1,y1=np.ceil(p.max(0)).astype(int)
        x0=max(x0,0);y0=max(y0,0);x1=min(x1,S-1);y1=min(y1,S-1)
        if x1<x0 or y1<y0: continue
        xs,ys=np.meshgrid(np.arange(x0,x1+1),np.arange(y0,y1+1))
        a,b,c=p;den=(b[1]-c[1])*(a[0]-c[0])+(c[0]-b[0])*(a[1]-c[1])
        if abs(den)<1e-9: continue
        w0=((b[1]-c[1])*(xs-c[0])+(c[0]-b[0])*(ys-c[1]))/den
        w1=((c[1]-a[1])*(xs-c[0])+(a[0]-c[0])*(ys-c[1]))/den
        w2=1-w0-w1;m=(w0>=0)&(w1>=0)&(w2>=0)
        z=w0*D[f[0]]+w1*D[f[1]]+w2*D[f[2]]
        yy,xx=ys[m],xs[m];zz=z[m];k=zz>Z[yy,xx]
        Z[yy[k],xx[k]]=zz[k];img[yy[k],xx[k]]=sh[t]*np.array([0.7,0.7,0.8])
    return img
def dot(img,p,col,r=3):
    x,y=int(p[0]),int(p[1]);img[max(y-r,0):y+r+1,max(x-r,0):x+r+1]=col
def line(img,a,b,col):
    for t in np.linspace(0,1,200): dot(img,a+(b-a)*t,col,0)
def overlay(img,h,v):
    r=json.load(open(rigp));J=np.array([j['position'] for j in r['joints']]);P=proj(J,h,v)
    for i,j in enumerate(r['joints']):
        if j.get('parent') is not None: line(img,P[j['parent']],P[i],(1,0.3,0.3))
    for p in P: dot(img,p,(1,0,0))
    tn=n if '/' not in n else None
    if len(sys.argv)>8: tp=sys.argv[8]
    else: tp=f'/tmp/heldout/set/{n}.truth.json'
    try:
        t=json.load(open(tp));T=np.array(t['joint_positions']);PT=proj(T,h,v)
        for i,pa in enumerate(t['parents']):
            if pa>=0: line(img,PT[pa],PT[i],(0.2,1,0.2))
        for p in PT: dot(img,p,(0,1,0),2)
    except Exception as e: print(e)
A=render(lat,up,fw);overlay(A,lat,up)
B=render(fw,up,lat);overlay(B,fw,up)
img=np.concatenate([A,B],1);img=(np.clip(img,0,1)*255).astype(np.uint8)
H,W,_=img.shape
raw=b''.join(b'\x00'+img[y].tobytes() for y in range(H))
def ch(t,d): return struct.pack('>I',len(d))+t+d+struct.pack('>I',zlib.crc32(t+d)&0xffffffff)
open(out,'wb').write(b'\x89PNG\r\n\x1a\n'+ch(b'IHDR',struct.pack('>IIBBBBB',W,H,8,2,0,0,0))+ch(b'IDAT',zlib.compress(raw))+ch(b'IEND',b''))
