// Page helpers for the browser tests of JupyterLab 4 and Notebook 7
// (scripts/test.d/45-jupyterlab.sh starts both with expose_app_in_browser,
// which puts the application on window.jupyterapp, where the tests read the
// notebook's models). Actions go through the UI a person uses: the menus,
// the toolbar, the keyboard; the models are only read.
import fs from "node:fs";
import path from "node:path";
import { watch, chartReport, undrawn } from "../../charts/browser/inspect.mjs";

export const MIME = "application/vnd.conclab.echarts.v1+json";
export const MAX_NOTEBOOK_BYTES = 2 * 1024 * 1024;

// Known console errors of the pinned front ends that are not conclab's,
// each with the upstream report or the line that causes it: a predicate on
// the message and the URL it names. Nothing else is ignored.
export const knownErrors = {
  // Notebook 7.6: the shortcuts plugin reads its settings before they are
  // loaded when another plugin's settings load first (a race at page load;
  // vanilla `jupyter notebook` shows it too).
  // https://github.com/jupyter/notebook/issues/7862
  notebook: [(text) => text === "Cannot read properties of undefined (reading 'schema')"],
  lab: [],
  // Voilà 0.5's lab template links Font Awesome's CSS from jsdelivr
  // (voila/templates/lab/index.html.j2) and its page loads MathJax from
  // cdnjs (voila/utils.py's default mathjax_url): offline both are refused.
  // Neither draws a chart.
  voila: [(text, url) => text.startsWith("Failed to load resource") && voilaAssets.some((re) => re.test(url || ""))],
};
export const voilaAssets = [/^https:\/\/cdn\.jsdelivr\.net\/npm\/@fortawesome\/fontawesome-free@/, /^https:\/\/cdnjs\.cloudflare\.com\/ajax\/libs\/mathjax\//];

// A Front is one front end on one server: JupyterLab ("lab") or Notebook 7
// ("notebook").
export class Front {
  constructor(kind, base, token, dir) {
    this.kind = kind;
    this.base = base;
    this.token = token;
    this.dir = dir; // the server's notebook directory
    this.name = kind === "lab" ? "JupyterLab" : "Notebook 7";
  }

  url(name, ws) {
    const q = new URLSearchParams({ token: this.token });
    if (this.kind === "lab") return `${this.base}/lab/workspaces/${ws}/tree/${encodeURIComponent(name)}?${q}`;
    return `${this.base}/notebooks/${encodeURIComponent(name)}?${q}`;
  }
}

// Log prints test results and counts failures.
export class Log {
  constructor(shots) {
    this.failures = 0;
    this.shots = shots;
    this.n = 0;
    fs.mkdirSync(shots, { recursive: true });
  }
  fail(msg) { this.failures++; console.log("  FAIL " + msg); }
  pass(msg) { console.log("  ok   " + msg); }
  check(ok, msg) { (ok ? this.pass : this.fail).call(this, msg); return ok; }
  note(msg) { console.log("       " + msg); }
  // shot saves a screenshot of the page (or of a locator) and returns its path.
  async shot(page, name, locator = null) {
    const file = path.join(this.shots, `${String(++this.n).padStart(2, "0")}-${name}.png`);
    if (locator) await locator.screenshot({ path: file }).catch(() => page.screenshot({ path: file }));
    else await page.screenshot({ path: file });
    return file;
  }
}

// newPage opens a tab whose console errors and uncaught exceptions are kept
// in page.errors (known upstream ones counted in page.known).
export async function newPage(browser, front, kind = front.kind) {
  const page = await browser.context.newPage();
  page.errors = [];
  page.known = [];
  const known = knownErrors[kind] || [];
  watch(page, page.errors, (text, m) => {
    const url = m.location && m.location() && m.location().url;
    if (known.some((k) => k(text, url))) { page.known.push(text + (url ? ` (${url})` : "")); return true; }
    return false;
  });
  page.on("pageerror", (e) => {
    // watch records every page error; take a known one back out.
    if (known.some((k) => k(e.message))) {
      const i = page.errors.lastIndexOf("pageerror: " + e.message);
      if (i >= 0) page.errors.splice(i, 1);
      page.known.push(e.message);
    }
  });
  return page;
}

// open loads notebook name (in JupyterLab, in workspace ws: a fresh
// workspace restores no earlier tabs) and waits until its kernel is
// connected and idle.
export async function open(page, front, name, ws) {
  await page.goto(front.url(name, ws), { waitUntil: "load", timeout: 60000 });
  await waitOpen(page, name);
}

export async function waitOpen(page, name) {
  await page.waitForFunction((name) => {
    const app = window.jupyterapp;
    const w = app && app.shell.currentWidget;
    const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
    return w && w.context && w.context.path === name && w.context.isReady && k &&
      k.connectionStatus === "connected" && k.status === "idle" && w.content.widgets.length > 0;
  }, name, { timeout: 120000 });
}

// state: the current notebook's kernel and cells, from the models.
export async function state(page) {
  return page.evaluate(() => {
    const w = window.jupyterapp.shell.currentWidget;
    const k = w.sessionContext.session.kernel;
    const cells = w.content.widgets.map((c, i) => {
      const m = c.model;
      const r = { i, type: m.type, source: m.sharedModel.getSource(), trusted: m.trusted };
      if (m.type === "code") {
        r.count = m.executionCount;
        r.running = m.executionState === "running";
        r.outputs = m.outputs.toJSON();
      }
      return r;
    });
    return { kernelId: k.id, status: k.status, dirty: w.context.model.dirty, cells };
  });
}

// idle waits until the kernel is idle and no code cell is running or queued.
export async function idle(page, timeout = 300000) {
  await page.waitForFunction(() => {
    const w = window.jupyterapp.shell.currentWidget;
    const k = w.sessionContext.session && w.sessionContext.session.kernel;
    if (!k || k.status !== "idle") return false;
    return w.content.widgets.every((c) => c.model.type !== "code" ||
      (c.model.executionState !== "running" && !(c.promptNode && c.promptNode.textContent.includes("*"))));
  }, null, { timeout, polling: 200 });
}

// menu clicks title in the menu bar, then the item running command (in
// submenu, when given).
export async function menu(page, title, command, { submenu = null, label = null } = {}) {
  await page.click(`.lm-MenuBar-item:has(.lm-MenuBar-itemLabel:text-is("${title}"))`);
  if (submenu) await page.hover(`.lm-Menu-item:has(.lm-Menu-itemLabel:text-is("${submenu}"))`);
  const item = label ? `.lm-Menu-item[data-command="${command}"]:has(.lm-Menu-itemLabel:text-is("${label}"))`
    : `.lm-Menu-item[data-command="${command}"]`;
  await page.click(item);
}

export async function selectCell(page, index) {
  await scrollTo(page, index);
  await page.locator(`.jp-Notebook .jp-Cell[data-conclab-test-index="${index}"] .jp-InputPrompt`).first().click();
  await page.keyboard.press("Escape");
}

// scrollTo scrolls the notebook to cell index (windowed notebooks attach it
// then) and marks the cell's node for selectors.
export async function scrollTo(page, index, align = "center") {
  await page.evaluate(async ({ index, align }) => {
    const nb = window.jupyterapp.shell.currentWidget.content;
    await nb.scrollToItem(index, align);
    for (const n of document.querySelectorAll(`[data-conclab-test-index="${index}"]`)) n.removeAttribute("data-conclab-test-index");
    nb.widgets[index].node.setAttribute("data-conclab-test-index", String(index));
  }, { index, align });
  await page.waitForTimeout(150);
}

export async function runCell(page, index) {
  await selectCell(page, index);
  await menu(page, "Run", "notebook:run-cell");
}

export async function runAll(page, log, label) {
  const t0 = Date.now();
  await menu(page, "Run", "runmenu:run-all");
  await page.waitForTimeout(300);
  await idle(page);
  const st = await state(page);
  const notRun = st.cells.filter((c) => c.type === "code" && c.source.trim() !== "" && c.count == null);
  log.check(notRun.length === 0, `${label}: Run All ran every code cell in ${((Date.now() - t0) / 1000).toFixed(1)} s` +
    (notRun.length ? ` (not run: cells ${notRun.map((c) => c.i).join(", ")})` : ""));
  return st;
}

export async function save(page, front, log, name) {
  await menu(page, "File", "docmanager:save");
  await page.waitForFunction(() => !window.jupyterapp.shell.currentWidget.context.model.dirty, null, { timeout: 30000 });
  const size = fs.statSync(path.join(front.dir, name)).size;
  log.check(size < MAX_NOTEBOOK_BYTES, `${name} saved with its outputs: ${(size / 1024).toFixed(0)} KiB (limit 2048 KiB)`);
  return size;
}

export function errorOutputs(st) {
  const out = [];
  for (const c of st.cells) {
    for (const o of c.outputs || []) {
      if (o.output_type === "error") out.push(`cell ${c.i}: ${o.ename}: ${String(o.evalue).slice(0, 300)}`);
    }
  }
  return out;
}

// chartCells lists the code cells whose outputs carry conclab charts: the
// cell, and how many charts its outputs draw (problem entries excluded).
export function chartCells(st) {
  const out = [];
  for (const c of st.cells) {
    let n = 0;
    for (const o of c.outputs || []) {
      const d = o.data && o.data[MIME];
      if (d && Array.isArray(d.charts)) n += d.charts.filter((e) => !e.problem).length;
    }
    if (n > 0) out.push({ i: c.i, n });
  }
  return out;
}

// everyChart scrolls each chart cell into view, one after the other (a
// windowed notebook attaches cells as they come into view), and checks its
// charts: as many as its outputs hold, drawn by ECharts with data at a
// size, by renderer (default "mime": conclab's extension, not the chart's
// own HTML or its static image), in theme when given (a dark one readable:
// series at 3:1 contrast or more against the page, light ink for the text).
// Returns the reports.
export async function everyChart(page, log, label, { renderer = "mime", theme = null, shots = false } = {}) {
  const st = await state(page);
  const cells = chartCells(st);
  const want = cells.reduce((a, c) => a + c.n, 0);
  const reports = [];
  const bad = [];
  for (const { i, n } of cells) {
    await scrollTo(page, i);
    const root = `.jp-Cell[data-conclab-test-index="${i}"]`;
    await page.waitForFunction(({ root, n }) => {
      const r = document.querySelector(root);
      const els = r ? [...r.querySelectorAll('[data-conclab-chart="1"]')] : [];
      return els.length >= n && els.every((el) => el.hasAttribute("data-conclab-ready") || el.hasAttribute("data-conclab-error"));
    }, { root, n }, { timeout: 30000 }).catch(() => {});
    const rep = await chartReport(page, root);
    reports.push({ i, n, rep });
    const why = [];
    if (rep.charts.length !== n) why.push(`${rep.charts.length} charts, want ${n}`);
    for (const c of undrawn(rep)) why.push("not drawn: " + JSON.stringify(c));
    for (const c of rep.charts) {
      if (renderer && c.renderer !== renderer) why.push(`drawn by ${c.renderer}, want ${renderer}`);
      if (theme && c.theme !== theme) why.push(`theme ${c.theme}, want ${theme}`);
      // The palette is drawn for a white page as it is; on a dark one a
      // series colour is brightened to 3:1 against it (WCAG's contrast for
      // graphics).
      if (theme === "dark" && c.contrast !== null && c.contrast < 3) why.push(`series contrast ${c.contrast} < 3`);
      if (theme === "dark" && !(c.light > 0.001)) why.push(`no light ink on the dark page (${c.light})`);
      if (c.canvasCSS && Math.abs(c.canvasCSS[0] - c.size[0]) > 2) why.push(`canvas ${c.canvasCSS[0]} px wide in a ${c.size[0]} px chart`);
    }
    if (why.length) bad.push(`cell ${i}: ${why.join("; ")}`);
    if (shots) await log.shot(page, `${label.replace(/\W+/g, "-")}-cell${i}`, page.locator(root));
  }
  const got = reports.reduce((a, r) => a + r.rep.charts.length, 0);
  const drawn = reports.reduce((a, r) => a + r.rep.charts.length - undrawn(r.rep).length, 0);
  const sizes = reports.flatMap((r) => r.rep.charts.map((c) => `${c.size[0]}x${c.size[1]}`));
  log.check(bad.length === 0 && want > 0 && got === want,
    `${label}: ${drawn} of ${want} charts in ${cells.length} cells drawn` +
    (renderer ? ` by the ${renderer} renderer` : "") + (theme ? ` in the ${theme} theme` : "") +
    ` at a size (${[...new Set(sizes)].join(", ")})`);
  for (const b of bad) log.note(b);
  return reports;
}

// check: every chart drawn (everyChart: cell by cell, as a windowed
// notebook attaches them), at least min of them, no cell error, no console
// error, nothing asked outside loopback since `since`.
export async function check(page, browser, log, label, { min = 1, since = 0, allowErrors = [] } = {}) {
  const reports = await everyChart(page, log, `${label}: every chart`);
  const charts = reports.reduce((a, r) => a + r.rep.charts.length, 0);
  const st = await state(page);
  // A seed notebook's last cell panics when its measured shape misses its
  // bands, which a loaded machine can cause; the shapes are asserted by
  // 50-notebook.sh, so here such a miss is reported, not failed.
  const all = errorOutputs(st);
  const shapeMisses = all.filter((e) => /shape did NOT hold/.test(e));
  for (const e of shapeMisses) log.note("note (timing, asserted by 50-notebook.sh): " + e);
  const errs = all.filter((e) => !shapeMisses.includes(e) && !allowErrors.some((a) => e.startsWith(a)));
  const outside = browser.blocked.slice(since);
  const ok = charts >= min && errs.length === 0 && page.errors.length === 0 && outside.length === 0;
  log.check(ok, `${label}: ${charts} charts; ${errs.length} cell errors; ${page.errors.length} console errors; ${outside.length} outside requests`);
  if (charts < min) log.note(`want at least ${min} charts`);
  for (const e of errs) log.note("cell error: " + e);
  for (const e of page.errors) log.note("page error: " + e);
  for (const u of outside) log.note("refused: " + u);
  page.errors.length = 0;
  return { reports, st };
}

// consoleClean: no console error since the last check.
export function consoleClean(page, log, label) {
  const ok = log.check(page.errors.length === 0, `${label}: no console errors` +
    (page.known.length ? ` (${page.known.length} known upstream, not conclab's: ${[...new Set(page.known)].join("; ")})` : ""));
  for (const e of page.errors) log.note("page error: " + e);
  page.errors.length = 0;
  page.known.length = 0;
  return ok;
}

// setTheme picks a theme from the Settings menu, as a person does, and waits
// for the page to carry it.
export async function setTheme(page, theme) {
  await menu(page, "Settings", "apputils:change-theme", { submenu: "Theme", label: theme });
  await page.waitForFunction((theme) => document.body.getAttribute("data-jp-theme-name") === theme, theme, { timeout: 30000 });
  await page.waitForTimeout(500);
}
