// The live spectator's page: the organiser's view (the record's lines as the game adds them),
// or with `?seat=S` seat S's view (its conversation, re-derived by the referee as
// `replay --seat` does, so the page only ever holds what the seat knows).
"use strict";
(function () {
  const G = window.AluetteGame;
  const C = window.AluetteCards;
  const P = window.AluettePage;
  const params = new URLSearchParams(location.search);
  const token = params.get("token") || "";
  const seat = params.get("seat");
  let t = G.newTable();

  function connect() {
    let url = "ws://" + location.host + "/ws/watch?token=" + encodeURIComponent(token);
    if (seat !== null) url += "&seat=" + encodeURIComponent(seat);
    const ws = new WebSocket(url);
    t = G.newTable();
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (seat === null) {
        G.applyRecord(t, m);
      } else if (m.conversation) {
        t = G.newTable();
        for (const line of m.conversation) G.applyToSeat(t, JSON.parse(line));
        t.question = null;
      } else if (m.error) {
        P.fill("status", "cannot show the seat's view yet: " + m.error);
        return;
      }
      render();
    };
    ws.onclose = () => {
      P.fill("status", "connection closed: reconnecting…");
      setTimeout(connect, 1000);
    };
  }

  function render() {
    P.fill("status", (seat === null ? "the organiser's view" : "seat " + seat + "'s view") +
      (t.result ? " · game over" : " · live"));
    P.draw(t, seat === null ? 0 : Number(seat), null);
  }

  C.installSuits();
  render();
  connect();
})();
