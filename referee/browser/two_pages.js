// Opens one human seat's page twice in the system Chromium (puppeteer-core), as a person who
// opened the link in a second tab: the second page takes the seat, the first is told so and
// stays closed, and neither connects again. Run by referee/tests/it/web.rs, never by hand.
//   node two_pages.js SEAT_URL
// Prints one JSON report on stdout: each page's WebSocket connections and its status line.
"use strict";
const { launch } = require("./browser.js");

const [seatUrl] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A page of the seat, counting the WebSockets it opens.
async function open(browser) {
  const page = await browser.newPage();
  const cdp = await page.target().createCDPSession();
  await cdp.send("Network.enable");
  const opened = { sockets: 0 };
  cdp.on("Network.webSocketCreated", () => { opened.sockets += 1; });
  await page.goto(seatUrl);
  return { page, opened };
}

async function status(page) {
  return page.$eval("[data-testid=status]", (e) => e.textContent);
}

async function main() {
  const browser = await launch();
  try {
    const first = await open(browser);
    const t0 = Date.now();
    // Seated: the seat's hello answered, and maybe its first question already shown.
    const seated = /^(connected|your turn|playing)/;
    while (Date.now() - t0 < 20000 && !seated.test(await status(first.page))) await sleep(50);
    const second = await open(browser);
    // The page waits a second before it connects again: three give it every chance to.
    await sleep(3000);
    console.log(JSON.stringify({
      first: { sockets: first.opened.sockets, status: await status(first.page) },
      second: { sockets: second.opened.sockets, status: await status(second.page) },
    }));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(String(e && e.stack || e));
  process.exit(1);
});
