//! The build with per-item boxes ([`super::Item`]) against the build as written before it
//! (boxes folded over the corners at every level, 104-byte items): the same nodes, bit for bit,
//! and the same slot order, serial and parallel, on the SAH path and the median path.

use super::super::{empty_node, node_bits, outward, Bvh, Node, Tri};
use super::{best_bin, BINS, LEAF_SIZE};
use crate::geom::{P3, V3};

/// The previous build, serial (the parallel build is held to the serial one elsewhere): nodes
/// and slot order (input triangle index per slot).
fn reference(positions: &[P3], triangles: &[[u32; 3]]) -> (Vec<Node>, Vec<u32>) {
    let mut items: Vec<(u32, Tri, V3)> = Vec::new();
    for (i, t) in triangles.iter().enumerate() {
        let get = |k: u32| positions.get(k as usize).map(|p| p.coords);
        if let (Some(a), Some(b), Some(c)) = (get(t[0]), get(t[1]), get(t[2])) {
            items.push((i as u32, Tri { v: [a, b, c] }, (a + b + c) / 3.0));
        }
    }
    let mut nodes = vec![empty_node()];
    if !items.is_empty() {
        reference_rec(&mut nodes, &mut items, 0, 0);
    }
    (nodes, items.iter().map(|x| x.0).collect())
}

fn reference_split(items: &mut [(u32, Tri, V3)], clo: &V3, chi: &V3) -> usize {
    let ext = chi - clo;
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    let median = |items: &mut [(u32, Tri, V3)]| {
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |a, b| a.2[axis].total_cmp(&b.2[axis]));
        mid
    };
    if ext[axis] <= 0.0 {
        return median(items);
    }
    let bin_of =
        |c: &V3| (((c[axis] - clo[axis]) / ext[axis] * BINS as f64) as usize).min(BINS - 1);
    let mut count = [0usize; BINS];
    let mut blo = [V3::repeat(f64::INFINITY); BINS];
    let mut bhi = [V3::repeat(f64::NEG_INFINITY); BINS];
    for (_, t, c) in items.iter() {
        let b = bin_of(c);
        count[b] += 1;
        for v in &t.v {
            blo[b] = blo[b].inf(v);
            bhi[b] = bhi[b].sup(v);
        }
    }
    let best = best_bin(&count, &blo, &bhi, items.len());
    if best == 0 {
        return median(items);
    }
    let mut i = 0;
    for j in 0..items.len() {
        if bin_of(&items[j].2) < best {
            items.swap(i, j);
            i += 1;
        }
    }
    i
}

fn reference_rec(nodes: &mut Vec<Node>, items: &mut [(u32, Tri, V3)], offset: usize, index: usize) {
    let (mut lo, mut hi) = (V3::repeat(f64::INFINITY), V3::repeat(f64::NEG_INFINITY));
    let (mut clo, mut chi) = (lo, hi);
    for (_, t, c) in items.iter() {
        for v in &t.v {
            lo = lo.inf(v);
            hi = hi.sup(v);
        }
        clo = clo.inf(c);
        chi = chi.sup(c);
    }
    let (blo, bhi) = outward(&lo, &hi);
    if items.len() <= LEAF_SIZE {
        nodes[index] = Node {
            lo: blo,
            hi: bhi,
            first: offset as u32,
            count: items.len() as u32,
        };
        return;
    }
    let mid = reference_split(items, &clo, &chi);
    let left = nodes.len();
    nodes.push(empty_node());
    nodes.push(empty_node());
    nodes[index] = Node {
        lo: blo,
        hi: bhi,
        first: left as u32,
        count: 0,
    };
    let (a, b) = items.split_at_mut(mid);
    reference_rec(nodes, a, offset, left);
    reference_rec(nodes, b, offset + mid, left + 1);
}

fn assert_same(positions: &[P3], triangles: &[[u32; 3]], what: &str) {
    let (nodes, ids) = reference(positions, triangles);
    for par_min in [usize::MAX, 64] {
        let b = Bvh::build_par(positions, triangles, par_min);
        assert!(
            node_bits(&b.nodes) == node_bits(&nodes),
            "{what}: same nodes"
        );
        assert_eq!(b.tri_ids, ids, "{what}: same slot order");
        for (slot, &id) in b.tri_ids.iter().enumerate() {
            let t = triangles[id as usize];
            let v = t.map(|k| positions[k as usize].coords);
            assert!(
                b.tris[slot].v == v,
                "{what}: slot {slot} holds triangle {id}"
            );
        }
    }
}

use crate::util::test_rng::lcg;

#[test]
fn boxed_items_build_the_previous_tree_bit_for_bit() {
    let mut rnd = lcg(7);
    // A soup of small triangles (the SAH path), sizes around the leaf and parallel thresholds.
    for n in [1u32, 4, 5, 17, 300, 2500] {
        let mut pos = Vec::new();
        let mut tris = Vec::new();
        for i in 0..n {
            let c = V3::new(rnd(), rnd(), rnd() * 0.3);
            for _ in 0..3 {
                pos.push(P3::from(c + V3::new(rnd(), rnd(), rnd()) * 0.05));
            }
            tris.push([3 * i, 3 * i + 1, 3 * i + 2]);
        }
        // An index out of range: skipped by both builds.
        tris.push([0, 1, 3 * n + 5]);
        assert_same(&pos, &tris, &format!("soup of {n}"));
    }
}

#[test]
fn boxed_items_keep_the_median_splits_order_on_coincident_centroids() {
    // Triangles sharing one centroid (rotated copies of one triangle, and exact duplicates):
    // every split is the median path, whose order the standard library's selection fixes.
    let mut rnd = lcg(11);
    let mut pos = Vec::new();
    let mut tris = Vec::new();
    let centre = V3::new(0.5, 0.25, 0.75);
    for i in 0..200u32 {
        let a = V3::new(rnd(), rnd(), rnd()) * 0.1;
        let b = V3::new(rnd(), rnd(), rnd()) * 0.1;
        let c = -a - b;
        let copies = if i % 3 == 0 { 2 } else { 1 };
        for _ in 0..copies {
            let base = pos.len() as u32;
            for d in [a, b, c] {
                pos.push(P3::from(centre + d));
            }
            tris.push([base, base + 1, base + 2]);
        }
    }
    // Two clusters of coincident centroids and a spread soup: median paths inside SAH splits.
    let spread = tris.len();
    for i in 0..spread {
        let t = tris[i];
        let base = pos.len() as u32;
        let shift = V3::new(0.0, if i % 2 == 0 { 0.5 } else { 0.0 }, 0.0);
        for k in t {
            pos.push(P3::from(pos[k as usize].coords + shift));
        }
        tris.push([base, base + 1, base + 2]);
    }
    assert_same(&pos, &tris, "coincident centroids");
}
