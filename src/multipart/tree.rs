//! Rooted trees from a clustering, the root at the contact graph's node of highest betweenness
//! (Bharaj et al. 2012 §6, Freeman 1977; Brandes' algorithm, unweighted), and branches (root-to-leaf
//! node lists).

use std::collections::VecDeque;

use super::cluster::Clustering;
use crate::geom::P3;

/// A rooted tree; node indices are local (`0..len`), root first, parents before children.
#[derive(Clone, Debug)]
pub struct Tree {
    /// Parent per node (`None` for the root, index 0).
    pub parent: Vec<Option<usize>>,
    /// Children per node, in ascending order.
    pub children: Vec<Vec<usize>>,
    /// Node centre, normalized frame.
    pub centre: Vec<P3>,
    /// Where the joint that moves the node would sit (its pivot, §9: the contact centroid with the
    /// parent's pieces), normalized frame. The centre until contacts are known
    /// ([`super::joints::set_pivots`]).
    pub pivot: Vec<P3>,
    /// Node area (sum of its pieces).
    pub area: Vec<f64>,
    /// Components per node (sorted).
    pub members: Vec<Vec<usize>>,
}

impl Tree {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// True if there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// Degree of a node (parent + children).
    pub fn degree(&self, i: usize) -> usize {
        self.children[i].len() + usize::from(self.parent[i].is_some())
    }

    /// Root-to-leaf paths, one per leaf; a degree-1 root is not a leaf (§6).
    pub fn branches(&self) -> Vec<Vec<usize>> {
        (1..self.len())
            .filter(|&i| self.children[i].is_empty())
            .map(|leaf| self.path_to(leaf))
            .collect()
    }

    /// Nodes from the root to `i`, root first.
    pub fn path_to(&self, i: usize) -> Vec<usize> {
        let mut path = vec![i];
        while let Some(p) = self.parent[*path.last().unwrap_or(&0)] {
            path.push(p);
        }
        path.reverse();
        path
    }

    /// Undirected adjacency lists.
    pub fn adjacency(&self) -> Vec<Vec<usize>> {
        (0..self.len())
            .map(|i| {
                let mut a = self.children[i].clone();
                a.extend(self.parent[i]);
                a.sort_unstable();
                a
            })
            .collect()
    }
}

/// Betweenness centrality of every node (Brandes 2001, unweighted, each unordered pair once).
pub fn betweenness(adj: &[Vec<usize>]) -> Vec<f64> {
    let n = adj.len();
    let mut cb = vec![0.0; n];
    for s in 0..n {
        let mut stack = Vec::with_capacity(n);
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut sigma = vec![0.0; n];
        let mut dist = vec![usize::MAX; n];
        sigma[s] = 1.0;
        dist[s] = 0;
        let mut queue = VecDeque::from([s]);
        while let Some(v) = queue.pop_front() {
            stack.push(v);
            for &w in &adj[v] {
                if dist[w] == usize::MAX {
                    dist[w] = dist[v] + 1;
                    queue.push_back(w);
                }
                if dist[w] == dist[v] + 1 {
                    sigma[w] += sigma[v];
                    preds[w].push(v);
                }
            }
        }
        let mut delta = vec![0.0; n];
        while let Some(w) = stack.pop() {
            for &v in &preds[w] {
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w]);
            }
            if w != s {
                cb[w] += delta[w];
            }
        }
    }
    cb.iter().map(|c| c / 2.0).collect()
}

/// The component of highest betweenness; ties go to the larger area, then the smaller index.
pub fn root_component(adj: &[Vec<usize>], area: &[f64]) -> usize {
    let cb = betweenness(adj);
    (0..adj.len())
        .min_by(|&i, &j| {
            cb[j]
                .total_cmp(&cb[i])
                .then(area[j].total_cmp(&area[i]))
                .then(i.cmp(&j))
        })
        .unwrap_or(0)
}

/// The clustering's final graph as a tree rooted at the node holding `root_component`. Nodes not
/// reachable from the root (a disconnected input) are left out.
pub fn rooted(c: &Clustering, root_component: usize) -> Tree {
    let g = &c.graph;
    let root = c.owner[root_component];
    let mut local = std::collections::HashMap::new();
    let (mut parent, mut ids) = (Vec::new(), Vec::new());
    let mut queue = VecDeque::from([(root, None)]);
    local.insert(root, 0);
    while let Some((v, p)) = queue.pop_front() {
        ids.push(v);
        parent.push(p);
        let me = ids.len() - 1;
        for &w in &g.adj[v] {
            if !local.contains_key(&w) {
                local.insert(w, local.len());
                queue.push_back((w, Some(me)));
            }
        }
    }
    let mut children = vec![Vec::new(); ids.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i);
        }
    }
    Tree {
        parent,
        children,
        centre: ids.iter().map(|&v| g.nodes[v].centre).collect(),
        pivot: ids.iter().map(|&v| g.nodes[v].centre).collect(),
        area: ids.iter().map(|&v| g.nodes[v].area).collect(),
        members: ids.iter().map(|&v| g.nodes[v].members.clone()).collect(),
    }
}
