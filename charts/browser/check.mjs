// Browser check for conclab charts on static pages (nbconvert exports,
// `conclab run --html`, reports): opens each page in Debian's headless
// chromium (through playwright-core, no browser download) with every request
// outside file:// and loopback refused, and checks that every chart container
// was drawn by ECharts with data at a size, that the page logged no errors
// and asked for nothing outside; then opens it again with JavaScript off,
// where every chart shows its static SVG. Screenshots go to --shots.
//
//   node check.mjs --shots DIR [--min-charts N] [--charts N] [--subtext S] [--theme light|dark] name=URL ...
//   (--charts: exactly N charts; --subtext: some chart's subtitle is S — a
//   Live chart updated in place shows its last update once; --theme: every
//   chart is drawn in that theme, its series at 3:1 contrast or more against
//   the page and with light ink (text) on a dark page)
//
// Exit status 0 when every page passes.
import fs from "node:fs";
import path from "node:path";
import { launch, watch, settle, chartReport, undrawn, describe } from "./inspect.mjs";

const args = process.argv.slice(2);
let shots = "shots";
let minCharts = 1;
let exactCharts = -1;
let wantSubtext = null;
let wantTheme = null;
const pages = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--shots") shots = args[++i];
  else if (args[i] === "--min-charts") minCharts = Number(args[++i]);
  else if (args[i] === "--charts") exactCharts = Number(args[++i]);
  else if (args[i] === "--subtext") wantSubtext = args[++i];
  else if (args[i] === "--theme") wantTheme = args[++i];
  else {
    const eq = args[i].indexOf("=");
    if (eq < 1) { console.error(`check.mjs: ${args[i]}: want name=URL`); process.exit(2); }
    pages.push({ name: args[i].slice(0, eq), url: args[i].slice(eq + 1) });
  }
}
fs.mkdirSync(shots, { recursive: true });

let failed = false;
const browser = await launch();
for (const p of pages) {
  const page = await browser.context.newPage();
  const errors = [];
  watch(page, errors);
  const before = browser.blocked.length;
  await page.goto(p.url, { waitUntil: "load", timeout: 60000 });
  await page.waitForFunction(() => document.querySelectorAll('[data-conclab-chart="1"]').length > 0, null, { timeout: 10000 }).catch(() => {});
  await settle(page);
  const report = await chartReport(page);
  // Error outputs: conclab's own export marks them pre.error; nbconvert's
  // lab template renders a traceback (and stderr) as
  // application/vnd.jupyter.stderr, whose traceback names the error in red.
  report.cellErrors = await page.evaluate(() => [...document.querySelectorAll("pre.error, .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr'] .ansi-red-fg")]
    .map((e) => e.textContent.slice(0, 300)));
  await page.screenshot({ path: path.join(shots, p.name + ".png"), fullPage: true });
  let i = 0;
  for (const el of await page.$$('[data-conclab-chart="1"]')) {
    await el.screenshot({ path: path.join(shots, `${p.name}-chart${++i}.png`) }).catch(() => {});
  }
  const bad = undrawn(report);
  const pageBlocked = browser.blocked.slice(before);
  const themeBad = wantTheme === null ? [] : report.charts.filter((c) => c.theme !== wantTheme ||
    (c.contrast !== null && c.contrast < 3) || (wantTheme === "dark" && !(c.light > 0.001)));
  const ok = bad.length === 0 && errors.length === 0 && report.charts.length >= minCharts && report.libs <= 1 &&
    report.cellErrors.length === 0 && pageBlocked.length === 0 && themeBad.length === 0 &&
    (exactCharts < 0 || report.charts.length === exactCharts) &&
    (wantSubtext === null || report.charts.some((c) => c.subtext === wantSubtext));
  console.log(`${ok ? "PASS" : "FAIL"} ${p.name}: ${describe(report)}` +
    ` (ink ${report.charts.map((c) => (c.inked * 100).toFixed(1) + "%").join(" ")}),` +
    ` ${report.problems} problem boxes, require.js on page: ${report.amd},` +
    (wantTheme ? ` theme ${wantTheme} (lowest series contrast ${Math.min(...report.charts.map((c) => c.contrast ?? Infinity)).toFixed(2)}),` : "") +
    ` ${pageBlocked.length} outside requests refused`);
  for (const c of bad) console.log("  chart not drawn:", JSON.stringify(c));
  for (const c of themeBad) console.log(`  chart not in the ${wantTheme} theme or not readable:`, JSON.stringify(c));
  for (const e of errors) console.log("  page error:", e);
  for (const e of report.cellErrors) console.log("  cell error:", e);
  for (const u of pageBlocked) console.log("  refused:", u);
  if (report.charts.length < minCharts) console.log(`  want at least ${minCharts} charts`);
  if (exactCharts >= 0 && report.charts.length !== exactCharts) console.log(`  want exactly ${exactCharts} charts`);
  if (wantSubtext !== null && !report.charts.some((c) => c.subtext === wantSubtext)) {
    console.log(`  no chart has the subtitle ${JSON.stringify(wantSubtext)}; subtitles: ${JSON.stringify(report.charts.map((c) => c.subtext))}`);
  }
  if (report.libs > 1) console.log("  the ECharts library is on the page more than once");
  if (!ok) failed = true;
  await page.close();
}
await browser.close();

// Without scripts (GitHub's viewer, a mail client) every chart still shows
// its static SVG image.
const nojs = await launch({ javaScript: false });
for (const p of pages) {
  const page = await nojs.context.newPage();
  await page.goto(p.url, { waitUntil: "load", timeout: 60000 });
  const r = await page.evaluate(() => {
    const els = [...document.querySelectorAll('[data-conclab-chart="1"]')];
    const imgs = els.map((el) => el.querySelector("img.conclab-chart-fallback"));
    return { charts: els.length, shown: imgs.filter((i) => i && i.complete && i.naturalWidth > 0).length };
  });
  await page.screenshot({ path: path.join(shots, p.name + "-nojs.png"), fullPage: true });
  const ok = r.charts > 0 && r.shown === r.charts;
  console.log(`${ok ? "PASS" : "FAIL"} ${p.name} without JavaScript: ${r.shown} of ${r.charts} charts show their static SVG`);
  if (!ok) failed = true;
  await page.close();
}
await nojs.close();
process.exit(failed ? 1 : 0);
