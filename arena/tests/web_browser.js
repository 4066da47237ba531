// Drives the arena's pages in the system Chromium for arena/tests/web_browser.rs (never by
// hand): the leaderboard, a bot's page and a table in play, through referee/browser's
// puppeteer-core launcher.
//   node web_browser.js BROWSER_DIR BASE_URL HOUSE_BOT HOSTILE_BOT LIVE_GAME
// Prints {"phase":"live"} once the live page's script has shown the table's progress, then
// waits for the table to end (the test ends it on reading that line), and prints one JSON
// report of what each page showed.
"use strict";
const path = require("path");
const [browserDir, base, houseBot, hostileBot, liveGame] = process.argv.slice(2);
const { launch } = require(path.join(browserDir, "browser.js"));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(page, what, test) {
  const t0 = Date.now();
  while (Date.now() - t0 < 30000) {
    const v = await page.evaluate(test);
    if (v) return v;
    await sleep(100);
  }
  throw new Error("timed out waiting for " + what);
}

async function open(browser, url, report) {
  const page = await browser.newPage();
  // Every policy violation and every dialog (an injected script would open one) is counted.
  await page.evaluateOnNewDocument(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__violations.push(e.violatedDirective + " " + e.blockedURI);
    });
  });
  page.on("dialog", async (d) => { report.dialogs += 1; await d.dismiss(); });
  page.on("pageerror", (e) => { report.errors.push(String(e)); });
  const res = await page.goto(url);
  report.statuses.push(res.status());
  return page;
}

async function main() {
  const browser = await launch();
  const report = { dialogs: 0, errors: [], statuses: [], violations: [] };
  try {
    const board = await open(browser, base + "/", report);
    report.official = await board.$$eval("[data-testid=official-row]", (rows) =>
      rows.map((r) => r.querySelector("td:nth-child(2) a").textContent.trim()));
    report.liveBoard = await board.$$eval("[data-testid=live-row]", (rows) => rows.length);
    report.violations.push(...await board.evaluate(() => window.__violations));

    const house = await open(browser, base + "/bots/" + houseBot, report);
    report.houseName = await house.$eval("[data-testid=bot-name]", (e) => e.textContent.trim());
    report.historyPoints = await house.$eval("svg.history polyline.value", (e) =>
      e.getAttribute("points").trim().split(/\s+/).length);
    report.historyBox = await house.$eval("svg.history", (e) => {
      const r = e.getBoundingClientRect();
      return [Math.round(r.width), Math.round(r.height)];
    });
    report.partners = await house.$$eval("[data-testid=partners] li a", (l) => l.length);
    report.violations.push(...await house.evaluate(() => window.__violations));

    const hostile = await open(browser, base + "/bots/" + hostileBot, report);
    report.hostileName = await hostile.$eval("[data-testid=bot-name]", (e) => e.firstChild.textContent.trim());
    report.hostileScripts = await hostile.$$eval("script", (s) => s.length);
    report.violations.push(...await hostile.evaluate(() => window.__violations));

    const live = await open(browser, base + "/live/" + liveGame, report);
    report.liveStatus = await until(live, "the live page's script", () => {
      const s = document.querySelector("[data-testid=status]").textContent;
      return s.includes("record lines") ? s : null;
    });
    report.tricks = await live.$eval("[data-testid=tricks]", (e) => e.textContent);
    report.score = await live.$eval("[data-testid=score]", (e) => e.textContent);
    console.log(JSON.stringify({ phase: "live" }));
    report.ended = await until(live, "the table's end", () => {
      const s = document.querySelector("[data-testid=status]").textContent;
      return s.includes("has ended") ? s : null;
    });
    report.violations.push(...await live.evaluate(() => window.__violations));
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(report));
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
