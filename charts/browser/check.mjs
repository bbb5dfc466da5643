// Browser check for conclab charts: opens pages in Debian's headless
// chromium (through playwright-core, no browser download) with every request
// outside file:// and 127.0.0.1 refused, and checks that every chart
// container was initialised by ECharts, drew non-blank pixels, and that the
// page logged no errors. Screenshots go to --shots.
//
//   node check.mjs --shots DIR [--min-charts N] [--charts N] [--subtext S] name=URL ...
//   (--charts: exactly N charts; --subtext: some chart's subtitle is S — a
//   Live chart updated in place shows its last update once)
//   node check.mjs --shots DIR --notebook name=URL   (classic Notebook 6: runs all cells first)
//
// Exit status 0 when every page passes.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chartReport, undrawn } from "./inspect.mjs";

const args = process.argv.slice(2);
let shots = "shots";
let minCharts = 1;
let exactCharts = -1;
let wantSubtext = null;
let notebook = false;
const pages = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--shots") shots = args[++i];
  else if (args[i] === "--min-charts") minCharts = Number(args[++i]);
  else if (args[i] === "--charts") exactCharts = Number(args[++i]);
  else if (args[i] === "--subtext") wantSubtext = args[++i];
  else if (args[i] === "--notebook") notebook = true;
  else {
    const eq = args[i].indexOf("=");
    pages.push({ name: args[i].slice(0, eq), url: args[i].slice(eq + 1) });
  }
}
fs.mkdirSync(shots, { recursive: true });

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "conclab-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1100, height: 900 },
});
const blocked = [];
await context.route("**/*", (route) => {
  const u = new URL(route.request().url());
  if (u.protocol === "file:" || u.protocol === "data:" || u.hostname === "127.0.0.1" || u.hostname === "localhost") {
    return route.continue();
  }
  blocked.push(u.href);
  return route.abort();
});

let failed = false;
for (const p of pages) {
  const errors = [];
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") errors.push("console: " + m.text()); });
  page.on("pageerror", (e) => errors.push("pageerror: " + e.message));
  const before = blocked.length;
  await page.goto(p.url, { waitUntil: "load", timeout: 60000 });
  if (notebook) {
    // Classic Notebook 6: wait for the kernel, run every cell, wait for idle.
    await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel &&
      Jupyter.notebook.kernel.is_connected(), null, { timeout: 60000 });
    await page.evaluate(() => Jupyter.notebook.execute_all_cells());
    await page.waitForFunction(() => Jupyter.notebook.get_cells().every((c) => c.cell_type !== "code" ||
      (c.input_prompt_number !== "*" && c.input_prompt_number !== null && c.input_prompt_number !== undefined)),
      null, { timeout: 120000 });
  }
  // Every chart container ends ready or failed (the scripts give up after 20 s).
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('[data-conclab-chart="1"]')];
    return els.length > 0 && els.every((el) => el.hasAttribute("data-conclab-ready") || el.hasAttribute("data-conclab-error"));
  }, null, { timeout: 45000 }).catch(() => {});
  const report = await chartReport(page);
  report.cellErrors = await page.evaluate(() => [...document.querySelectorAll(".output_error")].map((e) => e.textContent.slice(0, 300)));
  await page.screenshot({ path: path.join(shots, p.name + ".png"), fullPage: true });
  let i = 0;
  for (const el of await page.$$('[data-conclab-chart="1"]')) {
    await el.screenshot({ path: path.join(shots, `${p.name}-chart${++i}.png`) }).catch(() => {});
  }
  const bad = undrawn(report);
  const pageBlocked = blocked.slice(before);
  // A page of the lab's asks for nothing outside file:// and loopback.
  const ok = bad.length === 0 && errors.length === 0 && report.charts.length >= minCharts && report.libs <= 1 &&
    report.cellErrors.length === 0 && pageBlocked.length === 0 &&
    (exactCharts < 0 || report.charts.length === exactCharts) &&
    (wantSubtext === null || report.charts.some((c) => c.subtext === wantSubtext));
  console.log(`${ok ? "PASS" : "FAIL"} ${p.name}: ${report.charts.length} chart containers, ${report.charts.length - bad.length} drawn by ECharts` +
    ` (ink ${report.charts.map((c) => (c.inked * 100).toFixed(1) + "%").join(" ")};` +
    ` data points ${report.charts.map((c) => c.points).join(" ")}),` +
    ` ${report.problems} problem boxes, ${report.libs} library copies, require.js on page: ${report.amd},` +
    ` ${pageBlocked.length} outside requests refused`);
  for (const c of bad) console.log("  chart not drawn:", JSON.stringify(c));
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
await context.close();
fs.rmSync(userDataDir, { recursive: true, force: true });

// Without scripts (untrusted JupyterLab output, GitHub's viewer) every chart
// still shows its static SVG image.
if (!notebook) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const ctx = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 900 } });
  await ctx.route("**/*", (route) => {
    const u = new URL(route.request().url());
    return u.protocol === "file:" || u.protocol === "data:" ? route.continue() : route.abort();
  });
  for (const p of pages) {
    const page = await ctx.newPage();
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
  await browser.close();
}
process.exit(failed ? 1 : 0);
