//! The par of each card of a record (issue 30, spec/par.md): the record is checked by `replay`
//! first, then its actions are applied again to a `rules::Game` to find the position before each
//! card, and `aluette-par` solves the positions of each deal as one line (`Solver::solve_line`:
//! last card first, one table). A position that needs more than the node budget is left
//! unsolved (`None`), and so are the ones before it, the same way on every run.

use crate::replay::{self, ReplayError};
use crate::text::Shown;
use par::{Position, Solver};
use protocol::record::RecordLine;
use rules::{Action, Card, Deck, Game, Seat, Team};
use std::path::Path;

/// Nodes one position may take by default: 0.35 to 0.6 s in a release build (0.17-0.3 us a
/// node on the benchmark's machines, bench/README.md "Par").
pub(crate) const DEFAULT_NODES: u64 = 2_000_000;

/// One card played, with the par of its seat's team before and after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) deal: u16,
    /// 1..=9.
    pub(crate) trick: u8,
    pub(crate) seat: Seat,
    pub(crate) card: Card,
    /// The par for the seat's team, `None` when not solved within the budget.
    pub(crate) before: Option<i8>,
    pub(crate) after: Option<i8>,
}

impl Decision {
    /// What the card cost its team: the par it gave away (never negative).
    pub(crate) fn cost(&self) -> Option<i8> {
        Some(self.before? - self.after?)
    }
}

/// A deal's par: at the first lead, each decision, and what the deal scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DealPar {
    pub(crate) deal: u16,
    /// Team 0's points minus team 1's under perfect play from the first lead.
    pub(crate) start: Option<i8>,
    /// Team 0's points minus team 1's as the deal was played.
    pub(crate) result: i8,
    pub(crate) decisions: Vec<Decision>,
}

/// A record's par, deal by deal, and who sat where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RecordPar {
    pub(crate) game: u64,
    /// Each seat's bot as the header names it: name and version.
    pub(crate) seats: [String; 4],
    pub(crate) deals: Vec<DealPar>,
}

/// The par of every card of the record at `path`, which is checked first.
pub(crate) fn analyse(path: &Path, nodes: u64) -> Result<RecordPar, String> {
    match replay::replay_file(path) {
        Ok(_) | Err(ReplayError::CutShort { .. }) => {}
        Err(e @ ReplayError::Io(_)) => return Err(e.to_string()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read the record: {e}", path.display()))?;
    // The replay accepted every complete line; a cut's half line at the end is dropped.
    let lines = text.lines().filter_map(|l| serde_json::from_str::<RecordLine>(l).ok());
    walk(lines, nodes).map_err(|e| format!("{}: {e}", path.display()))
}

/// A card of a deal: the position before it, who played it, and the card.
type Played = (Position, Seat, Card);

/// The positions of each deal, from a checked record's lines.
fn walk(lines: impl Iterator<Item = RecordLine>, nodes: u64) -> Result<RecordPar, String> {
    let mut game: Option<Game> = None;
    let mut out = RecordPar { game: 0, seats: Default::default(), deals: Vec::new() };
    // The deal in progress: its number and, for each card, the position before it.
    let mut current: Option<(u16, Vec<Played>)> = None;
    for line in lines {
        let g = game.as_mut();
        let (seat, action) = match (line, g) {
            (RecordLine::Header(h), _) => {
                let (rules, _) = convert::rules_from_wire(&h.rules)?;
                let dealer = convert::seat(h.first_dealer).ok_or("the first dealer is no seat")?;
                out.game = h.game;
                for (slot, s) in out.seats.iter_mut().zip(&h.seats) {
                    *slot = format!("{} {}", Shown(&s.name), Shown(&s.version)).trim().into();
                }
                game = Some(Game::new(rules, dealer));
                continue;
            }
            (RecordLine::Deal { deal, deck, .. }, Some(g)) => {
                let cards: Vec<Card> = deck.iter().map(|&c| convert::card(c)).collect();
                let deck = Deck::from_cards(&cards).map_err(|e| e.to_string())?;
                g.deal(&deck).map_err(|e| e.to_string())?;
                current = Some((deal, Vec::new()));
                continue;
            }
            (RecordLine::Vote { seat, accept, .. }, _) => (seat, Action::Vote(accept)),
            (RecordLine::Discard { seat, cards, .. }, _) => {
                (seat, Action::Discard(convert::set(&cards).0))
            }
            (RecordLine::Offer { seat, offer, .. }, _) => (seat, Action::Offer(offer)),
            (RecordLine::Reply { seat, accept, .. }, _) => (seat, Action::Reply(accept)),
            (RecordLine::Announce { seat, announce, .. }, _) => (seat, Action::Announce(announce)),
            (RecordLine::Play { seat, card, .. }, _) => (seat, Action::Play(convert::card(card))),
            _ => continue,
        };
        let g = game.as_mut().ok_or("an action before the header")?;
        let seat = convert::seat(seat).ok_or("a seat that is not 0..3")?;
        if let (Action::Play(card), Some((_, cards))) = (action, current.as_mut())
            && let Some(p) = Position::from_game(g)
        {
            cards.push((p, seat, card));
        }
        let ended = g
            .apply(seat, action)
            .map_err(|e| format!("the checked record does not replay: {e}"))?
            .iter()
            .any(|e| matches!(e, rules::Event::DealOver(_)));
        // An accepted surrender ends its deal before any card: nothing to solve.
        if ended
            && let Some((deal, cards)) = current.take()
            && !cards.is_empty()
        {
            out.deals.push(solve_deal(deal, &cards, nodes));
        }
    }
    Ok(out)
}

/// Solves each position of one deal, last card first (see the module's comment).
fn solve_deal(deal: u16, cards: &[Played], nodes: u64) -> DealPar {
    let mut solver = Solver::with_table(20);
    let Some(&(last, _, last_card)) = cards.last() else {
        return DealPar { deal, start: None, result: 0, decisions: Vec::new() };
    };
    let mut end = last;
    // The last card is the last seat's own: it plays.
    let _ = end.play(last_card);
    let line: Vec<Position> = cards.iter().map(|c| c.0).chain([end]).collect();
    // pars[i]: team 0's par before card i; pars[n] the deal's result.
    let pars: Vec<Option<i8>> =
        solver.solve_line(&line, nodes).into_iter().map(|p| p.map(par::Par::value)).collect();
    let result = solver.solve(&end).value();
    let side = |v: Option<i8>, team: Team| v.map(|v| if team.index() == 0 { v } else { -v });
    let decisions = cards
        .iter()
        .enumerate()
        .map(|(i, &(p, seat, card))| Decision {
            deal,
            trick: p.tricks_done() + 1,
            seat,
            card,
            before: side(pars[i], seat.team()),
            after: side(pars[i + 1], seat.team()),
        })
        .collect();
    DealPar { deal, start: pars[0], result, decisions }
}

/// A team-0 value as words: "team 0 +1", "nobody".
pub(crate) fn value_text(v: Option<i8>) -> String {
    match v {
        None => "?".into(),
        Some(0) => "nobody scores".into(),
        Some(v) if v > 0 => format!("team 0 +{v}"),
        Some(v) => format!("team 1 +{}", -v),
    }
}

/// The readable account of `replay --par`: each card's par and cost, then each seat's summary.
pub(crate) fn account(r: &RecordPar) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Par of game {}: the score perfect play with every hand visible gets (double dummy); a \
         cost is measured against perfect information, not against what the seat could know.",
        r.game
    );
    for d in &r.deals {
        let _ = writeln!(
            s,
            "Deal {}: par at the first lead {}, played {}",
            d.deal,
            value_text(d.start),
            value_text(Some(d.result))
        );
        for x in &d.decisions {
            let num = |v: Option<i8>| v.map_or("?".into(), |v| format!("{v:+}"));
            let _ = writeln!(
                s,
                "  {}.{} seat {} plays {}: par {} -> {}, cost {}",
                x.deal,
                x.trick,
                x.seat,
                x.card,
                num(x.before),
                num(x.after),
                x.cost().map_or("?".into(), |c| c.to_string())
            );
        }
    }
    let _ =
        writeln!(s, "Per seat (cost: par its team gave away; ? = not solved within the budget):");
    for seat in Seat::ALL {
        let mine: Vec<&Decision> =
            r.deals.iter().flat_map(|d| &d.decisions).filter(|x| x.seat == seat).collect();
        let per_deal: Vec<String> = r
            .deals
            .iter()
            .map(|d| {
                let costs = d.decisions.iter().filter(|x| x.seat == seat).map(Decision::cost);
                let known: Vec<i8> = costs.clone().flatten().collect();
                let unknown = costs.count() - known.len();
                let total: i32 = known.iter().map(|&c| i32::from(c)).sum();
                if unknown > 0 {
                    format!("deal {} {total} (+{unknown} ?)", d.deal)
                } else {
                    format!("deal {} {total}", d.deal)
                }
            })
            .collect();
        let mut costly: Vec<&&Decision> = mine.iter().filter(|x| x.cost() > Some(0)).collect();
        // The costliest first; among equals, the earliest.
        costly.sort_by_key(|x| (std::cmp::Reverse(x.cost()), x.deal, x.trick));
        let top: Vec<String> = costly
            .iter()
            .take(3)
            .map(|x| format!("{}.{} {} ({})", x.deal, x.trick, x.card, x.cost().unwrap_or(0)))
            .collect();
        let _ = writeln!(
            s,
            "  seat {seat} {}: {}; costliest: {}",
            r.seats[seat.index()],
            per_deal.join(", "),
            if top.is_empty() { "none".into() } else { top.join(", ") }
        );
    }
    s
}
