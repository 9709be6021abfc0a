//! Test fixture for the choice's unit tests (`choosing`, `authored`): one template embedded in a
//! generated mesh at a fixed orientation and judged as [`Pipeline::check_best`] judges the chosen
//! fit of an `auto` request.

use std::sync::Arc;

use super::{Pipeline, RigRequest};
use crate::choose::{self, Fit, Template};
use crate::config::RigConfig;
use crate::discretize::{self, Discretization};
use crate::embed::{self, EmbedOptions, Orientation, OrientationMode};
use crate::mesh::{Mesh, PreparedMesh};
use crate::pipeline::Method;
use crate::progress::NoProgress;
use crate::rig::TemplateTrial;
use crate::skeleton::load_template;

/// A default pipeline, the mesh prepared and discretized, an `auto` template-embedding request
/// (no skin) and its embedding options.
pub(super) struct Judge {
    pub pipe: Pipeline,
    pub prepared: PreparedMesh,
    pub disc: Discretization,
    pub req: RigRequest,
    pub opts: EmbedOptions,
}

impl Judge {
    /// The fixture for `mesh`, saved as `name`.
    pub fn new(mesh: Mesh, name: &str) -> Self {
        let prepared = crate::mesh::prepare(mesh).unwrap();
        let pipe = Pipeline::new(RigConfig::default());
        let disc = discretize::discretize(&prepared, &pipe.config.discretize, &NoProgress).unwrap();
        let req = RigRequest {
            mesh_path: name.into(),
            skeleton: Template::Auto,
            hints: None,
            orientation: OrientationMode::Auto,
            skin: false,
            method: Method::Embed,
        };
        let opts = choose::options(&pipe.config.embed_options(), &req.skeleton, req.orientation);
        Self {
            pipe,
            prepared,
            disc,
            req,
            opts,
        }
    }

    /// `template` embedded at `orientation` (fixed), assessed, then judged by `check_best` as
    /// the only fit: the fit and its trial record.
    pub fn judged(&self, template: &str, orientation: Orientation) -> (Fit, Vec<TemplateTrial>) {
        let mut fixed = self.opts.clone();
        fixed.orientation = OrientationMode::Fixed(orientation);
        let fit = choose::fit(
            Arc::new(load_template(template).unwrap()),
            &|s| embed::embed(&self.disc, s, &[], &fixed, &NoProgress),
            &|s, e| crate::confidence::assess(&self.prepared, &self.disc, s, e),
        )
        .unwrap();
        self.pipe
            .check_best(&self.req, &self.prepared, vec![fit], 0, &self.opts, None)
    }
}
