//! The detail pane's "method" section: what the multi-component method (Bharaj et al. 2012) or the
//! curve-skeleton method found, in plain words, so a wrong limb mapping can be read off the pane.
//! Pure: a function of the rig report only (style anchor P8).

use ratatui::text::Line;

use crate::curveskel::METHOD_NAME as METHOD_CURVE;
use crate::rig::{Rig, METHOD_MULTIPART};

/// Lines describing the rig's method report; nothing for a template embedding.
pub fn method_lines(rig: &Rig, out: &mut Vec<Line<'static>>) {
    if rig.method == METHOD_MULTIPART {
        if let Some(m) = &rig.multipart {
            multipart_lines(m, out);
        } else {
            out.push(super::view::heading(
                "multi-component method (Bharaj et al. 2012)",
            ));
            out.push(Line::from("  no report in rig.json"));
        }
    } else if rig.method == METHOD_CURVE {
        if let Some(c) = &rig.curve {
            out.push(super::view::heading("curve-skeleton method"));
            out.push(Line::from(format!(
                "  {} mode · {} branches ({} pruned) · {} key + {} middle joints",
                c.mode, c.branches, c.pruned_branches, c.key_joints, c.middle_joints
            )));
        }
    }
}

fn multipart_lines(m: &crate::rig::MultipartReport, out: &mut Vec<Line<'static>>) {
    out.push(super::view::heading(
        "multi-component method (Bharaj et al. 2012)",
    ));
    out.push(Line::from(format!(
        "  {} · contact graph {} ({})",
        crate::util::count(m.components, "component", "components"),
        crate::util::count(m.contact_edges, "edge", "edges"),
        crate::util::count(m.forced_links, "forced link", "forced links")
    )));
    if !m.floating_shells.is_empty() {
        let names: Vec<String> = m.floating_shells.iter().map(|s| format!("#{s}")).collect();
        out.push(Line::from(format!(
            "  floating parts (no real contact): shells {}",
            names.join(", ")
        )));
    }
    out.push(Line::from(format!(
        "  high-resolution tree {} nodes / {} branches · low-resolution tree {} nodes / {} branches",
        m.high_tree[0], m.high_tree[1], m.low_tree[0], m.low_tree[1]
    )));
    for l in &m.limbs {
        let role = if l.primary {
            ""
        } else {
            " (extra limb, bound with the body)"
        };
        out.push(Line::from(format!(
            "  branch of {} → limb {} · cost {:.3}{role}",
            crate::util::count(l.parts, "part", "parts"),
            l.limb,
            l.cost
        )));
    }
    if !m.unmapped_limbs.is_empty() {
        out.push(Line::from(format!(
            "  limbs no branch mapped to: {}",
            m.unmapped_limbs.join(", ")
        )));
    }
    if m.unmapped_nodes > 0 {
        out.push(Line::from(format!(
            "  {} part clusters without a joint of their own (they ride with an ancestor)",
            m.unmapped_nodes
        )));
    }
}
