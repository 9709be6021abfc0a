//! OWNER: tui helper. (Stub until implemented.)
