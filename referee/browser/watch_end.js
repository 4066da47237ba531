// Opens spectators' pages (the organiser's view and a seat's view) in the system Chromium and
// watches them until the referee's match is over: each page must then say so and stop, not
// reconnect for ever to a server that is gone. Run by referee/tests/it/web.rs, never by hand.
//   node watch_end.js URL...
// Prints one JSON report on stdout: each page's status line at the end and how many WebSockets
// it opened.
"use strict";
const { launch } = require("./browser.js");

const urls = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const browser = await launch();
  try {
    const pages = [];
    for (const url of urls) {
      const page = await browser.newPage();
      const cdp = await page.target().createCDPSession();
      await cdp.send("Network.enable");
      const opened = { sockets: 0 };
      cdp.on("Network.webSocketCreated", () => { opened.sockets += 1; });
      await page.goto(url);
      pages.push({ page, opened });
    }
    const status = (p) => p.page.$eval("[data-testid=status]", (e) => e.textContent);
    // The napping bots' game lasts some 20 s on an idle machine, and the referee lingers up to
    // 10 s more for its spectators: a loaded machine (the whole test suite beside it) stretches
    // both, so the wait is long; it ends as soon as every page says the match is over.
    const t0 = Date.now();
    while (Date.now() - t0 < 120000) {
      const all = await Promise.all(pages.map(status));
      if (all.every((s) => s.includes("the match is over"))) break;
      await sleep(100);
    }
    // Two reconnection delays more: a page that did not stop would open another socket.
    await sleep(2500);
    const report = [];
    for (const p of pages) report.push({ status: await status(p), sockets: p.opened.sockets });
    console.log(JSON.stringify(report));
  } finally {
    await browser.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
