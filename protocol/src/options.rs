//! The rule options, named once: their typed values, the `rules` object of `game` messages and
//! record headers, and [`RULE_OPTIONS`], the one table of option names and values that the
//! referee's flags, the tournament config and the schemas derive from.

#[cfg(test)]
use crate::json::{self, Defs};
use std::fmt;

/// A word that is not one of an option's values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadValue {
    /// The values the option has.
    pub expected: &'static [&'static str],
    /// What was given.
    pub given: String,
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not one of {}", self.given, self.expected.join(", "))
    }
}

impl std::error::Error for BadValue {}

/// Declares a value that travels as one of a few words: the enum, its names, its serde form,
/// its schema (an `enum`), and `FromStr`/`Display`.
macro_rules! wire_enum {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident {
            $( $(#[doc = $vdoc:literal])* $variant:ident = $wire:literal, )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[doc = $vdoc])* $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// Every value's wire name, in the same order.
            pub const NAMES: &'static [&'static str] = &[$($wire),*];

            /// The wire name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $wire, )*
                }
            }

            /// The value of a wire name.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $( $wire => Some($name::$variant), )*
                    _ => None,
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::options::BadValue;
            fn from_str(s: &str) -> Result<$name, Self::Err> {
                $name::from_name(s).ok_or_else(|| $crate::options::BadValue {
                    expected: $name::NAMES,
                    given: s.to_owned(),
                })
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                struct V;
                impl<'de> ::serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        write!(f, "one of {}", $name::NAMES.join(", "))
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        $name::from_name(v).ok_or_else(|| E::unknown_variant(v, $name::NAMES))
                    }
                }
                d.deserialize_str(V)
            }
        }

        impl $crate::json::Json for $name {
            type De = $name;
            fn from_de(de: $name) -> $name {
                de
            }
            fn write(&self, o: &mut $crate::json::Out<'_>) {
                // Wire names are plain ASCII words: nothing to escape.
                o.raw(b"\"");
                o.raw(self.as_str().as_bytes());
                o.raw(b"\"");
            }
            fn schema(defs: &mut $crate::json::Defs) -> serde_json::Value {
                $crate::json::def(defs, stringify!($name), |_| {
                    let doc = $crate::schema::doc(&[$($doc),*]);
                    serde_json::json!({ "description": doc, "enum": $name::NAMES })
                })
            }
        }

        impl $crate::options::Words for $name {
            const NAMES: &'static [&'static str] = $name::NAMES;
        }

        impl $crate::options::OptionValue for $name {
            const VALUES: $crate::options::Values = $crate::options::Values::Words($name::NAMES);
            fn text(&self) -> Option<String> {
                Some(self.as_str().to_owned())
            }
        }
    };
}

wire_enum! {
    /// What a seat's bank is charged by (`--clock`).
    pub enum ClockMode {
        /// Wall time, from the question written to the answer read.
        Wall = "wall",
        /// The bot process's own CPU time, with a wall-time cap.
        Cpu = "cpu",
    }
}

wire_enum! {
    /// How seats are given: as listed, or by the traditional draw.
    pub enum Seating {
        /// Seats in the order the bots were given.
        Given = "given",
        /// The traditional draw decides seats and the first dealer.
        Draw = "draw",
        /// Seats in the order the bots were given; a draw decides the first dealer.
        DrawDealer = "draw-dealer",
    }
}

wire_enum! {
    /// A rule that is in force or not.
    pub enum OnOff {
        /// In force.
        On = "on",
        /// Not in force.
        Off = "off",
    }
}

wire_enum! {
    /// Whether a mordienne scores 2, and whether it may be announced (spec/rules.md sections 7.2,
    /// 8 and 12.3).
    pub enum Mordienne {
        /// A mordienne scores 2.
        On = "on",
        /// Every win scores 1.
        Off = "off",
        /// Rebour: a mordienne scores 2 and may be announced; an announcement raises the match's
        /// target (below 10) to 10 points.
        Announced = "announced",
        /// McLeod: only an announced mordienne scores 2, and the match is to 10 points (`target`
        /// 10).
        AnnouncedOnly = "announced-only",
    }
}

wire_enum! {
    /// Who takes the second talon share when the chant is taken.
    pub enum ChantSecond {
        /// The dealer.
        Dealer = "dealer",
        /// The dealer's partner.
        Partner = "partner",
    }
}

wire_enum! {
    /// What a discard may hold.
    pub enum DiscardRule {
        /// Any six cards held.
        Free = "free",
        /// The six weakest cards may not be kept over stronger ones (spec/rules.md).
        KeepHighest = "keep-highest",
    }
}

wire_enum! {
    /// What a deal whose nine tricks are all spoiled counts for.
    pub enum AllSpoiled {
        /// Nothing: the deal counts, nobody scores.
        Nothing = "nothing",
        /// The deal is void and dealt again.
        Redeal = "redeal",
    }
}

wire_enum! {
    /// What a tied game becomes.
    pub enum OnTie {
        /// A draw.
        Draw = "draw",
        /// Deals go on until the tie is broken.
        ExtraDeals = "extra-deals",
    }
}

wire_enum! {
    /// Who is told a signal.
    pub enum Signals {
        /// Signals are refused.
        Off = "off",
        /// The sender's partner.
        Partner = "partner",
        /// All four seats.
        Public = "public",
        /// The partner, and each opponent with probability `signal-leak`.
        Leaky = "leaky",
    }
}

wire_enum! {
    /// Whether a signal must be true of the sender's hand.
    pub enum SignalTruth {
        /// Signals must be true; a false one is a fault.
        Truthful = "truthful",
        /// Signals may bluff.
        Free = "free",
    }
}

wire_enum! {
    /// How a deal's surrender or announcement ended (spec/rules.md section 12).
    pub enum PledgeKind {
        /// The surrender was accepted.
        Accepted = "accepted",
        /// The surrender was refused.
        Refused = "refused",
        /// A mordienne was announced.
        Announced = "announced",
    }
}

wire_enum! {
    /// What a fault costs, as a policy.
    pub enum OnFault {
        /// The referee plays for the bot and counts a strike.
        Fallback = "fallback",
        /// The bot's partnership loses the game.
        Forfeit = "forfeit",
    }
}

/// The values an option takes, for flags, config keys and documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// One of these words.
    Words(&'static [&'static str]),
    /// A whole number.
    Integer,
    /// A number between 0 and 1.
    Probability,
}

/// A value that travels as one of a few words (declared by `wire_enum!`), for code that takes
/// any of them: the referee's flags list and parse these words.
pub trait Words {
    /// Every value's wire name, in declaration order.
    const NAMES: &'static [&'static str];
}

/// A type that a rule option holds.
pub trait OptionValue {
    /// The values it takes.
    const VALUES: Values;
    /// The value as the option's flag would be given it; `None` for an option that is not set.
    fn text(&self) -> Option<String>;
}

impl OptionValue for u8 {
    const VALUES: Values = Values::Integer;
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl OptionValue for Option<u16> {
    const VALUES: Values = Values::Integer;
    fn text(&self) -> Option<String> {
        self.map(|n| n.to_string())
    }
}

/// An on/off option left out of the `rules` object while off, so that adding it changed no
/// byte of a game without it.
impl OptionValue for Option<OnOff> {
    const VALUES: Values = Values::Words(OnOff::NAMES);
    fn text(&self) -> Option<String> {
        self.map(|v| v.as_str().to_owned())
    }
}

impl OptionValue for f64 {
    const VALUES: Values = Values::Probability;
    fn text(&self) -> Option<String> {
        Some(self.to_string())
    }
}

/// One rule option: its name, the same in `game` messages, record headers, the referee's flags
/// (`--NAME`) and the tournament config's `[rules]` keys, its values and its doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleOption {
    /// The option's name.
    pub name: &'static str,
    /// Its values.
    pub values: Values,
    /// What it means, as doc lines.
    pub doc: &'static [&'static str],
}

/// Declares the `rules` object and, from the same lines, [`RULE_OPTIONS`].
macro_rules! rule_options {
    (
        $(#[doc = $doc:literal])*
        pub struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                pub $field:ident($wire:literal): $ty:ty $(= $opt:ident)?,
            )*
        }
    ) => {
        object! {
            open
            $(#[doc = $doc])*
            #[derive(Clone, Debug, PartialEq)]
            pub struct $name {
                $( $(#[doc = $fdoc])* pub $field($wire): $ty $(= $opt)?, )*
            }
        }

        impl $name {
            /// Each option that is set, by name, with its value as its flag would be given it,
            /// in the order of [`RULE_OPTIONS`].
            pub fn values(&self) -> Vec<(&'static str, String)> {
                let mut out = Vec::new();
                $(
                    if let Some(text) = OptionValue::text(&self.$field) {
                        out.push(($wire, text));
                    }
                )*
                out
            }
        }

        /// Every rule option, in the order of the `rules` object.
        pub const RULE_OPTIONS: &[RuleOption] = &[
            $( RuleOption {
                name: $wire,
                values: <$ty as OptionValue>::VALUES,
                doc: &[$($fdoc),*],
            }, )*
        ];
    };
}

rule_options! {
    /// The rule options in force, as in `game` messages and record headers; names and values are
    /// those of `spec/rules.md`. Every value is the one the organiser set, even one without effect.
    pub struct RulesWire {
        /// How seats were given.
        pub seating("seating"): Seating,
        /// Whether the chant is played.
        pub chant("chant"): OnOff,
        /// Who takes the second talon share.
        pub chant_second("chant-second"): ChantSecond,
        /// The discard rule.
        pub discard("discard"): DiscardRule,
        /// What a deal of nine spoiled tricks counts for.
        pub all_spoiled("all-spoiled"): AllSpoiled,
        /// Whether a mordienne scores 2, and whether it may be announced.
        pub mordienne("mordienne"): Mordienne,
        /// Tricks in a row that make a mordienne: 2 or 3.
        pub mordienne_run("mordienne-run"): u8,
        /// Number of deals, when the game is a fixed number of deals (else `target` is given).
        pub deals("deals"): Option<u16> = optional,
        /// Target score, when the game is played to a target (else `deals` is given).
        pub target("target"): Option<u16> = optional,
        /// What a tied game becomes.
        pub on_tie("on-tie"): OnTie,
        /// Who is told a signal.
        pub signals("signals"): Signals,
        /// Probability that each opponent sees a signal under `leaky`.
        pub signal_leak("signal-leak"): f64,
        /// Whether signals must be true.
        pub signal_truth("signal-truth"): SignalTruth,
        /// Whether a team may offer to surrender before the first lead; left out when off.
        pub surrender("surrender"): Option<OnOff> = optional,
        /// Whether an announced mordienne that fails gives the other team 2 points (a house
        /// rule, spec/rules.md section 12.4); left out when off.
        pub announce_penalty("announce-penalty"): Option<OnOff> = optional,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_follows_the_rules_object() {
        let names: Vec<&str> = RULE_OPTIONS.iter().map(|o| o.name).collect();
        assert_eq!(names[..3], ["seating", "chant", "chant-second"]);
        let chant = RULE_OPTIONS.iter().find(|o| o.name == "discard").unwrap();
        assert_eq!(chant.values, Values::Words(&["free", "keep-highest"]));
        let mut defs = Defs::new();
        let (props, _, _) = <RulesWire as json::Object>::properties(&mut defs);
        assert_eq!(props.keys().count(), RULE_OPTIONS.len());
        for o in RULE_OPTIONS {
            assert!(props.contains_key(o.name), "{}", o.name);
        }
        assert_eq!("leaky".parse::<Signals>(), Ok(Signals::Leaky));
        assert!("maybe".parse::<OnOff>().unwrap_err().to_string().contains("on, off"));
    }
}
