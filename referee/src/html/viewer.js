// The Aluette viewer's script: derives the table after every step from the embedded events
// and draws it. No framework and no network: the page must work from a file, offline.
//
// Step i shows the game after the first i events (step 0: nothing has happened yet).
// URL hashes, for links and for tests:
//   #step=N   open at step N
//   #play=N   open at step 0 and press the forward button N times (through its click handler)
//   #keys=K,… after that, send these keydown keys (ArrowRight, ArrowLeft, Home, End)
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("game-data").textContent);
  const HEADER = DATA.header;
  const EVENTS = DATA.events;
  const VIEW = DATA.view; // null: the whole game; a seat number: what that seat could know
  const LAST = EVENTS.length;

  // Cards: their names, levels and drawing, shared with the referee's live pages (cards.js).
  const {
    TOP_NAMES, SIGNAL_CARDS, level, sortCards, cardTitle, h, card, back, fill, installSuits,
  } = window.AluetteCards;
  installSuits();
  const POSITIONS = ["bottom", "left", "top", "right"];

  const teamOf = (seat) => seat % 2;
  const nameOf = (seat) => (HEADER.seats[seat] || {}).name || "seat " + seat;
  const base = VIEW === null ? 0 : VIEW; // the seat drawn at the bottom
  const positionOf = (seat) => POSITIONS[(seat - base + 4) % 4];

  function cardText(code) {
    return h("span", { class: "code-inline s-" + code[1], title: cardTitle(code), "data-card": code }, code);
  }
  function cardsText(cards) {
    const out = [];
    cards.forEach((c, i) => { if (i) out.push(" "); out.push(cardText(c)); });
    return out;
  }
  const seatText = (seat) => "seat " + seat;
  function usText(us) {
    if (us >= 1000000) return (us / 1e6).toFixed(2) + " s";
    if (us >= 1000) return (us / 1000).toFixed(1) + " ms";
    return us + " µs";
  }
  function signalMeaning(signal) {
    if (SIGNAL_CARDS[signal]) return "I hold " + SIGNAL_CARDS[signal] + " (" + TOP_NAMES[SIGNAL_CARDS[signal]] + ")";
    const aces = /^aces:(\d)$/.exec(signal);
    if (aces) return "I hold exactly " + aces[1] + " ace" + (aces[1] === "1" ? "" : "s");
    if (signal === "bad-hand") return "my hand is useless";
    if (signal === "mordienne") return "I am going for mordienne";
    return signal;
  }

  // ---- State: the table after each step, derived once from the events.
  function initialState() {
    return {
      deal: null, dealer: null,
      hands: [[], [], [], []], counts: [0, 0, 0, 0],
      trick: null, trickNo: 0, won: [0, 0, 0, 0], score: [0, 0],
      votes: [], chant: null, receives: [], discards: [], signals: [], talon: null, pledges: [],
      faults: [], deals: [], dealResult: null, final: null,
    };
  }
  function removeCards(hand, cards) {
    return hand === null ? null : hand.filter((c) => !cards.includes(c));
  }
  function apply(prev, ev) {
    const s = JSON.parse(JSON.stringify(prev));
    switch (ev.type) {
      case "deal":
        s.deal = ev.deal; s.dealer = ev.dealer;
        s.hands = ev.hands.map((hand) => (hand ? sortCards(hand) : null));
        s.counts = ev.hands.map((hand) => (hand ? hand.length : 9));
        s.trick = null; s.trickNo = 0; s.won = [0, 0, 0, 0];
        s.votes = []; s.chant = null; s.receives = []; s.discards = []; s.signals = []; s.pledges = [];
        s.talon = ev.deck ? ev.deck.slice(36) : null;
        s.dealResult = null;
        break;
      case "vote":
        s.votes.push({ seat: ev.seat, accept: ev.accept });
        break;
      case "chant":
        s.chant = ev.taken;
        break;
      case "offer": case "reply": case "announce":
        s.pledges.push(ev);
        break;
      case "receive":
        s.receives.push(ev);
        if (s.hands[ev.seat] && ev.cards) s.hands[ev.seat] = sortCards(s.hands[ev.seat].concat(ev.cards));
        s.counts[ev.seat] += ev.count;
        break;
      case "discard":
        s.discards.push(ev);
        if (ev.cards) s.hands[ev.seat] = removeCards(s.hands[ev.seat], ev.cards);
        s.counts[ev.seat] -= ev.count;
        break;
      case "signal":
        s.signals.push(ev);
        break;
      case "play":
        if (!s.trick || s.trick.done) {
          s.trick = { number: s.trickNo + 1, leader: ev.seat, cards: [], winner: null, done: false };
        }
        s.trick.cards.push({ seat: ev.seat, card: ev.card });
        s.hands[ev.seat] = removeCards(s.hands[ev.seat], [ev.card]);
        s.counts[ev.seat] -= 1;
        break;
      case "trick":
        s.trick = { number: ev.trick, leader: ev.leader, cards: ev.cards, winner: ev.winner, done: true };
        s.trickNo = ev.trick;
        if (ev.winner !== null) s.won[ev.winner] += 1;
        break;
      case "deal_over":
        s.won = ev.tricks.slice();
        s.score = ev.score.slice();
        s.dealResult = ev;
        s.deals.push(ev);
        break;
      case "fault":
        s.faults.push(ev);
        break;
      case "footer":
        s.final = ev;
        s.score = ev.score.slice();
        break;
    }
    return s;
  }
  const STATES = [initialState()];
  for (const ev of EVENTS) STATES.push(apply(STATES[STATES.length - 1], ev));

  // ---- Event text, for the log and the "now" panel.
  function describe(ev) {
    const who = seatText(ev.seat);
    switch (ev.type) {
      case "deal": return ["Deal " + ev.deal + ": " + seatText(ev.dealer) + " (" + nameOf(ev.dealer) + ") deals"];
      case "vote": return [who + (ev.accept ? " accepts" : " refuses") + " the chant"];
      case "opening": return [who + " answers its opening question (no vote)"];
      case "chant": return [ev.taken ? "Chant taken: the talon goes out" : "Chant refused"];
      case "offer": return [who + (ev.yes ? " offers to surrender for team " + teamOf(ev.seat) : " does not offer to surrender") + (ev.auto ? " (fallback)" : "")];
      case "reply": return [who + (ev.yes ? " accepts the surrender" : " refuses the surrender: team " + teamOf(ev.seat) + " must make mordienne") + (ev.auto ? " (fallback)" : "")];
      case "announce": return [who + (ev.yes ? " announces mordienne for team " + teamOf(ev.seat) : " announces nothing") + (ev.auto ? " (fallback)" : "")];
      case "receive":
        return ev.cards ? [who + " receives "].concat(cardsText(ev.cards)) : [who + " receives " + ev.count + " talon cards"];
      case "discard":
        return ev.cards ? [who + " discards "].concat(cardsText(ev.cards)) : [who + " discards " + ev.count + " cards"];
      case "signal":
        return [seatText(ev.from) + " signals " + ev.signal + " (" + signalMeaning(ev.signal) + "), seen by " + ev.seen_by.join(" ") + (ev.partial ? " …" : "")];
      case "play": return [who + " plays ", cardText(ev.card)].concat(parText(ev));
      case "trick":
        if (ev.winner === null) return ["Trick " + ev.trick + " spoiled; " + seatText(ev.leader) + " leads again"];
        return ["Trick " + ev.trick + " to " + seatText(ev.winner) + " with ", cardText(ev.cards.find((c) => c.seat === ev.winner).card)];
      case "deal_over": return [dealResultText(ev)];
      case "fault": return ["Fault: " + who + " " + ev.kind + " (" + ev.penalty + "): " + ev.detail];
      case "footer": return [finalText(ev)];
      // A seat's page: the referee stopped this seat's bot, which is told nothing more.
      case "bye": return ["The referee stops this bot (" + ev.reason + "); the seat is told nothing more"];
    }
    return [ev.type];
  }
  // The card's cost against perfect play with every hand visible (spec/par.md), when the page
  // was written with --par.
  function parText(ev) {
    if (!ev.par) return [];
    const num = (v) => v === null ? "?" : (v > 0 ? "+" : "") + v;
    const cost = ev.par.cost === null ? "?" : String(ev.par.cost);
    return [h("span", {
      class: "par-cost" + (ev.par.cost > 0 ? " costly" : ""), "data-testid": "par-cost",
      "data-cost": cost, title: "par for the seat's team before and after this card (double dummy)",
    }, "par " + num(ev.par.before) + " → " + num(ev.par.after) + ", cost " + cost)];
  }
  function pledgeText(ev) {
    const p = ev.pledge;
    const score = "; score " + ev.score[0] + "–" + ev.score[1];
    if (p.kind === "accepted") return "Deal " + ev.deal + ": " + seatText(p.seat) + "'s surrender accepted, team " + p.team + " +" + ev.points + " without play" + score;
    const what = p.kind === "refused" ? seatText(p.seat) + "'s surrender refused" : seatText(p.seat) + " announced mordienne";
    const by = ev.winner === null ? "every trick spoiled" : seatText(ev.winner) + " wins with " + ev.tricks[ev.winner] + " tricks";
    return "Deal " + ev.deal + ": " + what + "; " + by + ", mordienne " + (ev.mordienne ? "made" : "not made") + ": team " + p.team + " +" + ev.points + score;
  }
  function dealResultText(ev) {
    if (ev.pledge) return pledgeText(ev);
    if (ev.winner === null) return "Deal " + ev.deal + ": every trick spoiled, nobody scores" + (ev.counted ? "" : "; dealt again");
    return "Deal " + ev.deal + ": " + seatText(ev.winner) + " wins with " + ev.tricks[ev.winner] + " tricks, team " +
      teamOf(ev.winner) + " +" + ev.points + (ev.mordienne ? " (mordienne!)" : "") + "; score " + ev.score[0] + "–" + ev.score[1];
  }
  function finalText(ev) {
    let text = "Game over (" + ev.status + "): ";
    if (ev.forfeit !== null && ev.forfeit !== undefined) text += "team " + ev.forfeit + " forfeits; ";
    if (ev.winner === null) text += ev.status === "aborted" ? "no result" : "a draw";
    else text += "team " + ev.winner + " (seats " + ev.winner + "+" + (ev.winner + 2) + ") wins";
    return text + ", " + ev.score[0] + "–" + ev.score[1];
  }
  function actorOf(ev) {
    if (!ev) return null;
    if (ev.type === "signal") return ev.from;
    if (["vote", "opening", "offer", "reply", "announce", "receive", "discard", "play", "fault"].includes(ev.type)) return ev.seat;
    return null;
  }

  // ---- Drawing.
  let current = 0;

  function drawHeader() {
    const names = [0, 1, 2, 3].map(nameOf);
    document.getElementById("title").textContent =
      "Aluette · game " + HEADER.game + (VIEW === null ? "" : " · seat " + VIEW + "'s view");
    const rules = HEADER.rules;
    const parts = [
      "team 0: " + names[0] + " + " + names[2], "team 1: " + names[1] + " + " + names[3],
      "chant " + rules.chant, "signals " + rules.signals, "mordienne " + rules.mordienne,
      rules.target ? "to " + rules.target + " points" : rules.deals + " deals",
    ];
    if (rules.surrender === "on") parts.push("surrender on");
    if (HEADER.seed !== undefined) parts.push("match seed " + HEADER.match_seed + ", game seed " + HEADER.seed);
    if (DATA.verified) parts.push("record verified (" + DATA.verified.lines + " lines)");
    document.getElementById("subtitle").textContent = parts.join(" · ");
    if (DATA.cut_short) {
      // A killed referee leaves a record without its footer: the game is shown as far as it
      // went, and every step says that it stops there, without a result.
      const after = DATA.cut_short.after_line;
      const el = document.getElementById("cut-short");
      el.textContent = "Cut short: this record ends" + (after ? " after line " + after : "") +
        " without its footer; the referee stopped before the game ended. The game is shown as far as the record goes, and it has no result.";
      el.hidden = false;
    }
  }

  function drawSeat(s, state, ev) {
    const el = document.getElementById("seat-" + positionOf(s));
    el.setAttribute("data-testid", "seat-" + s);
    el.setAttribute("data-seat", s);
    el.classList.toggle("to-act", actorOf(ev) === s);
    const badges = [
      h("span", { class: "name", title: nameOf(s) }, nameOf(s)),
      h("span", { class: "badge" }, "seat " + s),
      h("span", { class: "badge team-" + teamOf(s) }, "team " + teamOf(s)),
    ];
    if (VIEW === s) badges.push(h("span", { class: "badge me" }, "you"));
    if (state.dealer === s) badges.push(h("span", { class: "badge dealer", title: "dealer" }, "dealer"));
    const hand = state.hands[s];
    const count = hand ? hand.length : state.counts[s];
    if (!hand && count > 0) badges.push(h("span", { class: "badge", "data-testid": "count-" + s, title: "cards held, face down" }, count + " cards"));
    badges.push(h("span", { class: "badge won", "data-testid": "won-" + s, "data-won": state.won[s], title: "tricks won in this deal" },
      "tricks " + state.won[s]));
    const handEl = h("div", {
      class: "hand" + (count === 0 ? " empty" : "") + (count > 9 ? " many" : ""), "data-testid": "hand-" + s, "data-count": count,
      "data-cards": hand ? hand.join(" ") : null, "data-hidden": hand ? null : "true",
    });
    if (hand) {
      for (const c of hand) handEl.appendChild(card(c));
    } else if (count > 0) {
      for (let i = 0; i < count; i++) handEl.appendChild(back());
    }
    el.replaceChildren(h("div", { class: "who" }, badges), handEl);
  }

  function drawTrick(state, ev) {
    const t = state.trick;
    const el = fill("trick", []);
    // Attributes are set afresh in a fixed order, so equal tables give equal markup.
    for (const name of ["data-cards", "data-number", "data-winner"]) el.removeAttribute(name);
    el.setAttribute("data-cards", t ? t.cards.map((c) => c.card).join(" ") : "");
    if (!t) {
      el.appendChild(h("div", { class: "label" }, state.deal === null ? "" : [h("b", {}, "Trick 1"), "not started"]));
      return;
    }
    el.setAttribute("data-number", t.number);
    if (t.done) el.setAttribute("data-winner", t.winner === null ? "spoiled" : t.winner);
    t.cards.forEach((c, i) => {
      const classes = ["slot", "s-" + positionOf(c.seat)];
      if (t.done && t.winner === c.seat) classes.push("winner");
      if (ev && ev.type === "play" && i === t.cards.length - 1 && !t.done) classes.push("latest");
      el.appendChild(h("div", { class: classes.join(" "), "data-seat": c.seat }, [
        card(c.card), h("span", { class: "order" }, (i + 1) + ". seat " + c.seat),
      ]));
    });
    let result;
    if (!t.done) result = "led by seat " + t.leader;
    else if (t.winner === null) result = "spoiled";
    else result = "won by seat " + t.winner;
    el.appendChild(h("div", { class: "label" }, [h("b", {}, "Trick " + t.number), result]));
  }

  function drawBanner(state, ev) {
    let text = "";
    if (current === 0) text = "Press ▶ or → to step through the game";
    else if (state.final) text = finalText(state.final);
    else if (DATA.cut_short && current === LAST) text = "The record is cut short here: no result";
    else if (ev && ev.type === "deal_over") text = dealResultText(ev);
    else if (ev && ev.type === "chant") text = ev.taken ? "Chant taken" : "Chant refused";
    fill("banner", text);
  }

  function drawCurrent(ev) {
    const rows = [h("h2", {}, "Step " + current + " of " + LAST)];
    rows.push(h("div", { "data-testid": "current-event" }, ev ? describe(ev) : "The game is about to start."));
    let think = "—";
    if (ev && ev.auto) think = "auto: the referee answered for the bot (fallback)";
    else if (ev && ev.us !== undefined) {
      think = usText(ev.us) + (ev.cpu_us !== undefined ? " (CPU " + usText(ev.cpu_us) + ")" : "");
    }
    else if (ev && ["vote", "opening", "discard", "play"].includes(ev.type)) think = "not known to this seat";
    rows.push(h("div", { class: "muted", "data-testid": "think-time" }, "think time: " + think));
    fill("current", rows);
  }

  function drawDealInfo(state) {
    if (state.deal === null) {
      fill("deal-info", [h("h2", {}, "Deal"), h("div", { class: "muted" }, "no deal yet")]);
      return;
    }
    const trick = state.trick ? state.trick.number : 0;
    const deals = HEADER.rules.target ? "first to " + HEADER.rules.target + " points" : "of " + HEADER.rules.deals;
    fill("deal-info", [
      h("h2", {}, "Deal"),
      h("div", { class: "big", "data-testid": "deal-number", "data-deal": state.deal }, "Deal " + state.deal + " " + deals),
      h("div", { "data-testid": "dealer", "data-dealer": state.dealer }, "dealer: seat " + state.dealer + " (" + nameOf(state.dealer) + ")"),
      h("div", {}, trick ? "trick " + trick + " of 9" : "before the first trick"),
    ]);
  }

  function drawScore(state) {
    const team = (t) => h("div", { class: "team t" + t }, [
      h("span", {}, "team " + t + " · " + t + "+" + (t + 2)),
      h("span", { class: "pts", "data-testid": "score-" + t }, state.score[t]),
    ]);
    const deals = state.deals.map((d) => h("span", {
      class: "chip" + (d.winner === null ? "" : " t" + teamOf(d.winner)), title: dealResultText(d),
    }, "D" + d.deal + " " + (d.winner === null ? "—" : "+" + d.points + (d.mordienne ? " M" : ""))));
    const el = fill("score", [h("h2", {}, "Score"), h("div", { class: "scoreline" }, [team(0), team(1)]),
      h("div", { class: "chips" }, deals)]);
    el.setAttribute("data-score", state.score.join("-"));
    if (state.final) {
      el.appendChild(h("div", { "data-testid": "result", "data-winner": state.final.winner === null ? "none" : state.final.winner },
        state.final.winner === null ? "no winner" : "team " + state.final.winner + " wins"));
    }
  }

  function drawChant(state) {
    const rows = [h("h2", {}, "Chant")];
    if (HEADER.rules.chant === "off") {
      rows.push(h("div", { class: "none" }, "chant off"));
    } else if (state.deal === null) {
      rows.push(h("div", { class: "none" }, "—"));
    } else {
      const votes = state.votes.map((v) => h("span", { class: "badge", style: "color:#222;background:" + (v.accept ? "#cfe8cf" : "#f3d0cb") },
        "seat " + v.seat + (v.accept ? " ✓" : " ✗")));
      rows.push(h("div", { class: "row", "data-testid": "votes" }, votes.length ? votes : h("span", { class: "none" }, "no votes yet")));
      const result = state.chant === null ? "undecided" : state.chant ? "taken" : "refused";
      rows.push(h("div", { "data-testid": "chant-result" }, "result: " + result));
      for (const r of state.receives) {
        rows.push(h("div", {}, ["seat " + r.seat + " received: "].concat(r.cards ? cardsText(r.cards) : [r.count + " cards"])));
      }
      for (const d of state.discards) {
        rows.push(h("div", {}, ["seat " + d.seat + " discarded: "].concat(d.cards ? cardsText(d.cards) : [d.count + " cards"])));
      }
      if (state.talon) {
        rows.push(h("div", { class: "muted" }, "talon (deck 37–48)" + (state.chant ? "" : ", never seen") + ":"));
        rows.push(h("div", { class: "talon", "data-testid": "talon" }, state.talon.map((c) => card(c, true))));
      }
    }
    fill("chant", rows);
  }

  function drawSignals(state) {
    const rows = [h("h2", {}, "Signals this deal" + (HEADER.rules.signals === "off" ? " (off)" : ""))];
    if (!state.signals.length) {
      rows.push(h("div", { class: "none" }, "none"));
    } else {
      rows.push(h("table", {}, [
        h("tr", {}, [h("th", {}, "from"), h("th", {}, "signal"), h("th", {}, "seen by")]),
      ].concat(state.signals.map((s) => h("tr", { "data-from": s.from }, [
        h("td", {}, "seat " + s.from),
        h("td", { title: signalMeaning(s.signal) }, s.signal),
        h("td", { title: s.partial ? "others may have seen it too" : null }, s.seen_by.join(" ") + (s.partial ? " …" : "")),
      ])))));
    }
    fill("signals", rows).setAttribute("data-count", state.signals.length);
  }

  function drawFaults(state) {
    const rows = [h("h2", {}, "Faults")];
    if (!state.faults.length) {
      rows.push(h("div", { class: "none" }, "none"));
    } else {
      // Two rows a fault: what and what it cost, then the detail across the whole panel, which
      // is too narrow for four columns once a detail quotes a bot's line.
      const rows2 = [h("tr", {}, [h("th", {}, "seat"), h("th", {}, "kind"), h("th", {}, "penalty")])];
      for (const f of state.faults) {
        const title = f.action + (f.raw ? "\nline: " + f.raw : "");
        rows2.push(h("tr", { class: "fault-head", title: title }, [
          h("td", {}, f.seat),
          h("td", { class: "fault-kind" }, f.kind),
          h("td", {}, f.penalty + (f.strikes ? " · strike " + f.strikes : "")),
        ]));
        rows2.push(h("tr", { class: "fault-detail", title: title }, [
          h("td", { class: "text", colspan: 3 }, f.detail + (f.trick ? " (deal " + f.deal + ", trick " + f.trick + ")" : f.deal ? " (deal " + f.deal + ")" : "")),
        ]));
      }
      rows.push(h("table", {}, rows2));
    }
    fill("faults", rows).setAttribute("data-count", state.faults.length);
  }

  function drawLog() {
    const items = [];
    for (let i = 0; i < current; i++) {
      const ev = EVENTS[i];
      const cls = "k-" + ev.type + (i === current - 1 ? " current" : "");
      items.push(h("li", { class: cls, value: i + 1, "data-step": i + 1 }, describe(ev)));
    }
    const log = fill("log", items);
    const last = log.lastElementChild;
    if (last) log.scrollTop = last.offsetTop - log.clientHeight + last.offsetHeight + 8;
  }

  function render() {
    const state = STATES[current];
    const ev = current > 0 ? EVENTS[current - 1] : null;
    document.body.setAttribute("data-step", current);
    const counter = document.getElementById("step-counter");
    counter.textContent = "step " + current + " / " + LAST;
    counter.setAttribute("data-step", current);
    counter.setAttribute("data-last", LAST);
    document.getElementById("first").disabled = current === 0;
    document.getElementById("prev").disabled = current === 0;
    document.getElementById("next").disabled = current === LAST;
    document.getElementById("last").disabled = current === LAST;
    const slider = document.getElementById("slider");
    slider.max = LAST;
    slider.value = current;
    for (let s = 0; s < 4; s++) drawSeat(s, state, ev);
    drawTrick(state, ev);
    drawBanner(state, ev);
    drawCurrent(ev);
    drawDealInfo(state);
    drawScore(state);
    drawChant(state);
    drawSignals(state);
    drawFaults(state);
    drawLog();
  }

  function go(step) {
    const n = Math.max(0, Math.min(LAST, Number.isFinite(step) ? Math.trunc(step) : 0));
    current = n;
    render();
    try {
      history.replaceState(null, "", "#step=" + n);
    } catch (e) {
      // Some browsers refuse history changes on file: pages; the hash is only a convenience.
    }
  }

  // ---- Controls.
  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(current - 1));
  document.getElementById("next").addEventListener("click", () => go(current + 1));
  document.getElementById("last").addEventListener("click", () => go(LAST));
  document.getElementById("slider").addEventListener("input", (e) => go(Number(e.target.value)));
  const KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || !KEYS[e.key]) return;
    // The keys act on the game, not on the focused slider (which would step twice).
    e.preventDefault();
    document.getElementById(KEYS[e.key]).click();
  });

  function fromHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (params.has("play")) {
      go(0);
      const presses = Math.max(0, parseInt(params.get("play"), 10) || 0);
      const next = document.getElementById("next");
      for (let i = 0; i < presses; i++) next.click();
    } else {
      go(params.has("step") ? parseInt(params.get("step"), 10) : 0);
    }
    if (params.has("keys")) {
      for (const key of params.get("keys").split(",")) {
        document.dispatchEvent(new KeyboardEvent("keydown", { key: key, bubbles: true }));
      }
    }
  }
  window.addEventListener("hashchange", fromHash);
  drawHeader();
  fromHash();
})();
