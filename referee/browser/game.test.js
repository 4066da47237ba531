// Unit tests of the live pages' logic (referee/src/web/assets/game.js), under Node's built-in
// test runner; referee/tests/it/web.rs runs them with the referee's tests.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const G = require("../src/web/assets/game.js");

const FIFTEEN = ["3o", "Ao", "4o", "2c", "9c", "Kc", "Jc", "5s", "6s", "7s", "8b", "4b", "5b", "6b", "7b"];
// What the referee tells the page of this hand's discards (rules::DiscardChoice): under
// keep-highest the five weakest must go and one of the two 6s completes them; under free any six.
const KEEP_HIGHEST = { count: 6, must: ["4o", "4b", "5b", "5s"], may: ["4o", "4b", "5b", "5s", "6s", "6b"] };
const FREE = { count: 6, must: [], may: FIFTEEN };
const question = (rule) => ({ type: "discard", id: 1, hand: FIFTEEN, rule });

test("a discard holding a card the referee says may not go is refused, and says why", () => {
  const weakest = ["4o", "4b", "5b", "5s", "6s", "6b"];
  assert.equal(G.discardProblem(question("keep-highest"), KEEP_HIGHEST, weakest), null);
  const withMonsieur = ["3o"].concat(weakest.slice(1));
  assert.match(G.discardProblem(question("keep-highest"), KEEP_HIGHEST, withMonsieur), /keep-highest: 3o is stronger/);
  assert.equal(G.discardProblem(question("free"), FREE, withMonsieur), null, "free takes any six");
});

test("a discard is six cards of the hand", () => {
  assert.match(G.discardProblem(question("free"), FREE, FIFTEEN.slice(0, 5)), /exactly 6/);
  assert.match(G.discardProblem(question("free"), FREE, ["Ab", "3o", "Ao", "4o", "2c", "9c"]), /not in your hand/);
});

test("any of the cards the referee says may go completes the discard; one it must is missed", () => {
  // Under keep-highest four cards are weaker than the 7s, and two of the three 7s complete them.
  const hand = ["3o", "3c", "2o", "2c", "9c", "9o", "2b", "2s", "7o", "4o", "4b", "5b", "5s", "7s", "7b"];
  const legal = { count: 6, must: ["4o", "4b", "5b", "5s"], may: ["4o", "4b", "5b", "5s", "7o", "7s", "7b"] };
  const q = { type: "discard", id: 2, hand, rule: "keep-highest" };
  const base = ["4o", "4b", "5b", "5s"];
  assert.equal(G.discardProblem(q, legal, base.concat(["7s", "7b"])), null);
  assert.equal(G.discardProblem(q, legal, base.concat(["7o", "7b"])), null);
  assert.match(G.discardProblem(q, legal, base.concat(["7s", "2s"])), /keep-highest: 2s is stronger/);
  assert.match(G.discardProblem(q, legal, ["4b", "5b", "5s", "7o", "7s", "7b"]), /keep-highest: 4o must go/);
});

test("the signals offered are the question's own legal ones, none without them", () => {
  const q = { type: "play", id: 3, hand: ["3o"], legal: { signals: ["monsieur", "aces:0", "bad-hand"] } };
  assert.deepEqual(G.allowedSignals(q), ["monsieur", "aces:0", "bad-hand"]);
  assert.deepEqual(G.allowedSignals({ type: "play", id: 3, hand: ["3o"] }), []);
  assert.deepEqual(G.allowedSignals(null), []);
});

test("the clock runs down the answer time, then the bank", () => {
  const q = { time_ms: 10000, bank_ms: 60000 };
  assert.deepEqual(G.clockLeft(q, 4000), { time: 6000, bank: 60000 });
  assert.deepEqual(G.clockLeft(q, 25000), { time: 0, bank: 45000 });
  assert.deepEqual(G.clockLeft(q, 100000), { time: 0, bank: 0 });
  assert.equal(G.clockText(65000), "1:05");
  assert.equal(G.clockText(9001), "0:10", "a started second is shown");
  assert.equal(G.clockText(-5), "0:00");
});

test("a seat's conversation folds into its table", () => {
  const t = G.newTable();
  const msgs = [
    { type: "game", game: 1, seat: 2, partner: 0, players: ["a", "b", "c", "d"], rules: {}, clock: {} },
    { type: "deal", deal: 1, dealer: 1, hand: ["Kc", "3o", "Ab"] },
    { type: "play", id: 5, deal: 1, trick: 1, leader: 2, table: [], hand: ["3o", "Kc", "Ab"], won: [0, 0, 0, 0], score: [0, 0], time_ms: 1, bank_ms: 1 },
    { type: "played", seat: 2, card: "3o", trick: 1 },
    { type: "played", seat: 3, card: "4b", trick: 1 },
    { type: "trick", trick: 1, leader: 2, cards: [{ seat: 2, card: "3o" }, { seat: 3, card: "4b" }], winner: 2, next: 2 },
  ];
  for (const m of msgs) G.applyToSeat(t, m);
  assert.equal(t.me, 2);
  assert.deepEqual(t.hands[2], ["Kc", "Ab"]);
  assert.equal(t.hands[3], null, "another seat's hand is unknown");
  assert.deepEqual(t.won, [0, 0, 1, 0]);
  assert.deepEqual(t.tricks.map((k) => k.winner), [2]);
  assert.equal(t.table.length, 0);
});

test("the last trick stays until the next lead; a bot's lead waits for it, the seat's own does not", () => {
  const t = G.newTable();
  const msgs = [
    { type: "game", game: 1, seat: 0, partner: 2, players: ["me", "b", "c", "d"], rules: {}, clock: {} },
    { type: "deal", deal: 1, dealer: 3, hand: ["3o", "Kc", "Ab"] },
    { type: "played", seat: 0, card: "3o", trick: 1 },
    { type: "played", seat: 1, card: "4b", trick: 1 },
    { type: "played", seat: 2, card: "5b", trick: 1 },
    { type: "played", seat: 3, card: "6b", trick: 1 },
    { type: "trick", trick: 1, leader: 0, cards: [{ seat: 0, card: "3o" }, { seat: 1, card: "4b" }, { seat: 2, card: "5b" }, { seat: 3, card: "6b" }], winner: 0, next: 0 },
  ];
  for (const m of msgs) G.applyToSeat(t, m);
  assert.equal(t.lastTrick.winner, 0);
  assert.equal(t.lastTrick.cards.length, 4);
  assert.equal(t.turn, 0, "the winner leads");
  const ownLead = { type: "play", id: 9, deal: 1, trick: 2, leader: 0, table: [], hand: ["Kc", "Ab"], won: [1, 0, 0, 0], score: [0, 0], time_ms: 1, bank_ms: 1 };
  assert.equal(G.clearsLastTrick(t, ownLead), false, "the seat's own lead: the trick stays while it thinks");
  assert.equal(G.clearsLastTrick(t, { type: "played", seat: 1, card: "7b", trick: 2 }), true);
  assert.equal(G.clearsLastTrick(t, { type: "deal", deal: 2, dealer: 0, hand: [] }), true);
  G.applyToSeat(t, ownLead);
  assert.notEqual(t.lastTrick, null);
  G.applyToSeat(t, { type: "played", seat: 0, card: "Kc", trick: 2 });
  assert.equal(t.lastTrick, null, "the next lead took it off the table");
  assert.equal(t.turn, 1);
});

test("the table shows the card the referee played, not the one clicked", () => {
  const t = G.newTable();
  G.applyToSeat(t, { type: "game", game: 1, seat: 0, partner: 2, players: ["me", "b", "c", "d"], rules: {}, clock: {} });
  G.applyToSeat(t, { type: "deal", deal: 1, dealer: 3, hand: ["3o", "Kc", "7o"] });
  // The person clicked 3o; the referee refused the answer and played the fallback, 7o.
  G.applyToSeat(t, { type: "error", id: 4, fault: "timeout", message: "no answer", action: "played 7o for you" });
  G.applyToSeat(t, { type: "played", seat: 0, card: "7o", trick: 1 });
  assert.deepEqual(t.table, [{ seat: 0, card: "7o" }]);
  assert.deepEqual(t.hands[0], ["3o", "Kc"]);
  assert.equal(t.errors.length, 1);
});

test("each signal has its gesture and meaning", () => {
  assert.deepEqual(G.signalInfo("borgne"), { gesture: "winks", meaning: "I hold le Borgne (2o)" });
  assert.equal(G.signalInfo("aces:2").gesture, "opens the mouth 2 times");
  assert.equal(G.signalInfo("aces:1").meaning, "I hold exactly one ace");
  assert.equal(G.signalInfo("aces:0").meaning, "I hold no ace");
  assert.equal(G.signalInfo("bad-hand").gesture, "shrugs");
  const vocabulary = ["monsieur", "madame", "borgne", "vache", "grand-neuf", "petit-neuf", "deux-de-chene",
    "deux-d-ecrit", "aces:0", "aces:1", "aces:2", "aces:3", "aces:4", "bad-hand", "mordienne"];
  for (const s of vocabulary) assert.notEqual(G.signalInfo(s).gesture, "signals", s);
  assert.equal(G.signalInfo("<b>x</b>").meaning, "<b>x</b>", "an unknown word is shown as text, as it came");
});

test("the chant vote's turn goes round from the dealer's left, and is unknown after it", () => {
  const t = G.newTable();
  G.applyToSeat(t, { type: "game", game: 1, seat: 0, partner: 2, players: ["me", "b", "c", "d"], rules: { chant: "on" }, clock: {} });
  G.applyToSeat(t, { type: "deal", deal: 1, dealer: 2, hand: [] });
  assert.equal(t.turn, 3);
  G.applyToSeat(t, { type: "vote", seat: 3, accept: false });
  assert.equal(t.turn, 0);
  G.applyToSeat(t, { type: "chant", taken: false });
  assert.equal(t.turn, null, "the openings without a vote are told to nobody");
  const off = G.newTable();
  G.applyToSeat(off, { type: "game", game: 1, seat: 0, partner: 2, players: ["me", "b", "c", "d"], rules: { chant: "off" }, clock: {} });
  G.applyToSeat(off, { type: "deal", deal: 1, dealer: 2, hand: [] });
  assert.equal(off.turn, null);
});
