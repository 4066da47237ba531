// Opens a page in the system Chromium at a given viewport width (narrower than the 500 px a
// headless window can be) and prints the `data-measure` attribute its own measuring script
// sets on the body. Run by referee/tests/it/html_viewer.rs, never by hand.
//   node measure.js FILE_URL WIDTH HEIGHT
"use strict";
const { launch } = require("./browser.js");

const [url, width, height] = process.argv.slice(2);

async function main() {
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: Number(width), height: Number(height) });
    await page.goto(url);
    await page.waitForSelector("body[data-measure]", { timeout: 20000 });
    const measure = await page.$eval("body", (b) => b.getAttribute("data-measure"));
    console.log(JSON.stringify({ measure }));
  } finally {
    await browser.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
