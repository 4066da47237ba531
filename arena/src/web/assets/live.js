// One table in play (/live/GAME): polls /api/live/GAME for its progress, and says when the
// table has ended. Served from this server: the pages' policy allows no inline script.
"use strict";
(function () {
  const table = document.getElementById("table");
  if (!table) return;
  const game = table.dataset.game;
  const set = (id, text) => { document.getElementById(id).textContent = text; };
  async function poll() {
    let res;
    try {
      res = await fetch("/api/live/" + encodeURIComponent(game), { cache: "no-store" });
    } catch (e) {
      set("status", "the arena cannot be reached; trying again");
      setTimeout(poll, 3000);
      return;
    }
    if (res.status === 404) {
      set("status", "this table has ended");
      const link = document.createElement("a");
      link.href = "/games/" + encodeURIComponent(game);
      link.textContent = " see the game";
      document.getElementById("status").appendChild(link);
      return;
    }
    if (res.ok) {
      const t = await res.json();
      set("tricks", String(t.tricks));
      set("score", t.score[0] + " : " + t.score[1]);
      set("faults", String(t.faults));
      set("status", "in play (" + t.lines + " record lines)");
    }
    const wait = Number(res.headers.get("Retry-After")) || 1;
    setTimeout(poll, res.status === 429 ? wait * 1000 : 1000);
  }
  poll();
})();
