// Plays a human seat of `referee match` in the system Chromium at one screen width, by
// clicking, and looks at what a person sees (issue 26); run by referee/tests/it/web_seat.rs.
//   node seat.js SEAT_URL OUT_DIR WIDTH
// Along the game it: checks at each question that nothing is wider than the screen and that
// the move panel is on it, and which signals it offers with which hand; tries a discard that
// breaks keep-highest and reads the reason shown, then swaps each card kept into the discard
// offered and reads what the page says of each choice and which it sends;
// reads the last trick on the table (its labels and winner); in deal 2 lets the clock run,
// reloads the page and reads the clock as it clicks; in deal 3 sends, through a hook on the
// page's WebSocket, a card the seat does not hold (as a stale or broken page would), and reads
// the refusal and the card the table shows. Prints one JSON report; screenshots go to OUT_DIR
// as seat-WIDTH-*.png.
"use strict";
const path = require("path");
const { runDriver } = require("./browser.js");

const [seatUrl, outDir, widthArg] = process.argv.slice(2);
const width = Number(widthArg);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// How long the clock runs before the reload: more than the second the clock may be off by.
const RUN_BEFORE_RELOAD_MS = 3000;
const ALL_CARDS = [..."ocsb"].flatMap((s) => [..."A23456789JCK"].map((r) => r + s));

// The page's WebSocket, wrapped before any script of the page runs: when the driver arms it,
// the next play answer names another card than the one clicked.
function hook() {
  const send = WebSocket.prototype.send;
  window.__sent = [];
  WebSocket.prototype.send = function (data) {
    window.__sent.push(JSON.parse(data));
    if (window.__swapCard) {
      const m = JSON.parse(data);
      if (m.type === "play") {
        m.card = window.__swapCard;
        window.__swapCard = null;
        data = JSON.stringify(m);
      }
    }
    return send.call(this, data);
  };
}

// Everything wider than the screen, and where the move panel is.
async function overflow(page) {
  return page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const wide = [];
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < -0.5 || r.right > w + 0.5) {
        wide.push(el.tagName.toLowerCase() + "." + el.className + " [" + Math.round(r.left) + ", " + Math.round(r.right) + "]");
      }
    }
    const ask = document.getElementById("ask").closest(".panel").getBoundingClientRect();
    return {
      viewport: w, scrollWidth: document.documentElement.scrollWidth, wide: wide.slice(0, 5),
      askOnScreen: ask.left >= 0 && ask.right <= w && ask.width > 0,
    };
  });
}

// What the page offers now, in one evaluation (as drive.js reads it).
async function offered(page) {
  return page.evaluate(() => {
    const q = (s) => document.querySelector(s);
    const deal = (q("[data-testid=deal-info]").textContent.match(/deal (\d+)/) || [])[1];
    const result = q("[data-testid=game-result]");
    if (result) return { result: result.textContent };
    for (const [action, testid] of [["vote", "vote-accept"], ["go", "opening-go"], ["discard", "discard-go"]]) {
      if (q(`[data-testid=${testid}]`)) return { action, selector: `[data-testid=${testid}]`, deal };
    }
    const cards = [...document.querySelectorAll("#seat-bottom button[data-card]")].map((e) => e.dataset.card);
    if (cards.length === 0) return { deal };
    return { action: "play", cards, selector: `#seat-bottom button[data-card="${cards[0]}"]`, deal };
  });
}

// The last trick on the table, when one is shown: its label and each card's label.
async function lastTrick(page) {
  return page.evaluate(() => {
    const el = document.querySelector("[data-testid=last-trick]");
    if (!el) return null;
    return {
      label: el.querySelector("[data-testid=trick-label]").textContent,
      slots: [...el.querySelectorAll(".slot[data-seat]")].map((s) => ({
        seat: Number(s.dataset.seat), card: s.querySelector("[data-card]").dataset.card,
        by: s.querySelector(".by").textContent, winner: s.classList.contains("winner"),
      })),
    };
  });
}

const level = (page, code) => page.$eval(`#seat-bottom [data-card="${code}"]`, (e) => Number(e.title.match(/level (\d+)/)[1]));

// The signals the page offers now, and the hand it shows, for the test to hold to the rules.
async function signalsOffered(page) {
  return page.evaluate(() => ({
    hand: [...document.querySelectorAll("#seat-bottom [data-card]")].map((e) => e.dataset.card),
    signals: [...document.querySelectorAll("[data-testid^=signal-]")].map((e) => e.dataset.testid.slice(7)),
  }));
}

// Each card not in the offered discard swapped in for one of it, and "discard" clicked: what
// the page said of each choice, and the discards it sent (a choice it found legal goes).
async function probeDiscards(page, report) {
  const hand = await page.$$eval("#seat-bottom [data-card]", (els) => els.map((e) => e.dataset.card));
  const offered = await page.$$eval("#seat-bottom .card.chosen", (els) => els.map((e) => e.dataset.card));
  report.discard = { hand, offered, probes: [], sent: [] };
  const sent = () => page.evaluate(() => window.__sent.filter((m) => m.type === "discard"));
  if (!(await page.$("[data-testid=discard-go]"))) {
    report.discard.sent = await sent();
    return;
  }
  const click = (c) => page.click(`#seat-bottom [data-card="${c}"]`);
  const others = hand.filter((c) => !offered.includes(c));
  for (const [i, c] of others.entries()) {
    const out = offered[i % offered.length];
    await click(out);
    await click(c);
    await page.click("[data-testid=discard-go]");
    await sleep(50);
    const now = await page.evaluate(() => {
      const p = document.querySelector("[data-testid=discard-problem]");
      return { problem: p ? p.textContent : "", open: !!document.querySelector("[data-testid=discard-go]") };
    });
    report.discard.probes.push({ tried: offered.filter((x) => x !== out).concat([c]), ...now });
    if (!now.open) break;
    await click(c);
    await click(out);
  }
  report.discard.sent = await sent();
}

// A discard breaking keep-highest (the strongest card not chosen swapped for a chosen one):
// the reason the page shows, whether it is on screen; then the legal choice again.
async function refusedDiscard(page, report) {
  const chosen = await page.$$eval("#seat-bottom .card.chosen", (els) => els.map((e) => e.dataset.card));
  const all = await page.$$eval("#seat-bottom [data-card]", (els) => els.map((e) => e.dataset.card));
  const others = all.filter((c) => !chosen.includes(c));
  const levels = await Promise.all(others.map((c) => level(page, c)));
  const strong = others[levels.indexOf(Math.min(...levels))];
  const click = (c) => page.click(`#seat-bottom [data-card="${c}"]`);
  await click(chosen[0]);
  await click(strong);
  await page.click("[data-testid=discard-go]");
  await sleep(100);
  if (!(await page.$("[data-testid=discard-problem]"))) {
    // The page sent it: the test finds it among the discards sent.
    report.discardRefusal = { text: "", onScreen: false, sent: true };
    return;
  }
  report.discardRefusal = await page.$eval("[data-testid=discard-problem]", (e) => {
    const r = e.getBoundingClientRect();
    return { text: e.textContent, onScreen: r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth };
  });
  report.checks.push(await overflow(page));
  await page.screenshot({ path: path.join(outDir, `seat-${width}-discard-refused.png`), fullPage: true });
  await click(strong);
  await click(chosen[0]);
}

runDriver(async (browser) => {
  const report = { width, plays: 0, checks: [], errors: [], discardRefusal: null, discard: null, offers: [], lastTrick: null,
    clock: null, swapped: null, partnerAtTop: false, turnSeen: 0, scoreSaysYou: false, summary: null, result: null };
  const page = await browser.newPage();
  await page.setViewport({ width, height: width < 600 ? 844 : 900 });
  await page.evaluateOnNewDocument(hook);
  page.on("pageerror", (e) => report.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") report.errors.push(m.text()); });
  await page.goto(seatUrl);
  let reloaded = false;
  let shotPlay = false;
  const deadline = Date.now() + 240000;
  while (Date.now() < deadline) {
    if (!report.lastTrick) {
      const last = await lastTrick(page);
      if (last && last.slots.length === 4) {
        report.lastTrick = last;
        await page.screenshot({ path: path.join(outDir, `seat-${width}-last-trick.png`), fullPage: true });
      }
    }
    const now = await offered(page);
    if (now.result !== undefined) {
      report.result = now.result;
      break;
    }
    if (!now.action) {
      report.turnSeen += (await page.$("[data-testid=turn]")) ? 1 : 0;
      await sleep(20);
      continue;
    }
    report.checks.push(await overflow(page));
    report.partnerAtTop ||= !!(await page.$("#seat-top [data-testid=partner]"));
    report.scoreSaysYou ||= /\byou\b/i.test(await page.$eval("#score", (e) => e.textContent));
    report.offers.push({ action: now.action, deal: now.deal, ...(await signalsOffered(page)) });
    if (now.action === "discard" && !report.discardRefusal) {
      const hand = await page.$$eval("#seat-bottom [data-card]", (els) => els.map((e) => e.dataset.card));
      await refusedDiscard(page, report);
      await probeDiscards(page, report);
      report.discard.hand = hand;
      if (!(await page.$(now.selector))) continue;
    }
    if (now.action === "play" && !shotPlay) {
      shotPlay = true;
      await page.screenshot({ path: path.join(outDir, `seat-${width}-play.png`), fullPage: true });
    }
    if (now.action === "play" && !reloaded && now.deal === "2") {
      await sleep(RUN_BEFORE_RELOAD_MS);
      await page.reload();
      reloaded = true;
      let again = {};
      while (again.action !== "play" && Date.now() < deadline) {
        await sleep(20);
        again = await offered(page);
      }
      report.checks.push(await overflow(page));
      await page.screenshot({ path: path.join(outDir, `seat-${width}-reloaded.png`), fullPage: true });
      // The clock as the card is clicked, in one evaluation.
      report.clock = await page.evaluate((sel) => {
        const el = document.getElementById("clock");
        const card = document.querySelector(sel);
        const shown = { timeMs: Number(el.dataset.timeMs), bankMs: Number(el.dataset.bankMs), text: el.textContent, card: card.dataset.card };
        card.click();
        return shown;
      }, again.selector);
      report.clock.deal = Number(again.deal);
      report.clock.waitedMs = RUN_BEFORE_RELOAD_MS;
      report.plays += 1;
      await sleep(50);
      continue;
    }
    if (now.action === "play" && !report.swapped && now.deal === "3" && now.cards.length > 1) {
      // Clicks its strongest card; the page's answer names a card it does not hold.
      const levels = await Promise.all(now.cards.map((c) => level(page, c)));
      const strong = now.cards[levels.indexOf(Math.min(...levels))];
      const notHeld = ALL_CARDS.find((c) => !now.cards.includes(c));
      await page.evaluate((c) => { window.__swapCard = c; }, notHeld);
      // The moment the card played leaves the hand, caught by an observer on the page rather
      // than by polling: when it ends the trick, the table shows it only for the hold (50 ms
      // here), which a poll on a busy machine can sleep through.
      await page.evaluate((before) => {
        window.__left = null;
        const look = () => {
          if (window.__left) return;
          const inHand = [...document.querySelectorAll("#seat-bottom [data-card]")].map((e) => e.dataset.card);
          const left = before.filter((c) => !inHand.includes(c));
          if (left.length !== 1) return;
          const mine = document.querySelector("#trick .pos-bottom[data-seat] [data-card]");
          window.__left = { leftHand: left[0], tableCard: mine ? mine.dataset.card : null, inHand };
          window.__leftObserver.disconnect();
        };
        window.__leftObserver = new MutationObserver(look);
        window.__leftObserver.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
      }, now.cards);
      await page.click(`#seat-bottom button[data-card="${strong}"]`);
      report.plays += 1;
      report.swapped = { clicked: strong, sent: notHeld, deal: 3, refusal: null, tableCard: null, leftHand: null };
      // The refusal stays on the page until the seat answers again, so it is read live.
      const t0 = Date.now();
      while (Date.now() - t0 < 10000 && (report.swapped.leftHand === null || report.swapped.refusal === null)) {
        const seen = await page.evaluate(() => {
          const r = document.querySelector("[data-testid=refusal]");
          return { refusal: r ? r.textContent : null, left: window.__left };
        });
        if (seen.left) Object.assign(report.swapped, seen.left);
        report.swapped.refusal = seen.refusal;
        if (report.swapped.leftHand === null || seen.refusal === null) await sleep(15);
      }
      await page.screenshot({ path: path.join(outDir, `seat-${width}-refused-card.png`), fullPage: true });
      continue;
    }
    const target = await page.$(now.selector);
    await target.click();
    if (now.action === "play") report.plays += 1;
    const t0 = Date.now();
    while (Date.now() - t0 < 5000 && (await target.evaluate((e) => e.isConnected))) await sleep(10);
  }
  await sleep(300);
  report.checks.push(await overflow(page));
  report.summary = await page.$eval("[data-testid=game-summary]", (e) => {
    const r = e.getBoundingClientRect();
    return { text: e.textContent, onScreen: r.left >= 0 && r.right <= document.documentElement.clientWidth };
  }).catch(() => null);
  await page.screenshot({ path: path.join(outDir, `seat-${width}-end.png`), fullPage: true });
  return report;
});
