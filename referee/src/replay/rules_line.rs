//! The account's rules line: the options in force, spelled as the referee's flags spell them.

use protocol::RulesWire;
use protocol::options::Signals;
use rules::Rules;

/// The rule options in force, each as `name value` in its flag's spelling and in the table's
/// order (`protocol::RULE_OPTIONS`): every option that differs from its default, and always the
/// ones that say what game this is (the chant, the mordienne, the game's length, the signals);
/// under leaky signals, their leak too.
pub(super) fn rules_text(rules: &RulesWire) -> String {
    const ALWAYS: &[&str] = &["chant", "mordienne", "deals", "target", "signals"];
    let defaults =
        convert::rules_wire(&Rules::default(), protocol::options::Seating::Given).values();
    let leaky = rules.signals == Signals::Leaky;
    let shown: Vec<String> = rules
        .values()
        .into_iter()
        .filter(|(name, value)| {
            ALWAYS.contains(name)
                || (leaky && *name == "signal-leak")
                || !defaults.iter().any(|(n, v)| n == name && v == value)
        })
        .map(|(name, value)| format!("{name} {value}"))
        .collect();
    shown.join(", ")
}
