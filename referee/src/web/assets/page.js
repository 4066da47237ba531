// Draws a live table (the state `game.js` folds) into the page: seats and hands, the trick in
// progress with who led, finished tricks, tricks won, score, deal and dealer, signals, errors,
// deal summaries and the result. Shared by the human seat's page and the spectator's.
"use strict";
(function (root) {
  const C = root.AluetteCards;
  const { h } = C;
  const POSITIONS = ["bottom", "left", "top", "right"];

  const { fill } = C;

  function who(t, seat) {
    return "seat " + seat + " (" + t.players[seat] + ")" + (seat === t.me ? ", you" : "");
  }

  // `base`: the seat drawn at the bottom; `clickable(code)`: whether a card of the bottom hand
  // is a button (the page's own seat when it must play).
  function draw(t, base, clickable) {
    fill("deal-info", t.game === null ? "waiting for the game" :
      "game " + t.game + (t.deal === null ? "" : " · deal " + t.deal + " · dealer seat " + t.dealer));
    fill("score", "score " + t.score[0] + " – " + t.score[1] + " (seats 0+2 – seats 1+3)");
    for (let s = 0; s < 4; s++) {
      const pos = POSITIONS[(s - base + 4) % 4];
      const hand = t.hands[s];
      const cards = hand ? hand.map((c) => {
        const button = clickable && s === base && clickable(c);
        const el = C.card(c, false, button ? "button" : "span");
        if (button) el.setAttribute("data-testid", "play-" + c);
        return el;
      }) : Array.from({ length: t.counts[s] }, () => C.back());
      fill("seat-" + pos, [
        h("div", { class: "name" + (s === t.dealer ? " dealer" : "") }, [
          who(t, s), s === t.dealer ? " · dealer" : "",
        ]),
        h("div", { class: "won", "data-testid": "won-" + s }, "tricks won: " + t.won[s]),
        h("div", { class: "hand", "data-testid": "hand-" + s }, cards),
      ]);
    }
    fill("trick", [
      h("div", { class: "label" }, t.deal === null ? "" :
        "trick " + Math.min(t.trickNo, 9) + (t.leader === null ? "" : " · led by seat " + t.leader)),
      h("div", { class: "played", "data-testid": "table" }, t.table.map((p) =>
        h("span", { class: "slot" }, [C.card(p.card), h("span", { class: "by" }, "seat " + p.seat)]))),
    ]);
    fill("tricks", t.tricks.map((k) => h("li", { "data-testid": "trick-" + k.trick }, [
      "trick " + k.trick + ": ",
      k.winner === null || k.winner === undefined ? "spoiled" : "won by seat " + k.winner,
      " ", h("span", { class: "minis" }, k.cards.map((p) => C.card(p.card, true))),
    ])));
    fill("chant", t.votes.length === 0 && t.chant === null ? "chant: no votes yet" : [
      "chant votes: " + t.votes.map((v) => "seat " + v.seat + (v.accept ? " accepts" : " refuses")).join(", "),
      t.chant === null ? "" : t.chant ? " · taken" : " · refused",
      t.received.length ? h("div", {}, ["you received "].concat(t.received.map((c) => C.card(c, true)))) : "",
    ]);
    fill("signals-in", t.signals.length === 0 ? "no signals" : t.signals.map((s) =>
      h("li", {}, "seat " + s.from + ": " + s.signal)));
    fill("errors", t.errors.map((e) => h("li", { class: "error" },
      (e.seat === undefined ? "" : "seat " + e.seat + ": ") + e.fault + ": " + e.message +
      (e.action ? " (" + e.action + ")" : ""))));
    fill("summaries", t.summaries.map((d) => h("li", { "data-testid": "summary-" + d.deal },
      "deal " + d.deal + ": " + (d.winner === null ? "every trick spoiled" :
        "seat " + d.winner + " wins with " + d.tricks[d.winner] + " tricks, +" + d.points +
        (d.mordienne ? " (mordienne)" : "")) + (d.counted ? "" : ", dealt again") +
      "; tricks " + d.tricks.join("/") + "; score " + d.score[0] + "–" + d.score[1])));
    fill("result", t.result === null ? "" : h("strong", { "data-testid": "game-result" },
      "game over: " + t.result.score[0] + "–" + t.result.score[1] + ", " +
      (t.result.winner === null ? "a draw" : "seats " + (t.result.winner === 0 ? "0+2" : "1+3") + " win") +
      (t.result.forfeit === undefined || t.result.forfeit === null ? "" : " (forfeit)")));
  }

  root.AluettePage = { draw, fill, who };
})(this);
