// A person's seat: this page is the seat's bot. It speaks spec/protocol.md over a WebSocket
// (one message per line of the protocol), answers the questions with what the person clicks,
// and lists the feature `resume`, so a reload or a lost connection takes the seat back.
"use strict";
(function () {
  const G = window.AluetteGame;
  const C = window.AluetteCards;
  const P = window.AluettePage;
  const { h } = C;
  const token = new URLSearchParams(location.search).get("token") || "";

  let t = G.newTable();
  let ws = null;
  let replaying = 0; // messages still to fold without answering, after `resume`
  let asked = null; // { q, at }: the open question and when it came
  let over = false;
  const chosen = new Set(); // discard choice
  const signals = new Set(); // signals to send with the next answer

  function status(text) { P.fill("status", text); }

  function send(answer) {
    if (asked && asked.q.type !== "hello" && signals.size) answer.signals = [...signals];
    signals.clear();
    asked = null;
    ws.send(JSON.stringify(answer));
  }

  function connect() {
    ws = new WebSocket("ws://" + location.host + "/ws/seat?token=" + encodeURIComponent(token));
    ws.onmessage = (e) => receive(JSON.parse(e.data));
    ws.onclose = () => {
      if (over) return;
      status("connection lost: reconnecting…");
      setTimeout(connect, 1000);
    };
  }

  function receive(m) {
    if (m.type === "resume") {
      t = G.newTable();
      replaying = m.replay;
      asked = null;
      return;
    }
    if (m.type === "bye") {
      over = true;
      status("the referee closed the seat: " + m.reason);
      render();
      return;
    }
    G.applyToSeat(t, m);
    if (replaying > 0) {
      replaying -= 1;
      t.question = null; // answered before the page left
      render();
      return;
    }
    if (m.type === "hello") {
      asked = { q: m, at: performance.now() };
      send({ type: "hello", id: m.id, name: "human", version: "1", features: ["resume"] });
      status("connected: waiting for the game");
      return;
    }
    if (t.question) {
      asked = { q: t.question, at: performance.now() };
      chosen.clear();
      if (m.type === "discard") for (const c of G.weakestSix(m.hand)) chosen.add(c);
    }
    render();
  }

  function clickCard(code) {
    if (!asked) return;
    if (asked.q.type === "play") {
      const card = code;
      send({ type: "play", id: asked.q.id, card });
      G.applyToSeat(t, { type: "played", seat: t.me, card, trick: t.trickNo });
    } else if (asked.q.type === "discard") {
      if (chosen.has(code)) chosen.delete(code); else chosen.add(code);
    }
    render();
  }

  function discard() {
    const q = asked.q;
    const problem = G.discardProblem(q.hand, [...chosen], q.rule);
    if (problem) {
      P.fill("discard-problem", problem);
      return;
    }
    send({ type: "discard", id: q.id, cards: [...chosen] });
    t.hands[t.me] = q.hand.filter((c) => !chosen.has(c));
    chosen.clear();
    render();
  }

  function askPanel() {
    if (!asked || asked.q.type === "hello") {
      return over || t.result ? "" : "waiting for the other seats…";
    }
    const q = asked.q;
    if (q.type === "opening") {
      if (!q.vote) {
        return [h("p", {}, "The chant vote is not yours now. Send signals if you like."),
          button("opening-go", "Continue", () => send({ type: "opening", id: q.id }))];
      }
      return [h("p", {}, "The chant: do you accept it? (all four must accept)"),
        button("vote-accept", "Accept the chant", () => send({ type: "opening", id: q.id, accept: true })),
        button("vote-refuse", "Refuse", () => send({ type: "opening", id: q.id, accept: false }))];
    }
    if (q.type === "discard") {
      return [h("p", {}, "Choose 6 cards to discard (click to select)" +
        (q.rule === "keep-highest" ? "; keep-highest: you must discard your weakest cards" : "") + "."),
        h("p", { id: "discard-problem", class: "error", "data-testid": "discard-problem" }),
        button("discard-go", "Discard " + chosen.size + " cards", discard)];
    }
    return h("p", {}, "Your turn: click a card to play it.");
  }

  function button(testid, label, onclick) {
    const b = h("button", { "data-testid": testid }, label);
    b.addEventListener("click", () => { onclick(); render(); });
    return b;
  }

  function signalPanel() {
    if (!asked || asked.q.type === "hello" || t.me === null) return "";
    const allowed = G.allowedSignals(t.hands[t.me] || [], t.rules);
    if (allowed.length === 0) return "no signals are allowed";
    return allowed.map((s) => {
      const box = h("input", { type: "checkbox", "data-testid": "signal-" + s });
      box.checked = signals.has(s);
      box.addEventListener("change", () => { if (box.checked) signals.add(s); else signals.delete(s); });
      return h("label", { class: "signal" }, [box, " " + s]);
    });
  }

  function drawClock() {
    if (!asked || asked.q.time_ms === undefined || asked.q.type === "hello") {
      P.fill("clock", "");
      return;
    }
    const left = G.clockLeft(asked.q, performance.now() - asked.at);
    P.fill("clock", "time left " + G.clockText(left.time) + " · bank " + G.clockText(left.bank));
  }

  function render() {
    const base = t.me === null ? 0 : t.me;
    const clickable = asked && (asked.q.type === "play" || asked.q.type === "discard") ? () => true : null;
    P.draw(t, base, clickable);
    for (const el of document.querySelectorAll("#seat-bottom [data-card]")) {
      if (chosen.has(el.dataset.card)) el.classList.add("chosen");
    }
    P.fill("ask", askPanel());
    P.fill("signals-out", signalPanel());
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
