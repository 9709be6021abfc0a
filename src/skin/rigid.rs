//! Rigid skinning for the multi-component method (Bharaj et al. 2012 §7): every vertex follows
//! exactly one joint with weight 1, and every vertex of a shell follows the same joint. No blending
//! at contacts (the paper does none).

use super::{ShellBinding, Skin};
use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::RigJoint;

/// Bind each shell of `mesh` to its joint in `shell_joint` (template index; `None`, e.g. a shell
/// without area, and vertices in no shell follow `fallback`). Weights are per **input** vertex.
pub fn rigid(
    mesh: &PreparedMesh,
    joints: &[RigJoint],
    shell_joint: &[Option<usize>],
    fallback: usize,
) -> Skin {
    let mut welded_joint = vec![fallback; mesh.positions.len()];
    let mut shells = Vec::with_capacity(mesh.shells.len());
    for (s, shell) in mesh.shells.iter().enumerate() {
        let j = shell_joint.get(s).copied().flatten().unwrap_or(fallback);
        for &v in &shell.vertices {
            welded_joint[v as usize] = j;
        }
        shells.push(ShellBinding::Rigid {
            shell: s,
            vertices: shell.vertices.len(),
            joint: joints.get(j).map(|r| r.name.clone()).unwrap_or_default(),
        });
    }
    let weights = mesh
        .weld
        .iter()
        .map(|&w| vec![(welded_joint[w as usize] as u32, 1.0)])
        .collect();
    Skin {
        weights,
        shells,
        warnings: Vec::new(),
        stats: Default::default(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::geom::P3;
    use crate::mesh::{prepare, Mesh};

    /// Two closed tetrahedra (4 vertices each) 5 units apart: two shells.
    pub(crate) fn two_tetrahedra() -> Mesh {
        let mut m = Mesh::default();
        for dx in [0.0, 5.0] {
            let base = m.positions.len() as u32;
            m.positions.extend([
                P3::new(dx, 0.0, 0.0),
                P3::new(dx + 1.0, 0.0, 0.0),
                P3::new(dx, 1.0, 0.0),
                P3::new(dx, 0.0, 1.0),
            ]);
            m.triangles
                .extend([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]].map(|t| t.map(|v| v + base)));
        }
        m
    }

    #[test]
    fn every_vertex_has_one_weight_of_one_and_shells_share_it() {
        let m = two_tetrahedra();
        let p = prepare(m).unwrap();
        assert_eq!(p.shells.len(), 2);
        let joints: Vec<RigJoint> = ["a", "b"]
            .iter()
            .map(|n| RigJoint {
                name: n.to_string(),
                parent: None,
                position: [0.0; 3],
                end: false,
            })
            .collect();
        let skin = rigid(&p, &joints, &[Some(1), Some(0)], 0);
        assert!(skin.weights.iter().all(|w| w.len() == 1 && w[0].1 == 1.0));
        for shell in &p.shells {
            let bones: std::collections::BTreeSet<u32> = (0..p.weld.len())
                .filter(|&i| shell.vertices.contains(&p.weld[i]))
                .map(|i| skin.weights[i][0].0)
                .collect();
            assert_eq!(bones.len(), 1);
        }
    }
}
