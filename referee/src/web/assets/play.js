// A person's seat: this page is the seat's bot. It speaks spec/protocol.md over a WebSocket
// (one message per line of the protocol), answers the questions with what the person clicks,
// and lists the feature `resume`, so a reload or a lost connection takes the seat back.
// It shows only what the referee says happened: the card on the table is the `played` card
// (a fallback too), the clock counts down from each question's own `time_ms` and `bank_ms`
// (after a reload, what the referee's clock has left), and every refusal is explained above
// the person's hand. A finished trick stays on the table a moment before the next lead.
"use strict";
(function () {
  const G = window.AluetteGame;
  const C = window.AluetteCards;
  const P = window.AluettePage;
  const { h } = C;
  const params = new URLSearchParams(location.search);
  const token = params.get("token") || "";
  // How long a finished trick stays on the table at least before the next lead is shown: the
  // bots answer in milliseconds, a person needs a moment to see who won. `&hold=MS` in the
  // page's address sets it, 0 to 10000 (a quick player wants less; anything else keeps 1000).
  const HOLD_MS = (() => {
    const given = params.get("hold");
    const ms = given !== null && /^[0-9]{1,5}$/.test(given) ? Number(given) : NaN;
    return ms <= 10000 ? ms : 1000;
  })();

  let t = G.newTable();
  let ws = null;
  let replaying = 0; // messages still to fold without answering, after `resume`
  let asked = null; // { q, at }: the open question and when it came
  let over = false;
  let refusal = null; // the referee's last `error`, shown until the person answers again
  let clicked = null; // the card the person clicked, until the referee says what was played
  let problem = null; // why the page will not send the discard chosen
  const chosen = new Set(); // discard choice
  const signals = new Set(); // signals to send with the next answer
  // Messages not folded yet (the next lead waits for the last trick's moment on the table).
  const queue = [];
  let holdUntil = 0;
  let timer = null;

  function status(text) { P.fill("status", text); }

  function send(answer) {
    if (asked && asked.q.type !== "hello" && signals.size) answer.signals = [...signals];
    signals.clear();
    if (asked && asked.q.type !== "hello") refusal = null;
    asked = null;
    problem = null;
    ws.send(JSON.stringify(answer));
  }

  function connect() {
    ws = new WebSocket("ws://" + location.host + "/ws/seat?token=" + encodeURIComponent(token));
    ws.onmessage = (e) => {
      queue.push({ m: JSON.parse(e.data), at: performance.now() });
      if (timer === null) pump();
    };
    ws.onclose = () => {
      if (over) return;
      status("connection lost: reconnecting…");
      setTimeout(connect, 1000);
    };
  }

  // Folds the messages in order; the one that would take a finished trick off the table waits
  // until the trick has been shown for HOLD_MS. A question's clock runs from when it came.
  function pump() {
    timer = null;
    while (queue.length) {
      const { m, at } = queue[0];
      if (replaying === 0 && G.clearsLastTrick(t, m)) {
        const wait = holdUntil - performance.now();
        if (wait > 0) {
          timer = setTimeout(pump, wait);
          return;
        }
      }
      queue.shift();
      receive(m, at);
    }
  }

  function receive(m, at) {
    if (m.type === "resume") {
      t = G.newTable();
      replaying = m.replay;
      asked = null;
      clicked = null;
      return;
    }
    if (m.type === "bye") {
      over = true;
      asked = null;
      status(m.reason === "match over" ? "the match is over" : "the referee closed the seat: " + m.reason);
      render();
      return;
    }
    const live = replaying === 0;
    if (live) settled(m);
    G.applyToSeat(t, m);
    if (!live) {
      replaying -= 1;
      t.question = null; // answered before the page left
      // Drawn once, at the end: the open question that follows is read as soon as it comes.
      if (replaying === 0) render();
      return;
    }
    if (m.type === "trick") holdUntil = performance.now() + HOLD_MS;
    if (m.type === "hello") {
      asked = { q: m, at };
      send({ type: "hello", id: m.id, name: "human", version: "1", features: ["resume"] });
      status("connected: waiting for the game");
      return;
    }
    if (t.question) {
      asked = { q: t.question, at };
      chosen.clear();
      problem = null;
      if (m.type === "discard") for (const c of m.legal.discard.default) chosen.add(c);
    }
    render();
  }

  // What a notice says of the person's own question: an `error` is the referee refusing an
  // answer (or the clock running out), and it settles the question when it names it; the
  // seat's `played` says which card went to the table, whatever was clicked.
  function settled(m) {
    if (m.type === "error") {
      refusal = { fault: m.fault, message: m.message, action: m.action, clicked: null };
      if (asked && m.id !== undefined && m.id === asked.q.id) asked = null;
    } else if (m.type === "played" && m.seat === t.me) {
      if (clicked !== null && clicked !== m.card) {
        if (!refusal) refusal = { fault: null, message: null, action: "played " + m.card + " for you", clicked };
        else refusal.clicked = clicked;
      }
      clicked = null;
      if (asked && asked.q.type === "play") asked = null;
    }
  }

  function clickCard(code) {
    if (!asked) return;
    if (asked.q.type === "play") {
      clicked = code;
      // The card goes to the table when the referee's `played` says so.
      send({ type: "play", id: asked.q.id, card: code });
    } else if (asked.q.type === "discard") {
      if (chosen.has(code)) chosen.delete(code); else chosen.add(code);
      problem = null;
    }
    render();
  }

  function discard() {
    const q = asked.q;
    problem = G.discardProblem(q, q.legal.discard, [...chosen]);
    if (problem) return;
    send({ type: "discard", id: q.id, cards: [...chosen] });
    t.hands[t.me] = q.hand.filter((c) => !chosen.has(c));
    chosen.clear();
  }

  const HEADLINES = {
    timeout: "Your time ran out.",
    illegal_card: "The referee refused that card.",
    wrong_discard: "The referee refused that discard.",
    bad_signal: "The referee refused a signal.",
    wrong_answer: "The referee refused that answer.",
    malformed: "The referee could not read the page's answer.",
  };

  function refusalBox() {
    if (!refusal) return "";
    const r = refusal;
    const headline = r.fault === null ? "The referee played another card." :
      HEADLINES[r.fault] || "The referee refused the answer (" + r.fault + ").";
    return h("div", { class: "refusal", role: "alert", "data-testid": "refusal" }, [
      h("strong", {}, headline),
      r.message ? h("div", {}, "Why: " + r.message) : "",
      r.action ? h("div", {}, "Instead the referee " + r.action + ".") : "",
      r.clicked ? h("div", { "data-testid": "refusal-clicked" }, "You had clicked " + r.clicked + "; the table shows the card played.") : "",
    ]);
  }

  function waiting() {
    if (t.result) return "The game is over: its summary is on the table.";
    if (over) return "";
    if (t.turn !== null && t.turn !== t.me) return "waiting for " + P.who(t, t.turn) + "…";
    return "waiting for the other seats…";
  }

  function askPanel() {
    if (!asked || asked.q.type === "hello") return [refusalBox(), h("p", { class: "wait" }, waiting())];
    const q = asked.q;
    let body;
    if (q.type === "opening") {
      if (!q.vote) {
        body = [h("p", {}, "The chant vote is not yours now. Send signals if you like."),
          button("opening-go", "Continue", () => send({ type: "opening", id: q.id }))];
      } else {
        body = [h("p", {}, "The chant: do you accept it? (all four must accept)"),
          button("vote-accept", "Accept the chant", () => send({ type: "opening", id: q.id, accept: true })),
          button("vote-refuse", "Refuse", () => send({ type: "opening", id: q.id, accept: false }))];
      }
    } else if (q.type === "discard") {
      const d = q.legal.discard;
      const free = d.may.length === q.hand.length && d.must.length === 0;
      const open = d.may.filter((c) => !d.must.includes(c));
      body = [h("p", {}, "Choose " + d.count + " cards to discard (click to select)" + (free ? "" : "; " + q.rule +
        ": discard " + (d.must.length ? d.must.join(" ") + (open.length ? " and " : "") : "") +
        (open.length ? (d.count - d.must.length) + " of " + open.join(" ") : "")) + "."),
        h("p", { id: "discard-problem", class: "error problem", "data-testid": "discard-problem", role: "alert" }, problem || ""),
        button("discard-go", "Discard " + chosen.size + " cards", discard)];
    } else {
      body = h("p", { class: "your-turn" }, q.table.length === 0 ?
        "Your lead: click a card to play it." : "Your turn: click a card to play it.");
    }
    return [refusalBox(), body];
  }

  function button(testid, label, onclick) {
    const b = h("button", { "data-testid": testid }, label);
    b.addEventListener("click", () => { onclick(); render(); });
    return b;
  }

  function signalPanel() {
    if (!asked || asked.q.type === "hello" || t.me === null) return "";
    const allowed = G.allowedSignals(asked.q);
    if (allowed.length === 0) return "no signals are allowed";
    return allowed.map((s) => {
      const info = G.signalInfo(s);
      const on = signals.has(s);
      const b = h("button", {
        class: "signal" + (on ? " on" : ""), "data-testid": "signal-" + s, "aria-pressed": on ? "true" : "false",
        title: "sent with your next answer to " + (t.rules.signals === "public" ? "the table" : "your partner"),
      }, [h("span", { class: "gesture" }, info.gesture), h("span", { class: "meaning" }, info.meaning)]);
      b.addEventListener("click", () => {
        if (signals.has(s)) signals.delete(s); else signals.add(s);
        render();
      });
      return b;
    });
  }

  // The clock of the open question, counted down from its own `time_ms` and `bank_ms` since it
  // came; its figures are on the element too, for the browser tests.
  function drawClock() {
    const el = document.getElementById("clock");
    if (!asked || asked.q.time_ms === undefined || asked.q.type === "hello") {
      P.fill("clock", "");
      delete el.dataset.timeMs;
      delete el.dataset.bankMs;
      return;
    }
    const left = G.clockLeft(asked.q, performance.now() - asked.at);
    el.dataset.timeMs = String(Math.round(left.time));
    el.dataset.bankMs = String(Math.round(left.bank));
    el.classList.toggle("banking", left.time === 0);
    P.fill("clock", left.time > 0 ? [h("span", {}, "time left "), h("strong", {}, G.clockText(left.time)),
      h("span", {}, " · bank " + G.clockText(left.bank))] :
      [h("span", {}, "on your bank: "), h("strong", {}, G.clockText(left.bank))]);
  }

  function render() {
    const base = t.me === null ? 0 : t.me;
    const clickable = asked && (asked.q.type === "play" || asked.q.type === "discard") ? () => true : null;
    P.draw(t, base, clickable);
    const discarding = asked && asked.q.type === "discard";
    for (const el of document.querySelectorAll("#seat-bottom [data-card]")) {
      if (chosen.has(el.dataset.card)) el.classList.add("chosen");
      if (discarding && t.received.includes(el.dataset.card)) el.classList.add("received");
    }
    P.fill("ask", askPanel());
    P.fill("signals-out", signalPanel());
    document.getElementById("actions").classList.toggle("asked", !!asked && asked.q.type !== "hello");
    drawClock();
    if (!over) {
      if (t.result) status("the game is over");
      else if (asked && asked.q.type !== "hello") status("your turn (" + asked.q.type + ")");
      else if (t.game !== null) status("playing: waiting for the others");
    }
  }

  document.getElementById("seat-bottom").addEventListener("click", (e) => {
    const el = e.target.closest("[data-card]");
    if (el && el.tagName === "BUTTON") clickCard(el.dataset.card);
  });
  C.installSuits();
  setInterval(drawClock, 250);
  render();
  connect();
})();
