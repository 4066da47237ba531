//! The two rating boards, both pure functions of the ordered duplicate comparisons: the online
//! Weng-Lin board moves after every comparison (matchmaking and the live board), the batch
//! Bradley-Terry fit is recomputed from all of them (the official board with 95% intervals).

pub mod batch;
pub mod online;
