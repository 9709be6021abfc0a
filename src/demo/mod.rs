//! Procedurally generated demo characters (humanoid, quadruped, …) for `geppetto demo`, the README's
//! first command, and for tests that need meshes with known proportions.
//! OWNER: mesh helper. (Stub until implemented.)
