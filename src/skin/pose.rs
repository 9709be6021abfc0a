//! Linear blend skinning under a pose.
//! OWNER: skin helper. (Stub until implemented.)
