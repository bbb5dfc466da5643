// Browser tests of conclab's charts in the live front ends
// (scripts/test.d/45-jupyterlab.sh): JupyterLab 4.6 and Notebook 7.6 from the
// pinned environment, with conclab's extension (the renderer of the charts'
// own MIME type), and Voilà 0.5 on the JupyterLab server. Debian's chromium
// through playwright-core, offline, driving the UI as a person does.
//
//   node charts.mjs --lab URL --notebook URL --token T --dir NOTEBOOK_DIR --shots DIR
//
// On charts.ipynb (14 charts, a Live chart updated in place, a problem box),
// in JupyterLab and in Notebook 7: Run All; scroll to the end and back to
// the top, then every chart, cell by cell, drawn by the extension with data
// at a size (the notebook is windowed: cells out of view are detached or
// skipped and come back); resize the panel (JupyterLab: fold the file
// browser) and the window: the charts follow; save (< 2 MB); reload the
// page; a second tab (and a chart cell run there); the saved notebook
// copied on disk and opened (outputs untrusted): every chart drawn as a
// chart, never as its static image; the dark theme from the Settings menu:
// every chart redrawn dark and readable, then light again; Go's tabs drawn
// as 4 columns of space, not as arrows, and a new line indented with a tab;
// no console error. In JupyterLab, Run All again with the other windowing
// modes ("full": cells out of view are detached; "defer"). Voilà: the
// notebook rendered as a dashboard, every chart drawn by the extension.
// Screenshots of every step go to --shots. Exit status 0 when all passed.
import fs from "node:fs";
import path from "node:path";
import { launch, chartReport, undrawn } from "../../charts/browser/inspect.mjs";
import {
  Front, Log, newPage, open, waitOpen, state, idle, menu, runCell, runAll, save, scrollTo,
  chartCells, everyChart, errorOutputs, consoleClean, setTheme, MIME, voilaAssets,
} from "./ui.mjs";

const args = process.argv.slice(2);
const opt = {};
for (let i = 0; i < args.length; i += 2) opt[args[i].replace(/^--/, "")] = args[i + 1];
for (const k of ["lab", "notebook", "token", "dir", "shots"]) {
  if (!opt[k]) { console.error(`charts.mjs: --${k} is required`); process.exit(2); }
}
const NAME = "charts.ipynb";
const CHARTS = 14;
const log = new Log(opt.shots);
const browser = await launch({ viewport: { width: 1280, height: 900 } });
const lab = new Front("lab", opt.lab, opt.token, opt.dir);
const nb7 = new Front("notebook", opt.notebook, opt.token, opt.dir);

// closeNotebook closes the notebook and shuts its kernel down (File menu).
async function closeNotebook(page) {
  await menu(page, "File", "filemenu:close-and-cleanup");
  await page.click(".jp-Dialog .jp-mod-accept", { timeout: 5000 }).catch(() => {});
  await page.waitForTimeout(500);
}

async function putSetting(front, plugin, raw) {
  const r = await fetch(`${front.base}/lab/api/settings/${plugin}?token=${front.token}`, {
    method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ raw: JSON.stringify(raw) }),
  });
  if (!r.ok) throw new Error(`PUT settings ${plugin}: ${r.status} ${await r.text()}`);
}

// resize: the charts follow their panel when it widens (JupyterLab: the
// file browser folded; no window resize event) and the window narrows.
async function resize(page, front, label) {
  const st = await state(page);
  const first = chartCells(st)[0].i;
  await scrollTo(page, first, "start");
  const root = `.jp-Cell[data-conclab-test-index="${first}"]`;
  const widths = async () => {
    await page.waitForTimeout(800); // ResizeObserver, then ECharts' resize
    const rep = await chartReport(page, root);
    return { w: rep.charts.map((c) => c.size[0]), canvas: rep.charts.map((c) => c.canvasCSS && c.canvasCSS[0]), bad: undrawn(rep).length,
      avail: await page.evaluate((root) => document.querySelector(root).querySelector(".jp-OutputArea-output").clientWidth, root) };
  };
  const follows = (s) => s.bad === 0 && s.w.every((w, i) => Math.abs(w - s.canvas[i]) <= 2 && w <= s.avail + 1);
  const w0 = await widths();
  await log.shot(page, `${front.kind}-resize-before`);
  if (front.kind === "lab") {
    await page.click('.jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id="filebrowser"]');
    const w1 = await widths();
    await log.shot(page, `${front.kind}-resize-browser-folded`);
    log.check(follows(w1) && w1.w[0] > w0.w[0], `${label}: the file browser folded, the panel widened: chart ${w0.w[0]} -> ${w1.w[0]} px, canvas ${w1.canvas[0]} px`);
    await page.click('.jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id="filebrowser"]');
  }
  await page.setViewportSize({ width: 820, height: 900 });
  const w2 = await widths();
  await log.shot(page, `${front.kind}-resize-narrow-window`);
  log.check(follows(w2) && w2.w[0] < w0.w[0], `${label}: the window narrowed to 820 px: chart ${w0.w[0]} -> ${w2.w[0]} px, canvas ${w2.canvas[0]} px`);
  await page.setViewportSize({ width: 1280, height: 900 });
  const w3 = await widths();
  log.check(follows(w3) && Math.abs(w3.w[0] - w0.w[0]) <= 2, `${label}: the window back to 1280 px: chart ${w3.w[0]} px (was ${w0.w[0]}), canvas ${w3.canvas[0]} px`);
}

// tabs: Go's tab indentation reads as in a Go editor: each tab 4 columns of
// space, no arrow or other mark drawn for it; Enter after "{" indents the
// new line with a tab.
async function tabs(page, front, label) {
  await scrollTo(page, 1, "start");
  const r = await page.evaluate(() => {
    const cell = window.jupyterapp.shell.currentWidget.content.widgets[1];
    const view = cell.editor.editor; // CodeMirror 6 EditorView
    const doc = view.state.doc;
    let line = null;
    for (let n = 1; n <= doc.lines; n++) if (doc.line(n).text.startsWith('\t"')) { line = doc.line(n); break; }
    const a = line && view.coordsAtPos(line.from), b = line && view.coordsAtPos(line.from + 1);
    const kw = [...cell.node.querySelectorAll(".cm-line span")].find((s) => s.textContent === "import");
    const plain = cell.node.querySelector(".cm-line");
    return {
      language: cell.node.querySelector(".cm-content").getAttribute("data-language"),
      keywordColored: !!kw && getComputedStyle(kw).color !== getComputedStyle(plain).color,
      tabbedLine: line && JSON.stringify(line.text),
      tabWidth: a && b ? b.left - a.left : null,
      charWidth: view.defaultCharacterWidth,
      tabSize: view.state.tabSize,
      indentUnit: cell.editor.getOption("indentUnit"),
      marks: cell.node.querySelectorAll(".cm-highlightTab, .cm-highlightSpace, .cm-specialChar").length,
    };
  });
  await log.shot(page, `${front.kind}-tabs`, page.locator('.jp-Cell[data-conclab-test-index="1"] .jp-InputArea'));
  log.check(r.language === "go" && r.keywordColored, `${label}: the cell editor's language is ${r.language}, keywords highlighted (${r.keywordColored})`);
  log.check(r.tabbedLine && r.marks === 0 && Math.abs(r.tabWidth - 4 * r.charWidth) < 1.5,
    `${label}: a tab (line ${r.tabbedLine}) drawn as ${r.tabWidth && r.tabWidth.toFixed(1)} px of space = ${(r.tabWidth / r.charWidth).toFixed(2)} columns (tab size ${r.tabSize}), ${r.marks} whitespace marks drawn`);
  // Enter after "{" in a new cell: the new line starts with a tab.
  const st = await state(page);
  await scrollTo(page, st.cells.length - 1);
  await page.locator(`.jp-Cell[data-conclab-test-index="${st.cells.length - 1}"] .jp-InputPrompt`).first().click();
  await page.keyboard.press("Escape");
  await page.keyboard.press("b");
  await page.keyboard.press("Enter");
  await page.keyboard.type("for i := range 3 {");
  await page.keyboard.press("Enter");
  await page.keyboard.type("fmt.Println(i)");
  const typed = await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.getSource());
  await log.shot(page, `${front.kind}-tabs-typed`, page.locator(".jp-Notebook .jp-Cell.jp-mod-active"));
  log.check(/\n\tfmt\.Println\(i\)/.test(typed), `${label}: Enter after "{" indents with a tab (indent unit ${r.indentUnit}): ${JSON.stringify(typed)}`);
  await page.keyboard.press("Escape");
  await menu(page, "Edit", "notebook:delete-cell");
}

async function chartFlows(front) {
  console.log(`-- charts in ${front.name} (${front.base})`);
  const page = await newPage(browser, front);
  const since = browser.blocked.length;
  await open(page, front, NAME, "charts");
  await log.shot(page, `${front.kind}-opened`);
  let st = await runAll(page, log, `${front.name}: ${NAME}`);
  const errs = errorOutputs(st);
  const n = chartCells(st).reduce((a, c) => a + c.n, 0);
  log.check(errs.length === 0 && n === CHARTS, `${front.name}: the outputs hold ${n} charts (want ${CHARTS}), ${errs.length} cell errors`);
  for (const e of errs) log.note(e);
  const live = st.cells.find((c) => /charts\.NewLive/.test(c.source));
  const liveOut = live ? live.outputs.filter((o) => o.data && o.data[MIME]) : [];
  log.check(liveOut.length === 1 && JSON.stringify(liveOut[0].data[MIME]).includes("update 3"),
    `${front.name}: the Live chart is one output showing its last update (${liveOut.length} outputs)`);
  // To the end and back: a windowed notebook detaches (or skips) the cells
  // out of view and brings them back.
  await scrollTo(page, st.cells.length - 1, "end");
  await log.shot(page, `${front.kind}-scrolled-to-end`);
  await scrollTo(page, 0, "start");
  await log.shot(page, `${front.kind}-scrolled-back`);
  const reports = await everyChart(page, log, `${front.name}: after Run All, scrolled to the end and back`, { shots: front.kind === "lab" });
  // The Live chart, updated twice in place: its one chart shows the last update.
  const liveRep = live && reports.find((r) => r.i === live.i);
  const subtexts = liveRep ? liveRep.rep.charts.map((c) => c.subtext) : [];
  log.check(subtexts.length === 1 && subtexts[0] === "update 3", `${front.name}: the Live chart drawn once, with its last update: ${JSON.stringify(subtexts)}`);
  await resize(page, front, front.name);
  await save(page, front, log, NAME);
  consoleClean(page, log, `${front.name}: Run All, scrolling, resizing, saving`);

  // Reload: the page starts afresh on the same kernel; the saved outputs draw.
  const kernel = (await state(page)).kernelId;
  await page.reload({ waitUntil: "load" });
  await waitOpen(page, NAME);
  log.check((await state(page)).kernelId === kernel, `${front.name}: reloaded on the same kernel`);
  await everyChart(page, log, `${front.name}: after a reload`);
  await log.shot(page, `${front.kind}-reloaded`);
  consoleClean(page, log, `${front.name}: reload`);

  // A second tab on the same notebook and kernel; a chart cell run there.
  const tab2 = await newPage(browser, front);
  await open(tab2, front, NAME, "charts-second-tab");
  log.check((await state(tab2)).kernelId === kernel, `${front.name}: the second tab is on the same kernel`);
  await everyChart(tab2, log, `${front.name}: a second tab`);
  const ci = chartCells(await state(tab2))[0].i;
  await runCell(tab2, ci);
  await idle(tab2);
  await everyChart(tab2, log, `${front.name}: a chart cell run in the second tab`);
  await log.shot(tab2, `${front.kind}-second-tab`);
  consoleClean(tab2, log, `${front.name}: second tab`);
  await tab2.close();

  // The saved notebook copied on disk (as a notebook mailed or checked out
  // is): Jupyter has no signature for it, so its outputs are untrusted.
  await page.bringToFront();
  const copy = "charts-copy.ipynb";
  const saved = JSON.parse(fs.readFileSync(path.join(front.dir, NAME), "utf8"));
  saved.metadata.conclab_test = "a copy made on disk";
  fs.writeFileSync(path.join(front.dir, copy), JSON.stringify(saved, null, 1));
  await open(page, front, copy, "charts-copy");
  st = await state(page);
  const withOutputs = st.cells.filter((c) => (c.outputs || []).length > 0);
  log.check(withOutputs.length > 0 && withOutputs.every((c) => c.trusted === false),
    `${front.name}: ${copy} opened from disk: ${withOutputs.filter((c) => !c.trusted).length} of ${withOutputs.length} cells with outputs untrusted`);
  await everyChart(page, log, `${front.name}: the copy opened from disk (untrusted outputs)`);
  await log.shot(page, `${front.kind}-untrusted-copy`);

  // Dark theme, then light again.
  await setTheme(page, "JupyterLab Dark");
  await log.shot(page, `${front.kind}-dark`);
  await everyChart(page, log, `${front.name}: the dark theme`, { theme: "dark", shots: true });
  await scrollTo(page, 0, "start");
  await log.shot(page, `${front.kind}-dark-top`);
  await setTheme(page, "JupyterLab Light");
  await everyChart(page, log, `${front.name}: light again`, { theme: "light" });
  consoleClean(page, log, `${front.name}: untrusted copy, themes`);
  await closeNotebook(page);

  // Go's tabs, on the notebook itself.
  await open(page, front, NAME, "charts-tabs");
  await tabs(page, front, front.name);
  consoleClean(page, log, `${front.name}: editing`);
  await closeNotebook(page);
  const outside = browser.blocked.slice(since);
  log.check(outside.length === 0, `${front.name}: ${outside.length} requests outside loopback`);
  for (const u of outside) log.note("refused: " + u);
  await page.close();
}

// The windowing modes JupyterLab 4 has had as defaults: Run All with cells
// out of view, then every chart.
async function windowing(front, mode) {
  console.log(`-- ${front.name}, windowing mode "${mode}"`);
  await putSetting(front, "@jupyterlab/notebook-extension:tracker", { windowingMode: mode });
  const page = await newPage(browser, front);
  await open(page, front, NAME, `charts-${mode}`);
  const got = await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.notebookConfig.windowingMode);
  log.check(got === mode, `${front.name}: the notebook's windowing mode is ${got}`);
  await menu(page, "Edit", "editmenu:clear-all");
  await runAll(page, log, `${front.name} (${mode})`);
  await scrollTo(page, (await state(page)).cells.length - 1, "end");
  await scrollTo(page, 0, "start");
  await everyChart(page, log, `${front.name} (${mode}): after Run All, scrolled to the end and back`);
  await log.shot(page, `${front.kind}-${mode}`);
  consoleClean(page, log, `${front.name} (${mode})`);
  await closeNotebook(page);
  await page.close();
  await putSetting(front, "@jupyterlab/notebook-extension:tracker", {});
}

// Voilà renders the notebook as a dashboard (executing it in a kernel of
// its own) with the prebuilt extensions of the environment.
async function voila() {
  console.log("-- charts in Voilà");
  const page = await newPage(browser, lab, "voila");
  const since = browser.blocked.length;
  await page.goto(`${lab.base}/voila/render/${NAME}?token=${lab.token}`, { waitUntil: "load", timeout: 120000 });
  await page.waitForFunction((n) => {
    const els = [...document.querySelectorAll('[data-conclab-chart="1"]')];
    return els.length >= n && els.every((el) => el.hasAttribute("data-conclab-ready") || el.hasAttribute("data-conclab-error"));
  }, CHARTS, { timeout: 180000 }).catch(() => {});
  const rep = await chartReport(page);
  const bad = undrawn(rep);
  const notMime = rep.charts.filter((c) => c.renderer !== "mime");
  await page.screenshot({ path: path.join(opt.shots, "voila.png"), fullPage: true });
  log.check(rep.charts.length === CHARTS && bad.length === 0 && notMime.length === 0,
    `Voilà: ${rep.charts.length - bad.length} of ${rep.charts.length} charts drawn (want ${CHARTS}), ${notMime.length} not by the extension`);
  for (const c of bad) log.note("not drawn: " + JSON.stringify(c));
  consoleClean(page, log, "Voilà");
  const outside = browser.blocked.slice(since).filter((u) => !voilaAssets.some((re) => re.test(u)));
  log.check(outside.length === 0, `Voilà: ${outside.length} requests outside loopback besides Voilà's own CDN assets (Font Awesome, MathJax)`);
  for (const u of outside) log.note("refused: " + u);
  await page.close();
}

const only = (process.env.CHARTS_ONLY || "lab,notebook,windowing,voila").split(",");
try {
  if (only.includes("lab")) await chartFlows(lab);
  if (only.includes("windowing")) { await windowing(lab, "full"); await windowing(lab, "defer"); }
  if (only.includes("notebook")) await chartFlows(nb7);
  if (only.includes("voila")) await voila();
} catch (e) {
  log.fail(`stopped: ${e.stack || e}`);
  for (const p of browser.context.pages()) await p.screenshot({ path: path.join(opt.shots, `failed-${Math.random().toString(36).slice(2, 6)}.png`) }).catch(() => {});
}
await browser.close();
console.log(log.failures === 0 ? "PASS charts in JupyterLab, Notebook 7 and Voilà" : `FAIL charts in JupyterLab, Notebook 7 and Voilà: ${log.failures} failures`);
process.exit(log.failures === 0 ? 0 : 1);
