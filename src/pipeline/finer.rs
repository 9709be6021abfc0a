//! A second, finer discretization when the first rig is `low_confidence` (issue 12, joints).
//!
//! Medial samples shallower than 2τ are dropped (Baran & Popović 2007 §3.1; pinocchio-facts
//! "Thin parts"), so a limb thinner than 4τ — 1.3 % of the model's largest side at the default
//! τ — holds no sphere and no joint can enter it: a T-posed character as wide as it is tall has
//! forearms that thin, and its arm chains stop at the elbows. The search then either fits
//! poorly or fails a structural check, so such a rig is `low_confidence`; a rig judged `ok` pays
//! nothing.
//!
//! Only under `--skeleton auto`, where the templates and the curve skeleton compete again on the
//! finer spheres: with one template forced on a shape it does not fit, finer spheres give the search
//! more places to hide it (the corpus octopus with the human template forced passes every check at
//! τ/2, penalty 0.233 against 0.289 at τ), so a forced template keeps its first, honest verdict.
//!
//! The rule: when the chosen fit is `low_confidence`, the mesh is discretized once more with τ
//! halved ([`FINER`]: limbs half as thick get spheres; the field's cost grows about fourfold, so
//! once) and every template is fitted again on it. The finer fit is kept only if it is `ok`:
//! it passed every check the first one failed, by the same rule that ranks templates
//! ([`crate::choose::best`]: trustworthy first). Otherwise the paper's τ stays, and so does its
//! rig. The skin and the outcome use the discretization that made the joints.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use super::cache::finer_key;
use super::{choosing::Chosen, Pipeline, RigRequest};
use crate::choose::Template;
use crate::discretize::{self, Discretization};
use crate::error::RigError;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::rig::Status;
use crate::util::ms_since;

/// The finer discretization's τ, as a fraction of the configured τ.
pub const FINER: f64 = 0.5;

/// Forwards cancellation only: the second discretization does not move a progress display
/// back to the field stage.
struct CancelOnly<'a>(&'a dyn Progress);

impl Progress for CancelOnly<'_> {
    fn cancelled(&self) -> bool {
        self.0.cancelled()
    }
}

impl Pipeline {
    /// `first`, the fit `chosen` on `disc`, or — when it is `low_confidence` and a fit on a
    /// discretization with τ halved is `ok` — that fit and that discretization (module docs). The
    /// retry's time is rig.json's `timings_ms.finer`, of which `finer_discretize` the second
    /// discretization; that one is cached beside the first (key: [`finer_key`] of the mesh's
    /// `key`), so a hint re-run of the same mesh repeats only the search.
    pub(super) fn finer_if_low(
        &self,
        req: &RigRequest,
        key: u64,
        prepared: &Arc<PreparedMesh>,
        first: (Arc<Discretization>, Chosen),
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<(Arc<Discretization>, Chosen), RigError> {
        let (disc, chosen) = first;
        if chosen.fit.confidence.status == Status::Ok || !matches!(req.skeleton, Template::Auto) {
            return Ok((disc, chosen));
        }
        progress.retry();
        let t = Instant::now();
        let mut opts = self.config.discretize.clone();
        opts.tolerance = opts.tol() * FINER;
        let quiet = CancelOnly(progress);
        let fine = match self.cache_get(finer_key(key)) {
            Some((_, fine)) => fine,
            None => match discretize::discretize(prepared, &opts, &quiet) {
                Ok(d) => {
                    timings.insert("finer_discretize".into(), ms_since(t));
                    let d = Arc::new(d);
                    self.cache_put(finer_key(key), prepared.clone(), d.clone());
                    d
                }
                Err(discretize::DiscretizeError::Cancelled) => return Err(RigError::Cancelled),
                // The coarser one worked: keep its rig.
                Err(_) => return Ok((disc, chosen)),
            },
        };
        let mut second_ms = BTreeMap::new();
        let second = self.choose(req, prepared, &fine, &quiet, &mut second_ms, None)?;
        for (name, ms) in second_ms {
            timings.insert(format!("finer_{name}"), ms);
        }
        timings.insert("finer".into(), ms_since(t));
        if second.fit.confidence.status != Status::Ok {
            return Ok((disc, chosen));
        }
        let mut second = second;
        second.notes.push(format!(
            "discretized again with tau halved ({:.4} normalized units): the first rig was low \
             confidence ({}), and on the finer spheres, which reach limbs half as thick, the \
             rig passes every check",
            opts.tol(),
            chosen.fit.confidence.reasons.join("; ")
        ));
        Ok((fine, second))
    }
}
