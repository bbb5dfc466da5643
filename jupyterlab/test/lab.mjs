// Browser tests of the lab's notebooks in JupyterLab 4.6
// (scripts/test.d/45-jupyterlab.sh): Debian's chromium through
// playwright-core, offline, driving the real UI.
//
//   node lab.mjs --url http://127.0.0.1:PORT --token T --dir NOTEBOOK_DIR --shots DIR
//                [--flows NAME.ipynb] NAME.ipynb ...
//
// For every notebook: open it, Run All from the Run menu, wait for the kernel
// to be idle, then check every chart is drawn by conclab's extension with
// data, no cell has an error output, the page logged no console error and
// asked for nothing outside loopback; save it and check its size (< 2 MB).
// On the --flows notebook, then: re-run a chart cell; Run All again in the
// same kernel (imports re-run); clear the outputs, save, reload the page and
// run a chart cell again; open a second tab on the same notebook and run a
// chart cell there; completion on Tab and the tooltip on Shift-Tab in a cell
// typed there; start a long benchmark and interrupt it from the toolbar (the
// kernel idle within 1 s); restart the kernel from the Kernel menu and Run
// All again; save, close, and reopen it from the file browser (its saved
// charts draw again). A screenshot of every step goes to --shots. Exit
// status 0 when everything passed. (The charts' own flows — windowing,
// resizing, untrusted outputs, themes, Notebook 7, Voilà — are charts.mjs.)
import { launch } from "../../charts/browser/inspect.mjs";
import {
  Front, Log, newPage, open, waitOpen, state, idle, menu, selectCell, runCell, runAll, save, scrollTo,
  chartCells, check,
} from "./ui.mjs";

const args = process.argv.slice(2);
const opt = { notebooks: [] };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (["--url", "--token", "--dir", "--shots", "--flows"].includes(a)) opt[a.slice(2)] = args[++i];
  else opt.notebooks.push(a);
}
for (const k of ["url", "token", "dir", "shots"]) {
  if (!opt[k]) { console.error(`lab.mjs: --${k} is required`); process.exit(2); }
}
const log = new Log(opt.shots);
const front = new Front("lab", opt.url, opt.token, opt.dir);
const browser = await launch({ viewport: { width: 1280, height: 900 } });

const current = "window.jupyterapp.shell.currentWidget";

// chartCell: the index of a cell that draws a chart and imports nothing, so
// it can be run again in the same kernel.
function chartCell(st) {
  const withCharts = new Set(chartCells(st).map((c) => c.i));
  const c = st.cells.find((c) => withCharts.has(c.i) && /\bcharts\.[A-Z]/.test(c.source) && !/^\s*import\b/m.test(c.source));
  return c ? c.i : -1;
}

// chartIn: the charts of cell index, drawn by the extension.
async function chartIn(page, index, label) {
  await scrollTo(page, index);
  const root = `.jp-Cell[data-conclab-test-index="${index}"]`;
  const ok = await page.waitForFunction((root) => {
    const els = [...document.querySelectorAll(`${root} [data-conclab-chart="1"]`)];
    return els.length > 0 && els.every((el) => el.getAttribute("data-conclab-renderer") === "mime" &&
      el.hasAttribute("data-conclab-ready") && el.clientWidth > 0 && el.querySelector("canvas"));
  }, root, { timeout: 30000 }).then(() => true, () => false);
  log.check(ok, `${label}: the chart of cell ${index} is drawn by conclab's extension`);
}

// The long benchmark the interrupt step stops: /async-block with 20
// requests that each block the loop for 1 s (20 s unless interrupted). The
// notebook imported bench, load and cell earlier.
const longBench = `longStrategies, _ := bench.Presets("/async-block")
bench.Run(cell.Context(), bench.Experiment{Strategies: longStrategies, Workload: bench.Steps(bench.Sleep(time.Second)), Load: load.Burst{N: 20}})`;

async function flows(page, name) {
  let st = await state(page);
  const ci = chartCell(st);
  if (ci < 0) { log.fail(`${name}: no chart cell without an import to re-run`); return; }
  console.log(`-- flows on ${name} (chart cell ${ci})`);

  // Re-run a chart cell.
  await runCell(page, ci);
  await idle(page);
  await chartIn(page, ci, "re-run chart cell");
  await check(page, browser, log, "after re-running the chart cell");
  await log.shot(page, "rerun-chart-cell");

  // Run All again in the same kernel: every cell re-run, imports included.
  await runAll(page, log, name + " a second time, same kernel");
  await check(page, browser, log, "Run All again in the same kernel (imports re-run)");
  await log.shot(page, "run-all-again");

  // Clear every output, save, reload: the new page (a new front-end
  // session, same kernel) draws the chart the cell makes there.
  const kernelBefore = (await state(page)).kernelId;
  await menu(page, "Edit", "editmenu:clear-all");
  await save(page, front, log, name);
  await page.reload({ waitUntil: "load" });
  await waitOpen(page, name);
  const afterReload = await state(page);
  log.check(afterReload.kernelId === kernelBefore && chartCells(afterReload).length === 0,
    `reload: same kernel (${afterReload.kernelId === kernelBefore}), no chart outputs before the run (${chartCells(afterReload).length === 0})`);
  await runCell(page, ci);
  await idle(page);
  await chartIn(page, ci, "after reload");
  await check(page, browser, log, "chart cell run after a reload");
  await log.shot(page, "reload-run-chart-cell");

  // A second tab on the same notebook (and kernel).
  const tab2 = await newPage(browser, front);
  await open(tab2, front, name, "second-tab");
  const st2 = await state(tab2);
  log.check(st2.kernelId === kernelBefore, `second tab is on the same kernel (${st2.kernelId === kernelBefore})`);
  await runCell(tab2, ci);
  await idle(tab2);
  await chartIn(tab2, ci, "second tab");
  await check(tab2, browser, log, "chart cell run in a second tab");
  await log.shot(tab2, "second-tab-chart-cell");
  await tab2.close();

  // Completion on Tab and the tooltip on Shift-Tab, in a cell typed here.
  await page.bringToFront();
  st = await state(page);
  await selectCell(page, st.cells.length - 1);
  await page.keyboard.press("b");
  await page.keyboard.press("Enter");
  await page.keyboard.type("bench.Pre");
  await page.keyboard.press("Tab");
  const completed = await page.waitForSelector(".jp-Completer .jp-Completer-item", { timeout: 15000 }).then(() => true, () => false) ||
    await page.evaluate((cur) => eval(cur).content.activeCell.model.sharedModel.getSource() === "bench.Presets", current);
  const items = await page.evaluate(() => [...document.querySelectorAll(".jp-Completer .jp-Completer-item")].map((e) => e.textContent.trim()).slice(0, 5));
  const text = await page.evaluate((cur) => eval(cur).content.activeCell.model.sharedModel.getSource(), current);
  log.check(completed && (items.some((i) => /Presets/.test(i)) || text === "bench.Presets"),
    `completion on Tab: ${JSON.stringify(text)}, completer shows ${JSON.stringify(items)}`);
  await log.shot(page, "completion");
  await page.keyboard.press("Escape");
  // The text set through the model leaves the cursor at the start and may
  // leave the editor without focus: focus it and put the cursor after the
  // name, then wait for the classes Shift-Tab's key binding selects on (edit
  // mode, no selection, not in leading whitespace, no completer), as a
  // person waits for the completer to close.
  await page.evaluate((cur) => {
    const c = eval(cur).content.activeCell;
    c.model.sharedModel.setSource("bench.Run");
    c.editor.focus();
    c.editor.setCursorPosition({ line: 0, column: "bench.Run".length });
  }, current);
  const ready = ".jp-Notebook.jp-mod-editMode .jp-InputArea-editor:not(.jp-mod-has-primary-selection):not(.jp-mod-in-leading-whitespace):not(.jp-mod-completer-active)";
  const bound = await page.waitForFunction(({ cur, sel }) => eval(cur).content.activeCell.editorWidget.node.matches(sel),
    { cur: current, sel: ready }, { timeout: 5000 }).then(() => true, () => false);
  if (!bound) {
    const cls = await page.evaluate((cur) => eval(cur).content.activeCell.editorWidget.node.className, current);
    log.fail(`tooltip: the editor never matched Shift-Tab's selector (its classes: ${cls})`);
  }
  await page.keyboard.press("Shift+Tab");
  const tip = await page.waitForSelector(".jp-Tooltip", { timeout: 15000 }).then((e) => e.textContent(), () => "");
  log.check(/Run/.test(tip), `tooltip on Shift-Tab: ${JSON.stringify(tip.slice(0, 80))}`);
  await log.shot(page, "tooltip");
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  await menu(page, "Edit", "notebook:delete-cell");

  // Interrupt a running benchmark from the toolbar.
  st = await state(page);
  await selectCell(page, st.cells.length - 1);
  await page.keyboard.press("b"); // insert a cell below, selected
  await page.evaluate(({ cur, code }) => { eval(cur).content.activeCell.model.sharedModel.setSource(code); }, { cur: current, code: longBench });
  const benchIndex = st.cells.length;
  await menu(page, "Run", "notebook:run-cell");
  await page.waitForFunction((cur) => eval(cur).sessionContext.session.kernel.status === "busy", current, { timeout: 10000 });
  await page.waitForTimeout(1500); // the benchmark's servers are up and loaded
  await log.shot(page, "benchmark-running");
  const t0 = Date.now();
  await page.click('.jp-NotebookPanel-toolbar [data-command="notebook:interrupt-kernel"]');
  // Idle, and the cell's reply in: the kernel also reports busy/idle around
  // the interrupt request itself, so the status alone could say idle early.
  await page.waitForFunction(({ cur, i }) => {
    const w = eval(cur);
    const c = w.content.widgets[i];
    return w.sessionContext.session.kernel.status === "idle" && c.model.executionCount !== null && c.model.executionState !== "running";
  }, { cur: current, i: benchIndex }, { timeout: 20000, polling: 20 });
  const ms = Date.now() - t0;
  log.check(ms <= 1000, `interrupt from the toolbar: kernel idle ${ms} ms after the click (limit 1000 ms)`);
  // The error output comes on iopub and the reply on shell: Jupyter does not
  // order the two channels, and the run's live progress updates queue ahead
  // of the error on iopub, so wait for it (at most 5 s).
  await page.waitForFunction(({ cur, i }) => {
    const outs = eval(cur).content.widgets[i].model.outputs;
    for (let k = 0; k < outs.length; k++) if (outs.get(k).type === "error") return true;
    return false;
  }, { cur: current, i: benchIndex }, { timeout: 5000, polling: 50 }).catch(() => {});
  st = await state(page);
  const out = (st.cells[benchIndex] && st.cells[benchIndex].outputs) || [];
  log.check(out.some((o) => o.output_type === "error" && /interrupt/i.test(o.ename + " " + o.evalue)),
    `the interrupted cell says it was interrupted: ${JSON.stringify(out.map((o) => o.ename || o.output_type))}`);
  await log.shot(page, "benchmark-interrupted");
  await selectCell(page, benchIndex);
  await menu(page, "Edit", "notebook:delete-cell");
  page.errors.length = 0;

  // Restart the kernel from the Kernel menu and Run All again.
  await menu(page, "Kernel", "kernelmenu:restart");
  await page.click(".jp-Dialog .jp-mod-accept");
  await page.waitForFunction((cur) => {
    const w = eval(cur);
    const k = w.sessionContext.session.kernel;
    return k && k.status === "idle" && k.connectionStatus === "connected" &&
      w.content.widgets.every((c) => c.model.type !== "code" || c.model.executionCount === null);
  }, current, { timeout: 60000 }).catch(() => {});
  const restarted = (await state(page)).kernelId;
  await runAll(page, log, name + " after a kernel restart");
  await check(page, browser, log, "Run All after a kernel restart");
  await log.shot(page, "restart-run-all");

  // Save, close, reopen from the file browser: the saved charts draw again.
  await save(page, front, log, name);
  await menu(page, "File", "application:close");
  await page.waitForFunction(({ cur, name }) => { const w = eval(cur); return !w || !w.context || w.context.path !== name; },
    { cur: current, name }, { timeout: 10000 });
  if (!(await page.locator("#filebrowser").isVisible())) await page.click('.jp-SideBar [data-id="filebrowser"]');
  await page.locator(".jp-DirListing-item", { hasText: name }).first().dblclick();
  await waitOpen(page, name);
  log.check((await state(page)).kernelId === restarted, "reopened on the running kernel");
  await check(page, browser, log, "reopened from the file browser (saved outputs)");
  await log.shot(page, "reopened");
}

for (const [n, name] of opt.notebooks.entries()) {
  console.log(`-- ${name}`);
  const page = await newPage(browser, front);
  const since = browser.blocked.length;
  const stem = name.replace(/\.ipynb$/, "");
  try {
    await open(page, front, name, `nb-${n}`);
    await log.shot(page, stem + "-opened");
    await runAll(page, log, name);
    await check(page, browser, log, `${name} after Run All`, { since });
    await log.shot(page, stem + "-run-all");
    const cells = chartCells(await state(page));
    if (cells.length) {
      await scrollTo(page, cells[cells.length - 1].i);
      await log.shot(page, stem + "-chart");
    }
    await save(page, front, log, name);
    if (name === opt.flows) await flows(page, name);
    // Shut the notebook's kernel down with it.
    await menu(page, "File", "filemenu:close-and-cleanup");
    await page.click(".jp-Dialog .jp-mod-accept", { timeout: 5000 }).catch(() => {});
  } catch (e) {
    log.fail(`${name}: ${e.message.split("\n")[0]}`);
    await log.shot(page, stem + "-failed").catch(() => {});
  }
  await page.close();
}
await browser.close();
console.log(log.failures === 0 ? "PASS JupyterLab browser tests" : `FAIL JupyterLab browser tests: ${log.failures} failures`);
process.exit(log.failures === 0 ? 0 : 1);
