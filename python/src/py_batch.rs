//! `aluette.env.BatchEnv`'s engine: many matches stepped by one call, so a training loop pays one
//! Python call per step of the whole batch instead of one per game. Arrays cross as bytes
//! (`numpy.frombuffer` on the Python side): the wheel then needs no numpy at build time and
//! stays one abi3 wheel.

use crate::py_game::{IllegalAction, f32_bytes};
use crate::py_types::{self, seat};
use crate::space::{self, N_ACTIONS};
use crate::table::Table;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rules::{Rules, Seat, derive_seed};

/// `n` matches; a finished one is replaced at once by the next match of its slot.
#[derive(Debug)]
#[pyclass(name = "Batch", module = "aluette._core")]
pub struct PyBatch {
    rules: Rules,
    seed: u64,
    first_dealer: Seat,
    tables: Vec<Table>,
    episodes: Vec<u64>,
}

impl PyBatch {
    /// The game seed of episode `e` of slot `i`.
    fn game_seed(&self, i: usize, e: u64) -> u64 {
        derive_seed(&[self.seed, i as u64, e])
    }
}

#[pymethods]
impl PyBatch {
    #[new]
    #[pyo3(signature = (n, seed=0, first_dealer=0, **rules))]
    fn new(
        n: usize,
        seed: u64,
        first_dealer: i64,
        rules: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyBatch> {
        if n == 0 {
            return Err(PyValueError::new_err("a batch holds at least one game"));
        }
        let rules = py_types::rules_from(rules)?;
        let mut b = PyBatch {
            rules,
            seed,
            first_dealer: seat(first_dealer)?,
            tables: Vec::new(),
            episodes: vec![0; n],
        };
        b.tables = (0..n).map(|i| Table::new(rules, b.game_seed(i, 0), b.first_dealer)).collect();
        Ok(b)
    }

    /// How many games.
    fn __len__(&self) -> usize {
        self.tables.len()
    }

    /// The seat asked in each game (one byte per game).
    fn to_act<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let seats: Vec<u8> =
            self.tables.iter().map(|t| t.to_act().map_or(255, |(s, _)| s.index() as u8)).collect();
        PyBytes::new(py, &seats)
    }

    /// The observation of the seat asked in each game: `n * obs_len` float32 values.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let len = space::obs_len();
        let mut out = vec![0f32; len * self.tables.len()];
        for (t, o) in self.tables.iter().zip(out.chunks_mut(len)) {
            if let Some((s, _)) = t.to_act() {
                t.observe(s, o);
            }
        }
        f32_bytes(py, &out)
    }

    /// The action mask of the seat asked in each game: `n * N_ACTIONS` bytes.
    fn masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut out = vec![0u8; N_ACTIONS * self.tables.len()];
        for (t, o) in self.tables.iter().zip(out.chunks_mut(N_ACTIONS)) {
            if let Some((s, _)) = t.to_act() {
                t.mask(s, o);
            }
        }
        PyBytes::new(py, &out)
    }

    /// Steps every game with its action (`actions`: `n` int64 little-endian, e.g.
    /// `array.astype("<i8").tobytes()`). Returns `(rewards, done)`: `n * 4` float32 rewards by
    /// absolute seat, and one byte per game, 1 where the match ended (that slot now holds its
    /// next match). Every action is checked first: one illegal action raises `IllegalAction`
    /// naming its game, and no game moves.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &[u8],
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let n = self.tables.len();
        if actions.len() != 8 * n {
            return Err(PyValueError::new_err(format!(
                "{n} int64 actions expected, got {} bytes",
                actions.len()
            )));
        }
        let acts: Vec<i64> = actions
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .collect();
        let mut mask = [0u8; N_ACTIONS];
        for (i, (t, &a)) in self.tables.iter().zip(&acts).enumerate() {
            let legal = t.to_act().is_some_and(|(s, _)| {
                t.mask(s, &mut mask);
                usize::try_from(a).ok().and_then(|a| mask.get(a)) == Some(&1)
            });
            if !legal {
                return Err(IllegalAction::new_err(format!(
                    "game {i}: action {a} is not legal now"
                )));
            }
        }
        let mut rewards = vec![0f32; 4 * n];
        let mut done = vec![0u8; n];
        for i in 0..n {
            self.tables[i]
                .step(acts[i] as usize)
                .map_err(|e| IllegalAction::new_err(format!("game {i}: {e}")))?;
            rewards[4 * i..4 * i + 4].copy_from_slice(&self.tables[i].rewards());
            if self.tables[i].to_act().is_none() {
                done[i] = 1;
                self.episodes[i] += 1;
                let seed = self.game_seed(i, self.episodes[i]);
                self.tables[i] = Table::new(self.rules, seed, self.first_dealer);
            }
        }
        Ok((f32_bytes(py, &rewards)?, PyBytes::new(py, &done)))
    }
}
