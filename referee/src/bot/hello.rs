//! What a `hello` offers and what its answer may say: the features offered to each kind of seat,
//! those a bot takes up, and the identity rule, shared by the handshake and `check-bot`.

use super::BotSpec;
use crate::text;
use protocol::{FEATURES, PROTOCOL_VERSION};

/// The features a `hello` offers this bot: `surrender` only when the rules hold its rounds, and
/// `resume` only to the seats that can come back (a person's page, a bot that connects to the
/// lobby with its token), so that a bot in a game without them gets, byte for byte, the hello it
/// got before they existed.
pub(crate) fn offered_features(spec: &BotSpec, pre_lead_rounds: bool) -> Vec<String> {
    let offered = |f: &&&str| match **f {
        protocol::SURRENDER => pre_lead_rounds,
        protocol::RESUME => matches!(spec, BotSpec::Human { .. } | BotSpec::TcpSeat { .. }),
        _ => true,
    };
    FEATURES.iter().filter(offered).map(|f| f.to_string()).collect()
}

/// The features a hello answer lists among those `offered`, in the referee's order: a name the
/// referee did not offer is ignored.
pub(crate) fn taken_up(offered: &[String], listed: &[String]) -> Vec<String> {
    offered.iter().filter(|f| listed.contains(f)).cloned().collect()
}

/// What a hello answer may call its bot: the referee's handshake and `check-bot` judge it by this
/// one rule.
/// What this referee refuses in a hello answer: another protocol version, or a name, version or
/// author that cannot be shown to people.
pub(crate) fn check_hello(
    protocol: Option<u32>,
    name: &str,
    version: &str,
    author: Option<&str>,
) -> Result<(), String> {
    if let Some(p) = protocol.filter(|&p| p != PROTOCOL_VERSION) {
        return Err(format!("the bot speaks protocol {p}, this referee speaks {PROTOCOL_VERSION}"));
    }
    check_identity(name, version, author)
}

fn check_identity(name: &str, version: &str, author: Option<&str>) -> Result<(), String> {
    // These are shown to people (terminals, logs, pages): a control character in them is an
    // attack on whoever reads the output, and a name that shows nothing passes for another's.
    text::check_name("name", name, 64)?;
    text::check_printable("version", version)?;
    if version.len() > 64 {
        return Err("the version is longer than 64 bytes".into());
    }
    // An author may be left empty; one that is given must show.
    if let Some(author) = author.filter(|a| !a.is_empty()) {
        text::check_name("author", author, 128)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bot in a game without the pre-lead rounds is offered what bots were offered before
    /// `surrender` and `resume` existed; `resume` goes to the seats that can come back (people's
    /// pages, lobby seats), not to a program or a bot the referee connects to; and a feature the
    /// referee did not offer is not taken up, whatever the bot lists.
    #[test]
    fn features_are_offered_where_they_can_be_used() {
        let program = BotSpec::Command(vec!["bot".into()]);
        let person = BotSpec::Human { token: "t".into() };
        assert_eq!(offered_features(&program, false), ["signals", "persistent"]);
        assert_eq!(offered_features(&program, true), ["signals", "persistent", "surrender"]);
        assert_eq!(offered_features(&person, false), ["signals", "persistent", "resume"]);
        let seat = BotSpec::TcpSeat { token: "t".into() };
        assert_eq!(offered_features(&seat, false), ["signals", "persistent", "resume"]);
        let listening = BotSpec::TcpConnect("h:1".into());
        assert_eq!(offered_features(&listening, false), ["signals", "persistent"]);
        let listed = vec!["resume".to_string(), "surrender".into(), "telepathy".into()];
        assert_eq!(taken_up(&offered_features(&program, false), &listed), Vec::<String>::new());
        assert_eq!(taken_up(&offered_features(&person, true), &listed), ["surrender", "resume"]);
    }
}
