// The live spectator's page: the organiser's view (the record's lines as the game adds them),
// or one seat's view (its conversation, re-derived by the referee as `replay --seat` does, so
// the page only ever holds what the seat knows). The token says which: the server's first
// message names the view.
"use strict";
(function () {
  const G = window.AluetteGame;
  const C = window.AluetteCards;
  const P = window.AluettePage;
  const params = new URLSearchParams(location.search);
  const token = params.get("token") || "";
  // null: the organiser's view; a number: that seat's.
  let seat = null;
  let t = G.newTable();
  // The referee closed the connection saying the match is over.
  let over = false;

  function connect() {
    const url = "ws://" + location.host + "/ws/watch?token=" + encodeURIComponent(token);
    const ws = new WebSocket(url);
    let named = false;
    t = G.newTable();
    ws.onmessage = (e) => {
      if (!named) {
        // The first message names the view.
        const m = JSON.parse(e.data);
        seat = m.view === "seat" ? Number(m.seat) : null;
        named = true;
      } else if (seat === null) {
        // The organiser's view: one or more record lines, one per line of the message; or a
        // reset, before the game is sent afresh (the page had fallen behind).
        for (const line of e.data.split("\n")) {
          const m = JSON.parse(line);
          if (m.reset) t = G.newTable();
          else G.applyRecord(t, m);
        }
      } else {
        const m = JSON.parse(e.data);
        if (m.reset) {
          t = G.newTable();
        } else if (m.lines) {
          for (const line of m.lines) G.applyToSeat(t, JSON.parse(line));
          t.question = null;
        } else if (m.error) {
          P.fill("status", "cannot show the seat's view yet: " + m.error);
          return;
        }
      }
      render();
    };
    ws.onclose = (e) => {
      // The referee says when the match is over: the page stops there, the last game shown.
      if (e.code === 1000 && e.reason === "match over") {
        over = true;
        render();
        return;
      }
      P.fill("status", "connection closed: reconnecting…");
      setTimeout(connect, 1000);
    };
  }

  function render() {
    const state = over ? " · the match is over" : t.result ? " · game over" : " · live";
    P.fill("status", (seat === null ? "the organiser's view" : "seat " + seat + "'s view") + state);
    P.draw(t, seat === null ? 0 : Number(seat), null);
  }

  C.installSuits();
  render();
  connect();
})();
