//! Two-stage stop: the first Ctrl-C stops starting games and lets running ones finish; the
//! second aborts running games, whose records are closed as `aborted`.

use tokio::sync::watch;

/// How far a stop has gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    Running,
    /// Finish running games, start no new ones.
    Draining,
    /// Abort running games now.
    Abort,
}

/// A handle every game and scheduler holds; cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct Shutdown {
    rx: watch::Receiver<Stage>,
}

/// The side that raises the stage (the signal handler, or a test).
#[derive(Debug)]
pub(crate) struct Trigger {
    tx: watch::Sender<Stage>,
}

pub(crate) fn channel() -> (Trigger, Shutdown) {
    let (tx, rx) = watch::channel(Stage::Running);
    (Trigger { tx }, Shutdown { rx })
}

impl Trigger {
    /// Raises the stage one step; returns the new stage.
    pub(crate) fn escalate(&self) -> Stage {
        let next = match *self.tx.borrow() {
            Stage::Running => Stage::Draining,
            _ => Stage::Abort,
        };
        self.tx.send_replace(next);
        next
    }
}

impl Shutdown {
    /// A handle that never stops (tools and tests that do not listen for Ctrl-C).
    #[cfg(test)]
    pub(crate) fn never() -> Shutdown {
        let (tx, rx) = watch::channel(Stage::Running);
        // Keep the sender alive forever so `aborted` never resolves spuriously.
        std::mem::forget(tx);
        Shutdown { rx }
    }

    pub(crate) fn stage(&self) -> Stage {
        *self.rx.borrow()
    }

    /// Resolves once a stop has begun (the first Ctrl-C or SIGTERM): a wait for a bot or a page
    /// to connect ends there, since no game will start.
    pub(crate) async fn stopping(&self) {
        let mut rx = self.rx.clone();
        while *rx.borrow_and_update() < Stage::Draining {
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// Resolves when running games must be aborted.
    pub(crate) async fn aborted(&mut self) {
        while *self.rx.borrow_and_update() < Stage::Abort {
            if self.rx.changed().await.is_err() {
                // The trigger is gone, so no abort can come.
                std::future::pending::<()>().await;
            }
        }
    }
}

/// Listens for Ctrl-C and SIGTERM and escalates; prints what each stage means.
pub(crate) fn listen(trigger: Trigger) {
    let trigger = std::sync::Arc::new(trigger);
    let again = trigger.clone();
    on_stop_signals(
        move || {
            trigger.escalate();
            eprintln!(
                "referee: stopping: no new games; running games finish (Ctrl-C again to abort them)"
            );
        },
        move || {
            if again.escalate() == Stage::Abort {
                eprintln!("referee: aborting running games");
            }
        },
    );
}

/// Calls `first` at the first Ctrl-C or SIGTERM and `then` at each one after, on a task of the
/// current runtime: the two-stage stop every long-running command of the project has (the
/// first stops starting work and lets what runs finish, the second aborts it).
pub fn on_stop_signals(first: impl Fn() + Send + 'static, then: impl Fn() + Send + 'static) {
    tokio::spawn(async move {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        for round in 0u64.. {
            let got = async {
                match term.as_mut() {
                    Some(t) => {
                        tokio::select! {
                            r = tokio::signal::ctrl_c() => r.is_ok(),
                            r = t.recv() => r.is_some(),
                        }
                    }
                    None => tokio::signal::ctrl_c().await.is_ok(),
                }
            }
            .await;
            if !got {
                return;
            }
            if round == 0 { first() } else { then() }
        }
    });
}
