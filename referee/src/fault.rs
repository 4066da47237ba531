//! A bot's fault as the referee carries it, from where it is found (a read, a write, the judge)
//! to the record and the `error` message: one type instead of tuples, and the one way a recorded
//! fault is told to people.

use protocol::record::{FaultKind, FaultRecord};

/// What a bot did wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    /// The class, as in records and `error` messages.
    pub(crate) kind: FaultKind,
    /// What happened, for people (it may quote what the bot sent: escape it before showing it).
    pub(crate) detail: String,
    /// The offending line's bytes as received, when the fault is about a line that was kept.
    /// Bytes, not text: a line that is not UTF-8 must reach the record as sent, or its replay
    /// would see another line.
    pub(crate) raw: Option<Vec<u8>>,
}

impl Fault {
    /// A fault about no line in particular.
    pub(crate) fn new(kind: FaultKind, detail: impl Into<String>) -> Fault {
        Fault { kind, detail: detail.into(), raw: None }
    }

    /// The same fault, about the line `raw`.
    pub(crate) fn with_raw(self, raw: Vec<u8>) -> Fault {
        Fault { raw: Some(raw), ..self }
    }
}

/// A recorded fault for people: `timeout in deal 2, trick 5: no answer within 100 ms`. The
/// detail is as recorded: whoever prints it escapes it.
pub(crate) fn summary(f: &FaultRecord) -> String {
    let at = match (f.deal, f.trick) {
        (Some(d), Some(t)) => format!(" in deal {d}, trick {t}"),
        (Some(d), None) => format!(" in deal {d}"),
        _ => String::new(),
    };
    format!("{}{at}: {}", f.kind.as_str(), f.detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::record::Penalty;

    fn record(deal: Option<u16>, trick: Option<u8>) -> FaultRecord {
        let mut f = FaultRecord {
            seat: 2,
            deal,
            trick,
            kind: FaultKind::IllegalCard,
            detail: "card Kc is not in your hand".into(),
            raw: None,
            raw_b64: None,
            action: String::new(),
            penalty: Penalty::Fallback,
            strikes: 1,
        };
        f.keep_raw(None);
        f
    }

    #[test]
    fn summaries_say_where_when_they_can() {
        let said = |d, t| summary(&record(d, t));
        assert_eq!(
            said(Some(2), Some(5)),
            "illegal_card in deal 2, trick 5: card Kc is not in your hand"
        );
        assert_eq!(said(Some(2), None), "illegal_card in deal 2: card Kc is not in your hand");
        assert_eq!(said(None, None), "illegal_card: card Kc is not in your hand");
    }

    /// The names next to the enums are the serde names, which records use.
    #[test]
    fn wire_names_are_the_serde_names() {
        for p in [
            Penalty::Ignored,
            Penalty::SignalDropped,
            Penalty::Fallback,
            Penalty::Replaced,
            Penalty::Forfeit,
        ] {
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{}\"", p.as_str()));
        }
    }
}
