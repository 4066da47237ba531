//! `replay --seat`'s own pieces: `--until`, the tape cut into lines, answers compared.

use super::redrive::Said;
use super::rerun::{Event, split_lines};
use super::{Dir, Until};
use std::time::Duration;

#[test]
fn until_is_a_deal_or_a_deal_and_trick() {
    assert_eq!(Until::parse("3").unwrap(), Until { deal: 3, trick: None });
    assert_eq!(Until::parse("3.5").unwrap(), Until { deal: 3, trick: Some(5) });
    for bad in ["", "0", "3.", "3.0", "3.10", "x", "3.5.1", "-1"] {
        assert!(Until::parse(bad).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn lines_take_the_time_of_their_newline() {
    let ms = Duration::from_millis;
    let events = vec![
        Event { at: ms(0), dir: Dir::ToBot, bytes: b"a\nb".to_vec() },
        Event { at: ms(1), dir: Dir::FromBot, bytes: b"x\n".to_vec() },
        Event { at: ms(2), dir: Dir::ToBot, bytes: b"c\n".to_vec() },
    ];
    let lines = split_lines(&events);
    let seen: Vec<(u128, char, &[u8])> =
        lines.iter().map(|l| (l.at.as_millis(), l.dir.marker(), l.text.as_slice())).collect();
    assert_eq!(seen, vec![(0, '>', &b"a"[..]), (1, '<', b"x"), (2, '>', b"bc")]);
}

#[test]
fn answers_compare_by_meaning() {
    let a = Said::of_line(br#"{"type":"discard","id":5,"cards":["Ao","2o","3o","4o","5o","6o"]}"#);
    let b = Said::of_line(br#"{"id":5,"type":"discard","cards":["6o","5o","4o","3o","2o","Ao"]}"#);
    assert!(a.same(&b));
    let c = Said::of_line(br#"{"type":"play","id":5,"card":"Kc","signals":["madame"]}"#);
    let d = Said::of_line(br#"{"type":"play","id":5,"card":"Kc"}"#);
    assert!(!c.same(&d));
    assert_eq!(d.text("play"), "Kc");
    assert_eq!(c.text("play"), "Kc, signals madame");
    assert!(Said::Nothing.same(&Said::Nothing));
    assert!(!Said::Nothing.same(&d));
}
