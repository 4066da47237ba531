// Plays a human seat of `referee match` in the system Chromium, by clicking, through the
// DevTools protocol (puppeteer-core); run by referee/tests/it/web.rs, never by hand.
//   node drive.js SEAT_URL OUT_DIR [WATCH_URL]
// Plays the whole game (accepting every chant, sending a signal at the first chance, taking the
// preselected weakest six when asked to discard, playing the first card offered), reloads the
// page once in the middle of the second deal and plays on. With WATCH_URL it also keeps the
// spectator's omniscient page and seat 1's view open, and notes which cards they show.
// Prints one JSON report on stdout; screenshots go to OUT_DIR.
"use strict";
const path = require("path");

const [seatUrl, outDir, watchUrl, seatViewUrl] = process.argv.slice(2);
const { launch } = require("./browser.js");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function cardsShown(page) {
  return page.$$eval("[data-card]", (els) => [...new Set(els.map((e) => e.dataset.card))]);
}

// The deal a seat view says it shows and the cards it shows, read in one evaluation: the page
// draws both from one state in one task, so two separate reads could straddle a redraw (a
// deal's label with the next deal's cards).
async function seatSnapshot(page) {
  return page.evaluate(() => ({
    deal: document.querySelector("[data-testid=deal-info]").textContent,
    cards: [...new Set([...document.querySelectorAll("[data-card]")].map((e) => e.dataset.card))],
  }));
}

// What the page offers now, read in one evaluation: the page draws a question's controls in one
// task, so separate reads could straddle the redraw between two questions (a card of the hand
// taken for a card to play while the discard's controls were being drawn). Once drawn, a
// question's controls stay until it is answered.
async function offered(page) {
  return page.evaluate(() => {
    const q = (s) => document.querySelector(s);
    const result = q("[data-testid=game-result]");
    if (result) return { result: result.textContent };
    for (const [action, testid] of [["vote", "vote-accept"], ["go", "opening-go"], ["discard", "discard-go"]]) {
      if (q(`[data-testid=${testid}]`)) return { action, selector: `[data-testid=${testid}]` };
    }
    const card = q("#seat-bottom button[data-card]");
    if (!card) return {};
    const deal = q("[data-testid=deal-info]").textContent;
    return { action: "play", selector: `#seat-bottom button[data-card="${card.dataset.card}"]`, deal };
  });
}

async function main() {
  const browser = await launch();
  const report = { plays: 0, votes: 0, discards: 0, openings: 0, signals: [], reloaded: false,
    errors: [], result: null, watch: [], omniscientCards: 0, omniscientTricks: 0, omniscientResult: null, seatResult: null };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 860 });
    page.on("pageerror", (e) => report.errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") report.errors.push(m.text()); });
    await page.goto(seatUrl);
    let all = null;
    let seat1 = null;
    if (watchUrl) {
      all = await browser.newPage();
      await all.setViewport({ width: 1280, height: 860 });
      await all.goto(watchUrl);
      seat1 = await browser.newPage();
      await seat1.goto(seatViewUrl);
      for (const p of [all, seat1]) p.on("pageerror", (e) => report.errors.push(String(e)));
      // Clicks wait for an animation frame, which only the page in front gets.
      await page.bringToFront();
    }
    const deadline = Date.now() + 240000;
    while (Date.now() < deadline) {
      const now = await offered(page);
      if (now.result !== undefined) {
        report.result = now.result;
        break;
      }
      if (!now.action) {
        await sleep(30);
        continue;
      }
      if (report.signals.length === 0) {
        const box = await page.$("[data-testid=signal-bad-hand]");
        if (box) {
          await box.click();
          report.signals.push("bad-hand");
        }
      }
      if (now.action === "play" && !report.reloaded && now.deal.includes("deal 2") && report.plays >= 13) {
        await page.screenshot({ path: path.join(outDir, "human-seat-mid-trick.png") });
        if (all) {
          await all.bringToFront();
          await all.screenshot({ path: path.join(outDir, "spectator.png") });
          await page.bringToFront();
        }
        await page.reload();
        report.reloaded = true;
        continue;
      }
      const target = await page.$(now.selector);
      await target.click();
      if (now.action === "vote") report.votes += 1;
      else if (now.action === "go") report.openings += 1;
      else if (now.action === "discard") report.discards += 1;
      else report.plays += 1;
      if (seat1 && now.action === "play") {
        report.watch.push(await seatSnapshot(seat1));
        report.omniscientCards = Math.max(report.omniscientCards, (await cardsShown(all)).length);
      }
      // The page has answered: wait until it no longer offers the same action.
      const t0 = Date.now();
      while (Date.now() - t0 < 5000 && (await target.evaluate((e) => e.isConnected))) await sleep(10);
    }
    if (all) {
      // The spectators follow: both show the end of the game.
      const t0 = Date.now();
      while (Date.now() - t0 < 20000) {
        report.omniscientResult = await all.$eval("#result", (e) => e.textContent).catch(() => null);
        report.seatResult = await seat1.$eval("#result", (e) => e.textContent).catch(() => null);
        if (report.omniscientResult && report.seatResult) break;
        await sleep(100);
      }
      report.omniscientTricks = await all.$$eval("[data-testid^=trick-]", (e) => e.length);
      report.watch.push(await seatSnapshot(seat1));
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(report));
}

main().catch((e) => {
  console.error(String(e && e.stack || e));
  process.exit(1);
});
