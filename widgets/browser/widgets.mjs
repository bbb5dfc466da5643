// Browser test of conclab's widgets (scripts/test.d/47-widgets.sh): Debian's
// chromium through playwright-core (headless, loopback only: every other
// request is refused and listed), on JupyterLab 4.6 or Notebook 7.6 started
// from .venv with --expose-app-in-browser, driving the real UI with the
// mouse.
//
//   node widgets.mjs --ui lab|notebook --url http://127.0.0.1:PORT --token T --shots DIR
//
// On widgets/testdata/widgets-browser.ipynb: run the Interact cell (a slider
// driving a burst through widgets.Interact) and see its output; drag the
// slider and see the burst re-run with the new size; run the Stop cell (a
// 30 s bench.Run) and click Stop while it runs: the kernel shows busy until
// then, the run ends within 1 s of the click and the kernel listens on as
// many sockets as before it; save and reload the page: the slider and the
// Interact output are back with the dragged value; restart the kernel from
// its dialog: the page shows the restart and the kernel idle again, with no
// further dialog. A screenshot of every step goes to --shots. Exit status 0
// when everything passed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const NOTEBOOK = "widgets-browser.ipynb";
const args = process.argv.slice(2);
const opt = {};
for (let i = 0; i < args.length; i++) {
  if (["--ui", "--url", "--token", "--shots"].includes(args[i])) opt[args[i].slice(2)] = args[++i];
}
for (const k of ["ui", "url", "token", "shots"]) {
  if (!opt[k]) { console.error(`widgets.mjs: --${k} is required`); process.exit(2); }
}
fs.mkdirSync(opt.shots, { recursive: true });

let failures = 0;
let shotN = 0;
const fail = (msg) => { failures++; console.log(`  FAIL [${opt.ui}] ${msg}`); };
const pass = (msg) => console.log(`  ok   [${opt.ui}] ${msg}`);

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "conclab-widgets-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
  viewport: { width: 1280, height: 1000 },
});
const blocked = [];
await context.route("**/*", (route) => {
  const u = new URL(route.request().url());
  if (["file:", "data:", "blob:"].includes(u.protocol) || ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname)) {
    return route.continue();
  }
  blocked.push(u.href);
  return route.abort();
});

// Widget errors a page may log: any of them fails the test.
const widgetError = /Error displaying widget|Could not create|widget model not found|Wrong widget protocol|Could not process update|Failed to create view/i;
const errors = [];
let step = "open";
function watch(page) {
  page.on("console", (m) => { if (m.type() === "error") errors.push(`${m.text()} (during ${step})`); });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message} (during ${step}) ${(e.stack || "").split("\n").slice(1, 3).join(" ")}`));
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(opt.shots, `${opt.ui}-${String(++shotN).padStart(2, "0")}-${name}.png`) });
}

const page = await context.newPage();
watch(page);

function notebookURL() {
  const q = `token=${encodeURIComponent(opt.token)}`;
  return opt.ui === "lab" ? `${opt.url}/lab/tree/${NOTEBOOK}?${q}` : `${opt.url}/notebooks/${NOTEBOOK}?${q}`;
}

// ready waits until the notebook is open with its kernel connected and idle.
async function ready(timeout = 90000) {
  await page.waitForFunction((name) => {
    const app = window.jupyterapp;
    const w = app && app.shell.currentWidget;
    const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
    return w && w.context && w.context.path === name && w.context.isReady && k &&
      k.connectionStatus === "connected" && k.status === "idle";
  }, NOTEBOOK, { timeout });
}

async function kernelStatus() {
  return page.evaluate(() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status);
}

// runCell starts cell i (0-based) as the toolbar's run button does, and
// returns at once (the command's promise ends with the cell).
async function runCell(i) {
  await page.evaluate((i) => {
    const w = window.jupyterapp.shell.currentWidget;
    w.content.activeCellIndex = i;
    window.jupyterapp.commands.execute("notebook:run-cell");
    return null;
  }, i);
}

// idle waits until the kernel is idle and cell i has run.
async function cellDone(i, timeout = 60000) {
  await page.waitForFunction((i) => {
    const w = window.jupyterapp.shell.currentWidget;
    const m = w.content.widgets[i].model;
    return w.sessionContext.session.kernel.status === "idle" && m.executionState === "idle" && m.executionCount !== null;
  }, i, { timeout });
}

// show scrolls cell i into view (for the mouse and the screenshots).
async function show(i) {
  await page.locator(".jp-Notebook .jp-Cell").nth(i).scrollIntoViewIfNeeded();
}

// cell returns the locator of cell i's output area.
const cellOutput = (i) => page.locator(".jp-Notebook .jp-Cell").nth(i).locator(".jp-Cell-outputWrapper");

async function outputText(i) {
  return (await cellOutput(i).innerText().catch(() => "")).replace(/\s+/g, " ");
}

async function waitText(i, re, timeout, what) {
  const t0 = Date.now();
  for (;;) {
    const t = await outputText(i);
    const m = t.match(re);
    if (m) return m;
    if (Date.now() - t0 > timeout) {
      fail(`${what}: cell ${i + 1}'s output never matched ${re} in ${timeout / 1000} s; it shows: ${t.slice(0, 400)}`);
      return null;
    }
    await page.waitForTimeout(200);
  }
}

try {
  // 1. Open, run the imports and the Interact cell: the first run shows.
  await page.goto(notebookURL(), { waitUntil: "load", timeout: 60000 });
  await ready();
  const sub = await page.evaluate(async () => {
    const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    await k.info; // supportsSubshells is read from the kernel_info reply
    return k.supportsSubshells;
  });
  sub ? pass("the kernel advertises kernel subshells") : fail("the page does not see kernel subshells");
  await runCell(1);
  await cellDone(1);
  await runCell(2);
  await cellDone(2);
  await show(2);
  if (await waitText(2, /burst of 5: count 5/, 60000, "the first Interact run")) {
    pass("Interact's first run shows its burst of 5 under the slider");
  }
  await shot(page, "interact");

  step = "drag";
  // 2. Drag the slider with the mouse: the burst re-runs with the new size.
  const slider = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".widget-slider");
  await slider.scrollIntoViewIfNeeded();
  const track = await slider.locator(".noUi-target").boundingBox();
  const handle = await slider.locator(".noUi-handle").boundingBox();
  if (!track || !handle) {
    fail("no slider drawn in the Interact cell");
  } else {
    const y = handle.y + handle.height / 2;
    await page.mouse.move(handle.x + handle.width / 2, y);
    await page.mouse.down();
    for (let s = 1; s <= 10; s++) await page.mouse.move(handle.x + (track.width * 0.6) * s / 10, y);
    await page.mouse.up();
    const readout = (await slider.locator(".widget-readout").innerText()).trim();
    const v = Number(readout);
    if (!(v > 5)) fail(`after the drag the slider reads ${readout}; want more than 5`);
    const m = await waitText(2, new RegExp(`burst of ${v}: count ${v}\\b`), 60000, "the re-run after the drag");
    if (m) {
      const t = await outputText(2);
      t.includes("burst of 5:") ? fail("the first run's output is still shown after the re-run") :
        pass(`dragged to ${v}: the burst re-ran and its output shows count ${v} (the first run's output gone)`);
    }
    await shot(page, "dragged");
    opt.dragged = v;
  }

  step = "stop";
  // 3. The Stop cell: a 30 s bench.Run, stopped by its button.
  await runCell(3);
  const button = page.locator(".jp-Notebook .jp-Cell").nth(3).locator("button.jupyter-button");
  await button.waitFor({ timeout: 30000 });
  await show(3);
  await waitText(3, /goroutines .* req/, 30000, "the long run's live progress");
  await page.waitForTimeout(1500);
  const running = await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.widgets[3].model.executionState);
  running === "running" ? pass("the long cell is running when Stop is clicked") : fail(`the long cell is ${running} before the click`);
  const during = await kernelStatus();
  during === "busy" ? pass("the kernel shows busy while the cell runs (widget traffic beside it)") :
    fail(`the kernel shows ${during} while the long cell runs; want busy`);
  await shot(page, "running");
  await button.click();
  const m = await waitText(3, /clicked=(\w+) ran=([\d.]+)s stopped-after-click=(\d+)ms listeners-before=(\d+) listeners-after=(\d+) run-error=(.*)/, 20000, "the stopped run's report");
  if (m) {
    const [, clicked, ran, afterClick, before, after] = m;
    if (clicked !== "true") fail(`the click did not reach the handler (${m[0]})`);
    else if (Number(afterClick) >= 1000) fail(`bench.Run ended ${afterClick} ms after the click; want under 1000`);
    else if (before !== after) fail(`the kernel listened on ${before} sockets before the run and ${after} after; want the servers gone`);
    else pass(`Stop: bench.Run ended ${afterClick} ms after the click (ran ${ran} s of 30), listeners ${before} before and ${after} after`);
  }
  await page.waitForFunction(() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === "idle", null, { timeout: 30000 });
  await shot(page, "stopped");

  step = "reload";
  // 4. Save, reload: the widgets come back with the values they have.
  await page.evaluate(() => window.jupyterapp.commands.execute("docmanager:save"));
  await page.waitForFunction(() => !window.jupyterapp.shell.currentWidget.context.model.dirty, null, { timeout: 20000 });
  await page.reload({ waitUntil: "load" });
  await ready();
  const slider2 = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".widget-slider .widget-readout");
  await slider2.waitFor({ timeout: 30000 });
  await show(2);
  const readout2 = (await slider2.innerText()).trim();
  if (opt.dragged !== undefined) {
    Number(readout2) === opt.dragged ? pass(`after a reload the slider is back at ${readout2}`) :
      fail(`after a reload the slider reads ${readout2}; want ${opt.dragged}`);
    if (await waitText(2, new RegExp(`burst of ${opt.dragged}: count ${opt.dragged}\\b`), 20000, "the Interact output after a reload")) {
      pass("after a reload the Interact output shows the dragged run");
    }
  }
  await shot(page, "reloaded");

  step = "restart";
  // 5. Restart the kernel from its dialog: the page says so and settles.
  const kid = await page.evaluate(() => {
    const sc = window.jupyterapp.shell.currentWidget.sessionContext;
    window.__kernelStates = [];
    sc.statusChanged.connect((_, s) => window.__kernelStates.push(s));
    return sc.session.kernel.id;
  });
  // The Kernel menu's restart (Notebook 7 has it too), as a person picks it.
  const restarted = page.evaluate(() => window.jupyterapp.commands.execute("kernelmenu:restart"));
  const dialog = page.locator(".jp-Dialog");
  await dialog.waitFor({ timeout: 10000 });
  await shot(page, "restart-dialog");
  await dialog.locator("button.jp-mod-accept").click();
  await restarted.catch(() => {});
  await page.waitForFunction(() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === "idle", null, { timeout: 30000 });
  await page.waitForTimeout(3000); // time for a dialog or an error to show up, if any would
  const saw = await page.evaluate(() => window.__kernelStates);
  saw.includes("restarting") ? pass(`the page showed the restart (kernel states: ${saw.join(", ")})`) :
    fail(`the page never showed the restart (kernel states: ${saw.join(", ")})`);
  const status = await kernelStatus();
  status === "idle" ? pass("the kernel is idle after the restart") : fail(`the kernel is ${status} after the restart`);
  const dialogs = await page.locator(".jp-Dialog").count();
  dialogs === 0 ? pass("no dialog after the restart") : fail(`${dialogs} dialog(s) open after the restart: ${await page.locator(".jp-Dialog").first().innerText()}`);
  const kid2 = await page.evaluate(() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.id);
  kid2 === kid ? pass("the same kernel id, restarted in place") : pass(`a new kernel id after the restart (${kid2})`);
  await show(2);
  await shot(page, "restarted");
  // The restarted kernel works: the imports run.
  await runCell(1);
  await cellDone(1);
  const count = await page.evaluate(() => window.jupyterapp.shell.currentWidget.content.widgets[1].model.executionCount);
  count === 1 ? pass("the restarted kernel runs cells again (execution count 1)") : fail(`after the restart the imports cell has count ${count}; want 1`);
} catch (e) {
  fail(`the flow broke: ${e.stack || e}`);
  await shot(page, "broken").catch(() => {});
}

const widgetErrors = errors.filter((e) => widgetError.test(e));
widgetErrors.length === 0 ? pass(`no widget error logged (${errors.length} other console errors)`) :
  fail(`widget errors logged: ${widgetErrors.slice(0, 5).join(" | ")}`);
for (const e of errors.filter((e) => !widgetError.test(e)).slice(0, 10)) console.log(`  note [${opt.ui}] console: ${e.slice(0, 400)}`);
if (blocked.length) console.log(`  note [${opt.ui}] refused ${blocked.length} request(s) off loopback, e.g. ${blocked[0]}`);
await context.close();
fs.rmSync(userDataDir, { recursive: true, force: true });
console.log(failures ? `widgets.mjs [${opt.ui}]: ${failures} failure(s)` : `widgets.mjs [${opt.ui}]: all passed`);
process.exit(failures ? 1 : 0);
