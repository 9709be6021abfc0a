//! The root and the joint order of a generated skeleton (paper §8.4 has no root rule): the junction
//! at the tree's centre (smallest eccentricity by length; ties: the thicker), else the centre of the
//! single branch; parents in breadth-first order from it; separate outline parts parented across
//! the gap to the nearest joint; names `root`, `junction_<n>`, `<kind>_<k>_<j>` (branch k in BFS
//! order, joint j outward; the kind from the branch's shape, [`super::names`]).

use std::collections::VecDeque;

use super::joints::{BJoint, Built, GV};
use super::names;
use crate::geom::{P3, V3};

/// Root, parents in BFS order, names.
pub(super) fn order(
    verts: &[GV],
    edges: &[(usize, usize, usize)],
    branch_count: usize,
    down: V3,
) -> Built {
    let nv = verts.len();
    let mut adj: Vec<Vec<(usize, usize, f64)>> = vec![Vec::new(); nv];
    for &(a, b, br) in edges {
        let len = (verts[a].pos - verts[b].pos).norm();
        adj[a].push((b, br, len));
        adj[b].push((a, br, len));
    }
    let comps = components(&adj);
    let main = comps
        .iter()
        .max_by(|a, b| comp_len(a, &adj).total_cmp(&comp_len(b, &adj)))
        .cloned()
        .unwrap_or_default();
    let root = centre(&main, verts, &adj);
    let mut parent = vec![usize::MAX; nv];
    let mut seq = bfs(root, &adj, &mut parent);
    let mut bridged = 0;
    for c in comps.iter().filter(|c| !c.contains(&root)) {
        let r = centre(c, verts, &adj);
        let near = seq
            .iter()
            .copied()
            .min_by(|&a, &b| {
                (verts[a].pos - verts[r].pos)
                    .norm()
                    .total_cmp(&(verts[b].pos - verts[r].pos).norm())
            })
            .unwrap_or(root);
        parent[r] = near;
        seq.extend(bfs(r, &adj, &mut parent));
        bridged += 1;
    }
    name(
        verts,
        &adj,
        &seq,
        &parent,
        root,
        branch_count,
        bridged,
        down,
    )
}

fn components(adj: &[Vec<(usize, usize, f64)>]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; adj.len()];
    let mut out = Vec::new();
    for s in 0..adj.len() {
        if seen[s] {
            continue;
        }
        let mut c = vec![s];
        seen[s] = true;
        let mut i = 0;
        while i < c.len() {
            for &(m, _, _) in &adj[c[i]] {
                if !seen[m] {
                    seen[m] = true;
                    c.push(m);
                }
            }
            i += 1;
        }
        out.push(c);
    }
    out
}

fn comp_len(c: &[usize], adj: &[Vec<(usize, usize, f64)>]) -> f64 {
    c.iter()
        .flat_map(|&v| adj[v].iter().map(|e| e.2))
        .sum::<f64>()
        + c.len() as f64 * 1e-9
}

/// The component's vertex of smallest eccentricity (junctions first when there are any; ties:
/// the thicker, then the lower index).
fn centre(c: &[usize], verts: &[GV], adj: &[Vec<(usize, usize, f64)>]) -> usize {
    let junctions: Vec<usize> = c
        .iter()
        .copied()
        .filter(|&v| verts[v].key && adj[v].len() >= 3)
        .collect();
    let cand = if junctions.is_empty() {
        c.to_vec()
    } else {
        junctions
    };
    let ecc = |s: usize| {
        let mut dist = vec![f64::INFINITY; adj.len()];
        dist[s] = 0.0;
        let mut q = VecDeque::from([s]);
        while let Some(v) = q.pop_front() {
            for &(m, _, l) in &adj[v] {
                if dist[m].is_infinite() {
                    dist[m] = dist[v] + l;
                    q.push_back(m);
                }
            }
        }
        c.iter().map(|&v| dist[v]).fold(0.0, f64::max)
    };
    let mut best = (f64::INFINITY, 0.0, usize::MAX);
    for v in cand {
        let e = ecc(v);
        let better = e < best.0 - 1e-12 || ((e - best.0).abs() <= 1e-12 && verts[v].r > best.1);
        if better {
            best = (e, verts[v].r, v);
        }
    }
    best.2
}

fn bfs(root: usize, adj: &[Vec<(usize, usize, f64)>], parent: &mut [usize]) -> Vec<usize> {
    let mut seq = vec![root];
    let mut seen = vec![false; adj.len()];
    seen[root] = true;
    let mut i = 0;
    while i < seq.len() {
        let v = seq[i];
        for &(m, _, _) in &adj[v] {
            if !seen[m] {
                seen[m] = true;
                parent[m] = v;
                seq.push(m);
            }
        }
        i += 1;
    }
    seq
}

/// The kind of each branch from its shape ([`names::kinds`]).
fn branch_kinds(
    verts: &[GV],
    adj: &[Vec<(usize, usize, f64)>],
    branch_count: usize,
    down: V3,
) -> Vec<names::Kind> {
    let pos: Vec<P3> = verts.iter().map(|v| v.pos).collect();
    let r: Vec<f64> = verts.iter().map(|v| v.r).collect();
    let graph = names::Graph {
        pos: &pos,
        r: &r,
        adj,
    };
    names::kinds(&graph, branch_count, down)
}

/// Names: `root`, `junction_<n>`, `<kind>_<k>_<j>` (branch k in BFS order, joint j outward; the
/// kind from the branch's shape, [`names`]).
#[allow(clippy::too_many_arguments)]
fn name(
    verts: &[GV],
    adj: &[Vec<(usize, usize, f64)>],
    seq: &[usize],
    parent: &[usize],
    root: usize,
    branch_count: usize,
    bridged: usize,
    down: V3,
) -> Built {
    let mut index = vec![usize::MAX; verts.len()];
    let mut branch_no: Vec<Option<usize>> = vec![None; branch_count];
    let mut step = vec![0usize; branch_count];
    let kind = branch_kinds(verts, adj, branch_count, down);
    let (mut next_branch, mut next_junction) = (0, 0);
    let mut joints = Vec::with_capacity(seq.len());
    for &v in seq {
        let p = parent[v];
        let via = adj[v].iter().find(|e| e.0 == p).map(|e| e.1);
        let is_junction = verts[v].key && adj[v].len() >= 3;
        let name = if v == root {
            "root".to_string()
        } else if is_junction {
            next_junction += 1;
            format!("junction_{}", next_junction - 1)
        } else if let Some(b) = via {
            let k = *branch_no[b].get_or_insert_with(|| {
                next_branch += 1;
                next_branch - 1
            });
            step[b] += 1;
            format!("{}_{k}_{}", kind[b].label(), step[b] - 1)
        } else {
            format!("part_{}", joints.len())
        };
        index[v] = joints.len();
        joints.push(BJoint {
            name,
            parent: (v != root && p != usize::MAX).then(|| index[p]),
            pos: verts[v].pos,
            end: v != root && adj[v].len() == 1,
            key: verts[v].key,
            r: verts[v].r,
        });
    }
    let key_count = joints.iter().filter(|j| j.key).count();
    Built {
        joints,
        key_count,
        branch_count,
        pinned: Vec::new(),
        bridged_parts: bridged,
    }
}
