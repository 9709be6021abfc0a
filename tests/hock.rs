//! Under `--skeleton auto`, a quadruped win is re-tried with the horse template (the hind leg's
//! hock) in the quadruped's orientation, and the lower per-chain penalty keeps the leg
//! (`pipeline::fitting`). The corpus fox's artist rig has four joints per hind leg (hip, knee,
//! hock, paw), as the horse template does: main rigged it with the quadruped (CD-J2J 4.89 %), the
//! horse fits it with a lower penalty and lands nearer the artist's joints (4.59 %).

mod common;

use std::path::Path;

use geppetto::rig::Status;

#[test]
fn the_fox_gets_the_hock_and_lands_nearer_the_artist() {
    let Some(mesh) = common::corpus_mesh("fox") else {
        return;
    };
    let truth = mesh
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("truth/fox.json");
    let dir = tempfile::tempdir().unwrap();
    let r = common::rig_cli(&mesh, dir.path(), &["--format", "json", "--no-skin"]);
    let cd = common::cd_j2j(&r, &truth);
    println!(
        "{} {:?} {} CD-J2J {cd:.3}",
        r.skeleton, r.status, r.orientation
    );
    assert_eq!(r.skeleton, "horse");
    assert_eq!(r.status, Status::Ok);
    assert!(r.joints.iter().any(|j| j.name == "LeftHindHock"));
    // The quadruped's 4.89 % is main's; the hock brings it to 4.59.
    assert!(cd < 4.75, "CD-J2J {cd:.3} %");
    // The quadruped was tried and recorded, and lost on the per-chain penalty.
    let quad = r
        .templates
        .iter()
        .find(|t| t.template == "quadruped")
        .unwrap();
    let horse = r.templates.iter().find(|t| t.chosen).unwrap();
    assert!(horse.penalty_per_chain < quad.penalty_per_chain);
}
