//! The Aluette rules engine for Python: the extension module `aluette._core` of the `aluette`
//! wheel (built by maturin, one abi3 wheel per platform).
//!
//! Everything here sits on `rules` (the engine stays `no_std` and dependency-free) and, for the
//! bot bridge, on `protocol` and `convert`. The plain-Rust modules hold the logic: `space` (the
//! action space and the observation layout), `seen` (what a seat has been shown, and the one
//! encoder of observations), `legal` (action masks), `table` (a seeded match with the
//! environment's sub-steps). The `py_*` modules and `bridge` are the Python classes on top.

mod bridge;
pub mod legal;
mod py_batch;
mod py_game;
mod py_types;
pub mod seen;
pub mod space;
pub mod table;

use pyo3::prelude::*;

/// The module: `Game`, `Batch`, `SeatBot`, `IllegalAction`, the layout and the seed derivation.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<py_game::PyGame>()?;
    m.add_class::<py_batch::PyBatch>()?;
    m.add_class::<bridge::SeatBot>()?;
    m.add("IllegalAction", m.py().get_type::<py_game::IllegalAction>())?;
    let layout: Vec<(&str, usize, (usize, usize))> =
        space::layout().iter().map(|f| (f.name, f.offset, f.shape)).collect();
    m.add("LAYOUT", layout)?;
    m.add("OBS_LEN", space::obs_len())?;
    m.add("N_ACTIONS", space::N_ACTIONS)?;
    let signals: Vec<String> =
        (0..space::N_SIGNALS).filter_map(space::signal).map(|s| s.to_string()).collect();
    m.add("SIGNALS", signals)?;
    m.add_function(wrap_pyfunction!(derive_seed, m)?)?;
    Ok(())
}

/// `rules::derive_seed`: `derive_seed([match_seed, game])` is game `game`'s seed in a
/// `referee match --seed match_seed` (spec/records.md section 4).
#[pyfunction]
fn derive_seed(parts: Vec<u64>) -> u64 {
    rules::derive_seed(&parts)
}
