//! Tidy checks (to come).
