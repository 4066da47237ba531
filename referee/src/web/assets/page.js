// Draws a live table (the state `game.js` folds) into the page, as people at a card table see
// it: the four seats around the felt (the person's own at the bottom, the partner across, the
// seat to act marked), the trick in progress at each seat's side of the centre and the last
// trick there too, labelled and its winner marked, until the next lead; the score as "you" and
// "them"; each signal's gesture and meaning; the end of the game as a summary on the table.
// Shared by the human seat's page and the spectator's. Every name is a text node.
"use strict";
(function (root) {
  const C = root.AluetteCards;
  const G = root.AluetteGame;
  const { h, fill } = C;
  const POSITIONS = ["bottom", "left", "top", "right"];

  const partnerOf = (seat) => (seat + 2) % 4;
  // A person's own seat (the page with a move to make) is "you"; a spectator's view of a seat,
  // which folds the same conversation, names seats by number.
  const PERSONAL = !!document.getElementById("ask");
  const mine = (t) => PERSONAL && t.me !== null;

  // A seat as a sentence names it: "you", "Ana (partner)", "seat 3 (bob)" for a spectator.
  function who(t, seat) {
    if (!mine(t)) return "seat " + seat + " (" + t.players[seat] + ")";
    if (seat === t.me) return "you";
    return t.players[seat] + (seat === partnerOf(t.me) ? " (partner)" : "");
  }

  // A team as a sentence names it: "you and Ana", "bob and eve", "seats 0+2" for a spectator.
  function team(t, n) {
    const [a, b] = [n, n + 2];
    if (!mine(t)) return "seats " + a + "+" + b;
    if (G.teamOf(t.me) === n) return "you and " + t.players[partnerOf(t.me)];
    return t.players[a] + " and " + t.players[b];
  }

  function seatPlate(t, s) {
    const tags = [];
    if (mine(t) && s === t.me) tags.push(h("span", { class: "tag you" }, "you"));
    if (mine(t) && s === partnerOf(t.me)) tags.push(h("span", { class: "tag partner", "data-testid": "partner" }, "partner"));
    if (s === t.dealer) tags.push(h("span", { class: "tag dealer", title: "the dealer" }, "dealer"));
    const turn = t.turn === s && t.result === null;
    return h("div", { class: "plate" + (turn ? " turn" : ""), "data-testid": turn ? "turn" : null }, [
      h("div", { class: "name" + (s === t.dealer ? " dealer" : "") }, [
        turn ? h("span", { class: "to-act", title: "to act" }, "▶ ") : "",
        mine(t) ? "" : "seat " + s + " · ", t.players[s],
      ]),
      h("div", { class: "tags" }, [tags, h("span", { class: "won", "data-testid": "won-" + s }, "tricks won: " + t.won[s])]),
    ]);
  }

  function seatHand(t, s, base, clickable) {
    const hand = t.hands[s];
    if (!hand) {
      return h("div", { class: "hand fan", "data-testid": "hand-" + s, title: t.counts[s] + " cards" },
        Array.from({ length: t.counts[s] }, () => C.back()));
    }
    const mine = s === base;
    return h("div", { class: "hand" + (mine ? " mine" : " open"), "data-testid": "hand-" + s }, hand.map((c) => {
      const button = clickable && mine && clickable(c);
      const el = C.card(c, !mine, button ? "button" : "span");
      if (button) el.setAttribute("data-testid", "play-" + c);
      return el;
    }));
  }

  // The centre: the cards of the trick in progress at their players' sides, or, until the next
  // lead, the last trick (each card labelled by its player, the winner's marked).
  function centre(t, base) {
    if (t.result !== null) return summary(t);
    if (t.deal === null) return h("div", { class: "label" }, "waiting for the game");
    const last = t.table.length === 0 ? t.lastTrick : null;
    const cards = last ? last.cards : t.table;
    const slots = POSITIONS.map((pos) => h("div", { class: "slot pos-" + pos }));
    for (const p of cards) {
      const winner = last && p.seat === last.winner;
      const slot = slots[(p.seat - base + 4) % 4];
      slot.setAttribute("data-seat", String(p.seat));
      if (winner) slot.classList.add("winner");
      C.append(slot, [C.card(p.card), h("span", { class: "by", "data-testid": "by-" + p.seat }, [
        who(t, p.seat),
        winner ? h("span", { class: "badge" }, mine(t) && p.seat === t.me ? " win" : " wins") : "",
      ])]);
    }
    let label;
    if (last) {
      label = "trick " + last.trick + " · " + (last.winner === null || last.winner === undefined ?
        "spoiled (a tie): " + who(t, last.leader) + " leads again" : "won by " + who(t, last.winner));
    } else {
      label = "trick " + Math.min(t.trickNo, 9) + (t.table.length === 0 ? "" : " · led by " + who(t, t.leader));
    }
    return h("div", { class: "trick-area" + (last ? " last" : ""), "data-testid": last ? "last-trick" : "current-trick" }, [
      h("div", { class: "label", "data-testid": "trick-label" }, label),
      h("div", { class: "cross", "data-testid": "table" }, slots),
    ]);
  }

  // The end of the game, on the table: who won, the score, each deal.
  function summary(t) {
    const r = t.result;
    const forfeit = r.forfeit !== undefined && r.forfeit !== null;
    let headline;
    if (r.winner === null || r.winner === undefined) headline = "A draw";
    else headline = team(t, r.winner) + " win";
    if (mine(t) && r.winner !== null && r.winner !== undefined) {
      headline = G.teamOf(t.me) === r.winner ? "You won, with " + t.players[partnerOf(t.me)] + "!" :
        "You lost: " + headline;
    }
    const us = mine(t) ? G.teamOf(t.me) : 0;
    const other = 1 - us;
    return h("div", { class: "summary", "data-testid": "game-summary" }, [
      h("h2", {}, "Game over"),
      h("p", { class: "headline" }, headline + (forfeit ? " (" + team(t, r.forfeit) + " forfeited)" : "")),
      h("p", { class: "final" }, team(t, us) + " " + r.score[us] + " – " + r.score[other] + " " + team(t, other)),
      h("table", {}, [
        h("tr", {}, [h("th", {}, "deal"), h("th", {}, "won by"), h("th", {}, "points"), h("th", {}, "score")]),
        t.summaries.map((d) => h("tr", {}, [
          h("td", {}, String(d.deal)),
          h("td", {}, d.winner === null ? "nobody (all spoiled)" : who(t, d.winner) + " (" + d.tricks[d.winner] + " tricks)"),
          h("td", {}, (d.counted ? "+" + d.points : "dealt again") + (d.mordienne ? " mordienne" : "")),
          h("td", {}, d.score[us] + "–" + d.score[other]),
        ])),
      ]),
    ]);
  }

  function signalLine(t, s) {
    const info = G.signalInfo(s.signal);
    return h("li", { class: "signal-in" }, [
      h("strong", {}, who(t, s.from)), " " + info.gesture + ": ",
      h("q", {}, info.meaning), h("span", { class: "word" }, " (" + s.signal + ")"),
    ]);
  }

  function trickLine(t, k) {
    const spoiled = k.winner === null || k.winner === undefined;
    return h("li", { "data-testid": "trick-" + k.trick }, [
      "trick " + k.trick + ": " + (spoiled ? "spoiled" : "won by " + who(t, k.winner)),
      h("span", { class: "minis" }, k.cards.map((p) => h("span", { class: "mini-slot" + (p.seat === k.winner ? " winner" : "") }, [
        C.card(p.card, true), h("span", { class: "by" }, mine(t) && p.seat === t.me ? "you" : t.players[p.seat]),
      ]))),
    ]);
  }

  function dealLine(t, d) {
    const won = d.winner === null ? "every trick spoiled" :
      who(t, d.winner) + (mine(t) && d.winner === t.me ? " win" : " wins") + " with " + d.tricks[d.winner] + " tricks, +" + d.points +
        " for " + team(t, G.teamOf(d.winner)) + (d.mordienne ? " (mordienne)" : "");
    return h("li", { "data-testid": "summary-" + d.deal },
      "deal " + d.deal + ": " + won + (d.counted ? "" : ", dealt again") +
      "; tricks " + d.tricks.join("/") + "; score " + d.score[0] + "–" + d.score[1]);
  }

  // The score, the person's team first: "You & partner 2", "Opponents 3" (their names in the
  // tooltip); a spectator's by seats.
  function scoreBox(t) {
    const us = mine(t) ? G.teamOf(t.me) : 0;
    const other = 1 - us;
    const name = (n) => !mine(t) ? team(t, n) : n === us ? "You & partner" : "Opponents";
    return [us, other].map((n) => h("div", { class: "team " + (n === us ? "us" : "them"), title: team(t, n) }, [
      h("span", {}, name(n) + " "), h("strong", { "data-testid": n === us ? "score-us" : "score-them" }, String(t.score[n])),
    ]));
  }

  // `base`: the seat drawn at the bottom; `clickable(code)`: whether a card of the bottom hand
  // is a button (the page's own seat when it must play).
  function draw(t, base, clickable) {
    fill("deal-info", t.game === null ? "waiting for the game" :
      "game " + t.game + (t.deal === null ? "" : " · deal " + t.deal + " · dealer seat " + t.dealer));
    fill("score", scoreBox(t));
    for (let s = 0; s < 4; s++) {
      const pos = POSITIONS[(s - base + 4) % 4];
      const el = fill("seat-" + pos, [seatPlate(t, s), seatHand(t, s, base, clickable)]);
      if (el) el.classList.toggle("turn", t.turn === s && t.result === null);
    }
    fill("trick", centre(t, base));
    // The end of the game's summary takes the table's width (the side seats make way).
    const table = document.querySelector(".table");
    if (table) table.classList.toggle("over", t.result !== null);
    fill("tricks", t.tricks.map((k) => trickLine(t, k)));
    fill("chant", t.votes.length === 0 && t.chant === null ? "chant: no votes yet" : [
      "chant votes: " + t.votes.map((v) => who(t, v.seat) + (v.accept ? " accepts" : " refuses")).join(", "),
      t.chant === null ? "" : t.chant ? " · taken" : " · refused",
      t.received.length ? h("div", {}, ["you received "].concat(t.received.map((c) => C.card(c, true)))) : "",
    ]);
    fill("signals-in", t.signals.length === 0 ? h("li", { class: "none" }, "no signals") : t.signals.map((s) => signalLine(t, s)));
    fill("errors", t.errors.map((e) => h("li", { class: "error" },
      (e.seat === undefined ? "" : who(t, e.seat) + ": ") + e.fault + ": " + e.message +
      (e.action ? " (" + e.action + ")" : ""))));
    fill("summaries", t.summaries.map((d) => dealLine(t, d)));
    fill("result", t.result === null ? "" : h("strong", { "data-testid": "game-result" },
      "game over: " + t.result.score[0] + "–" + t.result.score[1] + ", " +
      (t.result.winner === null ? "a draw" : "seats " + (t.result.winner === 0 ? "0+2" : "1+3") + " win") +
      (t.result.forfeit === undefined || t.result.forfeit === null ? "" : " (forfeit)")));
  }

  root.AluettePage = { draw, fill, who, team };
})(this);
