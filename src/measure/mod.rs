//! Measuring rigs: `geppetto score` (corpus scoring conventions) and `geppetto bench`.
//! OWNER: measure helper. (Stub until implemented.)
