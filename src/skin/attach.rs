//! Weights for a skeleton the user already has (`geppetto attach`).
