// What the browser tests' drivers (drive.js, two_pages.js, seat.js) share: puppeteer-core, and the
// system Chromium launched with the flags this machine needs.
"use strict";
let puppeteer;
try {
  puppeteer = require("puppeteer-core");
} catch (e) {
  console.error("puppeteer-core is missing: run `npm ci --prefix referee/browser` (.ci/run does it)");
  process.exit(2);
}

const FLAGS = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage",
  // Several pages play at once: none may be throttled or frozen for being in the background.
  "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
  "--disable-renderer-backgrounding",
];

// Headless Chromium: CHROMIUM when set (scripts/test.sh passes it on), else Debian's package.
function launch() {
  const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
  return puppeteer.launch({ executablePath, headless: true, args: FLAGS });
}

// Runs a driver: `body(browser)` gives its report, printed as one JSON line; a failure is told
// on stderr with exit status 1. The browser is closed either way.
function runDriver(body) {
  (async () => {
    const browser = await launch();
    let report;
    try {
      report = await body(browser);
    } finally {
      await browser.close();
    }
    console.log(JSON.stringify(report));
  })().catch((e) => {
    console.error(String(e && e.stack || e));
    process.exit(1);
  });
}

module.exports = { launch, runDriver };
