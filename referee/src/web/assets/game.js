// What a live page knows of the table, folded from messages: a seat's conversation (the
// protocol's messages to one seat, spec/protocol.md) or the record's lines (the organiser's
// view). No rule is stated here: each question to a person's seat comes with `legal`, what the
// rules allow its answer (the signals, and for a discard the cards it must and may hold), which
// the referee computes with the engine's own checks (spec/protocol.md section 9.1); this file
// only holds a choice to it. Also the clock, and what a table shows people: the last trick until
// the next lead, whose turn it is, each signal's gesture and meaning. No DOM here: `node --test`
// runs it.
"use strict";
(function (root) {
  const C = typeof module === "object" && module.exports ? require("../../html/cards.js") : root.AluetteCards;

  // Each signal's traditional gesture and its meaning (spec/rules.md section 9.1), as a person
  // at the table would see it made.
  const GESTURES = {
    monsieur: ["looks up without moving the head", "I hold Monsieur (3o)"],
    madame: ["tilts the head, smirking", "I hold Madame (3c)"],
    borgne: ["winks", "I hold le Borgne (2o)"],
    vache: ["pouts", "I hold la Vache (2c)"],
    "grand-neuf": ["shows the thumb", "I hold the Grand-neuf (9c)"],
    "petit-neuf": ["shows the little finger", "I hold the Petit-neuf (9o)"],
    "deux-de-chene": ["shows the index finger", "I hold the Deux de chêne (2b)"],
    "deux-d-ecrit": ["shows the ring finger, or mimes writing", "I hold the Deux d'écrit (2s)"],
    "bad-hand": ["shrugs", "my hand is useless"],
    mordienne: ["bites the lip", "I am going for mordienne"],
  };

  // `{ gesture, meaning }` of a signal; a word outside the vocabulary is shown as it came.
  function signalInfo(signal) {
    const s = String(signal);
    if (s.startsWith("aces:")) {
      const n = Number(s.slice(5));
      return {
        gesture: n === 0 ? "keeps the mouth shut" : "opens the mouth " + (n === 1 ? "once" : n + " times"),
        meaning: "I hold " + (n === 0 ? "no ace" : n === 1 ? "exactly one ace" : "exactly " + n + " aces"),
      };
    }
    const g = GESTURES[s];
    return g ? { gesture: g[0], meaning: g[1] } : { gesture: "signals", meaning: s };
  }

  function newTable() {
    return {
      me: null, players: ["seat 0", "seat 1", "seat 2", "seat 3"], rules: {}, clock: null,
      game: null, deal: null, dealer: null, hands: [null, null, null, null], counts: [0, 0, 0, 0],
      received: [], votes: [], chant: null, leader: null, trickNo: 1, table: [], tricks: [],
      won: [0, 0, 0, 0], score: [0, 0], signals: [], errors: [], summaries: [], result: null,
      question: null, log: [],
      // The trick just finished, until the next lead: { trick, leader, cards, winner }.
      lastTrick: null,
      // The seat to act, when the conversation tells it (the tricks; the seat's own questions).
      turn: null,
    };
  }

  function startDeal(t, deal, dealer) {
    Object.assign(t, {
      deal, dealer, votes: [], chant: null, received: [], table: [], tricks: [], trickNo: 1,
      won: [0, 0, 0, 0], leader: (dealer + 1) % 4, counts: [9, 9, 9, 9], signals: [],
      lastTrick: null,
      // The chant vote goes round from the dealer's left; an opening without a vote is told to
      // nobody, so after the vote (or without one) the seat to act is known again at the lead.
      turn: t.rules && t.rules.chant === "on" ? (dealer + 1) % 4 : null,
    });
  }

  // A card on the table, as the referee says it was played: the page shows no card of its own
  // choosing before the referee's `played`, so a fallback card is the one shown.
  function playCard(t, seat, card) {
    if (t.table.some((p) => p.seat === seat)) return; // listed again by a `play` question
    if (t.table.length === 0) {
      t.leader = seat;
      t.lastTrick = null; // the next lead takes the last trick off the table
    }
    t.table.push({ seat, card });
    if (t.hands[seat]) t.hands[seat] = t.hands[seat].filter((c) => c !== card);
    t.counts[seat] = Math.max(0, t.counts[seat] - 1);
    t.turn = t.table.length < 4 ? (seat + 1) % 4 : null;
  }

  // The next leader is the winner, or the leader again after a spoiled trick.
  function endTrick(t, trick, leader, cards, winner) {
    t.tricks.push({ trick, leader, cards, winner });
    if (winner !== null && winner !== undefined) t.won[winner] += 1;
    t.lastTrick = { trick, leader, cards, winner };
    t.table = [];
    t.trickNo = trick + 1;
    t.turn = trick >= 9 ? null : winner === null || winner === undefined ? leader : winner;
  }

  function vote(t, seat, accept) {
    t.votes.push({ seat, accept });
    t.turn = (seat + 1) % 4;
  }

  // Whether folding `m` would take the last trick off the table (the next lead, or the next
  // deal): a person's page shows a finished trick a moment before it does.
  function clearsLastTrick(t, m) {
    if (!t.lastTrick) return false;
    if (m.type === "played") return t.table.length === 0;
    if (m.type === "play") return t.table.length === 0 && m.table.length > 0;
    return m.type === "deal";
  }

  // Seats 0 and 2 are team 0, seats 1 and 3 team 1.
  const teamOf = (seat) => seat % 2;

  // One message to seat `t.me` (or, before `game`, to the page).
  function applyToSeat(t, m) {
    t.question = null;
    switch (m.type) {
      case "game":
        Object.assign(t, newTable(), {
          me: m.seat, players: m.players, rules: m.rules, clock: m.clock, game: m.game,
        });
        break;
      case "deal":
        startDeal(t, m.deal, m.dealer);
        t.hands = [null, null, null, null];
        t.hands[t.me] = C.sortCards(m.hand);
        break;
      case "opening":
        t.hands[t.me] = m.hand; t.votes = m.votes; t.question = m; t.turn = t.me;
        break;
      case "vote": vote(t, m.seat, m.accept); break;
      case "chant": t.chant = m.taken; t.turn = null; break;
      case "discard":
        t.hands[t.me] = m.hand; t.received = m.received; t.question = m; t.turn = t.me;
        break;
      case "play":
        t.hands[t.me] = m.hand; t.trickNo = m.trick; t.leader = m.leader; t.won = m.won.slice();
        t.score = m.score; t.question = m;
        for (const p of m.table) playCard(t, p.seat, p.card);
        t.turn = t.me;
        break;
      case "played": playCard(t, m.seat, m.card); break;
      case "trick":
        // The question's `won` already counts the tricks before it.
        endTrick(t, m.trick, m.leader, m.cards, m.winner);
        break;
      case "deal_over": t.score = m.score; t.summaries.push(m); t.turn = null; break;
      case "game_over": t.result = m; t.score = m.score; t.turn = null; break;
      case "signal": t.signals.push({ from: m.from, signal: m.signal }); break;
      case "error": t.errors.push(m); break;
      case "hello": t.question = m; break;
      default: break; // bots ignore what they do not know (spec/protocol.md section 2)
    }
    return t;
  }

  // One record line (spec/records.md): everything, every hand.
  function applyRecord(t, l) {
    switch (l.type) {
      case "header":
        Object.assign(t, newTable(), {
          players: l.seats.map((s) => s.name), rules: l.rules, clock: l.clock, game: l.game,
        });
        break;
      case "deal":
        startDeal(t, l.deal, l.dealer);
        t.hands = l.hands.map(C.sortCards);
        break;
      case "vote": vote(t, l.seat, l.accept); break;
      case "chant": t.chant = l.taken; t.turn = null; break;
      case "receive":
        t.hands[l.seat] = C.sortCards(t.hands[l.seat].concat(l.cards));
        break;
      case "discard":
        t.hands[l.seat] = t.hands[l.seat].filter((c) => !l.cards.includes(c));
        break;
      case "play": playCard(t, l.seat, l.card); break;
      case "trick": endTrick(t, l.trick, l.leader, l.cards, l.winner); break;
      case "deal_over": t.score = l.score; t.summaries.push(l); t.turn = null; break;
      case "signal": t.signals.push({ from: l.from, signal: l.signal, seen_by: l.seen_by }); break;
      case "fault": t.errors.push({ fault: l.kind, seat: l.seat, message: l.detail || "" }); break;
      case "footer": t.result = l; t.score = l.score; t.turn = null; break;
      default: break;
    }
    return t;
  }

  // Why `chosen` is none of the discards the referee said are legal, or null when it is one:
  // `legal` is the question's `legal.discard` (`count` cards, every card of `must`, only cards
  // of `may`), `q` the question (its `hand` and `rule` word the reason).
  function discardProblem(q, legal, chosen) {
    if (chosen.length !== legal.count) {
      return "choose exactly " + legal.count + " cards (" + chosen.length + " chosen)";
    }
    const rule = q.rule === "free" ? "" : q.rule + ": ";
    const barred = chosen.find((c) => !legal.may.includes(c));
    if (barred !== undefined) {
      if (!q.hand.includes(barred)) return "a chosen card is not in your hand";
      return rule + barred + " is stronger than a card you keep; discard your weakest cards";
    }
    const missing = legal.must.find((c) => !chosen.includes(c));
    if (missing !== undefined) {
      return rule + missing + " must go: it is weaker than a card you discard; discard your weakest cards";
    }
    return null;
  }

  // The signals a question lets its answer carry, as the referee said.
  function allowedSignals(q) {
    return q && q.legal && Array.isArray(q.legal.signals) ? q.legal.signals : [];
  }

  // The clock of a question `elapsed` ms after it came: time left for the answer, then bank.
  function clockLeft(question, elapsed) {
    const time = Math.max(0, question.time_ms - elapsed);
    const over = Math.max(0, elapsed - question.time_ms);
    const bank = question.bank_ms === undefined ? 0 : Math.max(0, question.bank_ms - over);
    return { time, bank };
  }

  // Milliseconds as people read a clock: "1:05", "0:09".
  function clockText(ms) {
    const s = Math.ceil(Math.max(0, ms) / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  const api = {
    newTable, applyToSeat, applyRecord, discardProblem, allowedSignals, clockLeft, clockText,
    signalInfo, clearsLastTrick, teamOf,
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.AluetteGame = api;
})(this);
