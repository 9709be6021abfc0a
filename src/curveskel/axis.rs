//! The chordal axis (paper §5, after Teddy): a constrained Delaunay triangulation of the outline
//! loops (spade), triangles classed by their outline edges (terminal 2, sleeve 1, junction 0), one
//! axis node at the 3-D midpoint of every internal edge (§5.3: its depth is the mean of the chord
//! ends' depths), junction triangles joined through a centre node. Holes make cycles; they are cut
//! at the thinnest link (a maximum spanning forest by local radius), so the axis is a forest.

use spade::handles::{FaceHandle, FixedFaceHandle, InnerTag};
use spade::{
    CdtEdge, ConstrainedDelaunayTriangulation, HasPosition, Point2, PositionInTriangulation,
    Triangulation,
};

use super::outline::Loops;
use super::raster::Raster;
use super::CurveError;

/// A CDT vertex: an outline point and its index.
#[derive(Clone, Copy, Debug)]
pub struct OutlineVertex {
    pos: Point2<f64>,
    /// Index into [`Loops::points`].
    pub idx: usize,
}

impl HasPosition for OutlineVertex {
    type Scalar = f64;
    fn position(&self) -> Point2<f64> {
        self.pos
    }
}

/// The triangulation type.
pub type Cdt = ConstrainedDelaunayTriangulation<OutlineVertex>;

/// One axis node, frame coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxNode {
    /// Image x.
    pub x: f64,
    /// Image y.
    pub y: f64,
    /// Depth.
    pub z: f64,
    /// Local radius: half the chord (chord nodes), or the largest centre-to-corner distance
    /// (junction centres).
    pub r: f64,
    /// A junction triangle's centre (else a chord midpoint).
    pub centre: bool,
    /// For chord nodes: the chord's two outline points (for the centrality test, §15.3).
    pub chord: Option<[usize; 2]>,
}

/// The chordal axis.
pub struct Axis {
    /// The triangulation (for locating mesh vertices).
    pub cdt: Cdt,
    /// Nodes.
    pub nodes: Vec<AxNode>,
    /// Tree edges (after cutting cycles), sorted adjacency.
    pub adj: Vec<Vec<usize>>,
    /// Per face (by fixed index): the node that stands for it, for inside faces.
    pub face_node: Vec<Option<usize>>,
    /// Triangles by class: terminal, sleeve, junction.
    pub class_counts: [usize; 3],
    /// The outline (copied for tests and diagnostics).
    pub outline: Loops,
}

/// Triangulate `loops` and build the axis.
pub fn chordal_axis(loops: &Loops, r: &Raster) -> Result<Axis, CurveError> {
    let _ = r;
    let verts: Vec<OutlineVertex> = loops
        .points
        .iter()
        .enumerate()
        .map(|(idx, p)| OutlineVertex {
            pos: Point2::new(p.x, p.y),
            idx,
        })
        .collect();
    let mut edges = Vec::with_capacity(verts.len());
    for l in &loops.loops {
        for i in l.clone() {
            let j = if i + 1 == l.end { l.start } else { i + 1 };
            edges.push([i, j]);
        }
    }
    let cdt = Cdt::try_bulk_load_cdt(verts, edges, |_| {})
        .map_err(|e| CurveError::Triangulation(format!("{e:?}")))?;
    let inside = inside_faces(&cdt, loops);
    Ok(build_graph(cdt, &inside, loops))
}

/// Inside flags per face (fixed index): the centroid is inside an odd number of loops.
fn inside_faces(cdt: &Cdt, loops: &Loops) -> Vec<bool> {
    let boxes: Vec<[f64; 4]> = loops
        .loops
        .iter()
        .map(|l| {
            let pts = &loops.points[l.clone()];
            pts.iter().fold(
                [
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                ],
                |b, p| [b[0].min(p.x), b[1].max(p.x), b[2].min(p.y), b[3].max(p.y)],
            )
        })
        .collect();
    let mut inside = vec![false; cdt.num_all_faces()];
    for f in cdt.inner_faces() {
        let c = f.center();
        let mut odd = false;
        for (l, b) in loops.loops.iter().zip(&boxes) {
            if c.x < b[0] || c.x > b[1] || c.y < b[2] || c.y > b[3] {
                continue;
            }
            odd ^= crosses_odd(&loops.points[l.clone()], c.x, c.y);
        }
        inside[f.fix().index()] = odd;
    }
    inside
}

/// Even-odd test of (x, y) against one closed loop.
fn crosses_odd(pts: &[super::outline::OutPt], x: f64, y: f64) -> bool {
    let n = pts.len();
    let mut odd = false;
    for i in 0..n {
        let (a, b) = (pts[i], pts[(i + 1) % n]);
        if (a.y > y) != (b.y > y) && x < a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x) {
            odd = !odd;
        }
    }
    odd
}

/// Classify the inside triangles and join their chord midpoints (§5.2–5.3).
fn build_graph(cdt: Cdt, inside: &[bool], loops: &Loops) -> Axis {
    let mut nodes = Vec::new();
    let mut edge_node = vec![usize::MAX; cdt.num_undirected_edges()];
    let mut links: Vec<(usize, usize)> = Vec::new();
    let mut face_node = vec![None; cdt.num_all_faces()];
    let mut counts = [0usize; 3];
    for f in cdt.inner_faces() {
        let fi = f.fix().index();
        if !inside[fi] {
            continue;
        }
        let chords = face_chords(f, inside, loops, &mut nodes, &mut edge_node);
        match chords.len() {
            1 => {
                counts[0] += 1;
                face_node[fi] = Some(chords[0]);
            }
            2 => {
                counts[1] += 1;
                links.push((chords[0], chords[1]));
                face_node[fi] = Some(chords[0]);
            }
            3 => {
                counts[2] += 1;
                let corners = f.vertices().map(|v| v.position());
                let z = chords.iter().map(|&k| nodes[k].z).sum::<f64>() / 3.0;
                let id = nodes.len();
                nodes.push(junction_node(f.center(), &corners, z));
                links.extend(chords.iter().map(|&k| (id, k)));
                face_node[fi] = Some(id);
            }
            _ => {} // an isolated triangle (a loop of three points): no axis
        }
    }
    let adj = spanning_forest(&nodes, links);
    Axis {
        cdt,
        nodes,
        adj,
        face_node,
        class_counts: counts,
        outline: loops.clone(),
    }
}

/// An inner face of the outline's triangulation.
type Face<'a> = FaceHandle<'a, InnerTag, OutlineVertex, (), CdtEdge<()>, ()>;

/// The axis nodes of `f`'s internal chords (edges shared with another inside triangle), each
/// made the first time one of its two triangles is seen (`edge_node`: undirected edge → node).
fn face_chords(
    f: Face,
    inside: &[bool],
    loops: &Loops,
    nodes: &mut Vec<AxNode>,
    edge_node: &mut [usize],
) -> Vec<usize> {
    let mut chords = Vec::with_capacity(3);
    for e in f.adjacent_edges() {
        let other = e.rev().face();
        let external =
            e.is_constraint_edge() || other.as_inner().is_none_or(|o| !inside[o.fix().index()]);
        if external {
            continue;
        }
        let ue = e.as_undirected().fix().index();
        if edge_node[ue] == usize::MAX {
            let (a, b) = (e.from(), e.to());
            edge_node[ue] = nodes.len();
            nodes.push(chord_node(
                a.data(),
                b.data(),
                a.position(),
                b.position(),
                loops,
            ));
        }
        chords.push(edge_node[ue]);
    }
    chords
}

/// The axis node of an internal chord from `a` (at `pa`) to `b` (at `pb`): its midpoint, at the
/// mean depth of its ends (§5.3), with half its length as the radius.
fn chord_node(
    a: &OutlineVertex,
    b: &OutlineVertex,
    pa: Point2<f64>,
    pb: Point2<f64>,
    loops: &Loops,
) -> AxNode {
    let z_of = |v: &OutlineVertex| loops.points[v.idx].z;
    AxNode {
        x: 0.5 * (pa.x + pb.x),
        y: 0.5 * (pa.y + pb.y),
        z: 0.5 * (z_of(a) + z_of(b)),
        r: 0.5 * ((pa.x - pb.x).powi(2) + (pa.y - pb.y).powi(2)).sqrt(),
        centre: false,
        chord: Some([a.idx, b.idx]),
    }
}

/// The axis node of a junction triangle (three internal chords, §5.2): its centre `c`, at depth
/// `z`, with the distance to its farthest corner as the radius.
fn junction_node(c: Point2<f64>, corners: &[Point2<f64>; 3], z: f64) -> AxNode {
    let r = corners
        .iter()
        .map(|p| ((p.x - c.x).powi(2) + (p.y - c.y).powi(2)).sqrt())
        .fold(0.0, f64::max);
    AxNode {
        x: c.x,
        y: c.y,
        z,
        r,
        centre: true,
        chord: None,
    }
}

/// Maximum spanning forest by the thinner end's radius: cycles (holes) are cut at their thinnest
/// link. Ties keep the earlier link, so the result is deterministic.
fn spanning_forest(nodes: &[AxNode], mut links: Vec<(usize, usize)>) -> Vec<Vec<usize>> {
    let w = |l: &(usize, usize)| nodes[l.0].r.min(nodes[l.1].r);
    links.sort_by(|a, b| w(b).total_cmp(&w(a)).then(a.cmp(b)));
    let mut parent: Vec<usize> = (0..nodes.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mut adj = vec![Vec::new(); nodes.len()];
    for (a, b) in links {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra] = rb;
            adj[a].push(b);
            adj[b].push(a);
        }
    }
    adj.iter_mut().for_each(|v| v.sort_unstable());
    adj
}

impl Axis {
    /// The axis node standing for the triangle under frame point (x, y), if it is inside.
    pub fn node_at(&self, x: f64, y: f64) -> Option<usize> {
        let face: Option<FixedFaceHandle<InnerTag>> = match self.cdt.locate(Point2::new(x, y)) {
            PositionInTriangulation::OnFace(f) => Some(f),
            PositionInTriangulation::OnEdge(e) => {
                let e = self.cdt.directed_edge(e);
                e.face()
                    .as_inner()
                    .or_else(|| e.rev().face().as_inner())
                    .map(|f| f.fix())
            }
            PositionInTriangulation::OnVertex(v) => self
                .cdt
                .vertex(v)
                .out_edges()
                .find_map(|e| e.face().as_inner().map(|f| f.fix())),
            _ => None,
        };
        face.and_then(|f| self.face_node[f.index()])
    }
}
