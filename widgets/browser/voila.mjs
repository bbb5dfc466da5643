// Browser test of a lesson's "try it" as a Voilà dashboard
// (scripts/test.d/47-widgets.sh): Debian's chromium through playwright-core
// (headless, loopback only), on the page scripts/voila.sh serves for
// widgets/testdata/tryit.ipynb (lab.Try: tokens and users sliders, a "run
// for" toggle, a Stop button, a live chart, the table and the waterfall).
//
//   node voila.mjs --url http://127.0.0.1:PORT --token T --runtime DIR --shots DIR --cull SECONDS
//
// --runtime is Voilà's Jupyter runtime dir: the kernels' connection files
// are under it, which is how the test finds the page's kernel process (to
// count the sockets it listens on and its child processes, and to kill it).
//
// Voilà runs the notebook in a fresh kernel for each page visit, then the
// page connects and draws the widgets from their state. The test: the page
// shows the controls, the first run's table and waterfall, and says these
// are the lesson's values; dragging the tokens slider with the mouse re-runs
// the experiment and the chart's values change (another waterfall, a table
// whose throughput follows the tokens), and the page's address gets
// tokens=N; picking 30 s and clicking Stop ends that run within 1 s of the
// click, the kernel listening on as many sockets as before it and with no
// child process; back to 2 s, the address keeps tokens only; reloading the
// page is a new visit, a new kernel, which reads the address: the sliders
// are back at N and 8, the run redrawn for them (its throughput follows the
// tokens again), and the old kernel is shut down (culled: voila.sh's
// CONCLAB_VOILA_CULL, given as --cull); the kernel killed, jupyter-server
// restarts it empty: the page says its kernel stopped and that a reload
// starts a fresh one, shows no dialog and logs no error loop; the same
// address opened in a new tab with bad values added (users=99, out of
// range; bogus=1, no such control) shows tokens N, users 8, a note naming
// each ignored value, a finished run; its kernel shut down through the
// server's API (as culling does): the page says so. Screenshots go to
// --shots. Exit status 0 when everything passed.
import fs from "node:fs";
import path from "node:path";
import { launch } from "../../charts/browser/inspect.mjs";

const args = process.argv.slice(2);
const opt = {};
for (let i = 0; i < args.length; i++) {
  if (["--url", "--token", "--runtime", "--shots", "--cull"].includes(args[i])) opt[args[i].slice(2)] = args[++i];
}
for (const k of ["url", "token", "runtime", "shots", "cull"]) {
  if (!opt[k]) { console.error(`voila.mjs: --${k} is required`); process.exit(2); }
}
fs.mkdirSync(opt.shots, { recursive: true });

let failures = 0;
let shotN = 0;
const fail = (msg) => { failures++; console.log(`  FAIL [voila] ${msg}`); };
const pass = (msg) => console.log(`  ok   [voila] ${msg}`);

// The kernel behind a page: its id from the runtime dir's connection files,
// its process from /proc.
function kernelIDs() {
  const ids = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      const m = /^kernel-([0-9a-f-]{36})\.json$/.exec(e.name);
      if (m) ids.push(m[1]);
    }
  };
  walk(opt.runtime);
  return ids;
}
function kernelPID(id) {
  for (const p of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    let cmd;
    try { cmd = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0"); } catch { continue; }
    if (cmd[1] === "kernel" && /conclab$/.test(cmd[0]) && (cmd[2] || "").endsWith(`kernel-${id}.json`)) return Number(p);
  }
  return 0;
}
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
// listeners: the TCP sockets process pid listens on.
function listeners(pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const l = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      const m = /^socket:\[(\d+)\]$/.exec(l);
      if (m) inodes.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  let n = 0;
  for (const f of ["tcp", "tcp6"]) {
    for (const line of fs.readFileSync(`/proc/${pid}/net/${f}`, "utf8").split("\n").slice(1)) {
      const fs_ = line.trim().split(/\s+/);
      if (fs_.length > 9 && fs_[3] === "0A" && inodes.has(fs_[9])) n++;
    }
  }
  return n;
}
function children(pid) {
  const out = [];
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    out.push(...fs.readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean));
  }
  return out;
}

const browser = await launch({ viewport: { width: 1200, height: 1100 } });
const errors = [];
const dialogs = [];
let step = "open";
// How long each step took (printed at the end: the suite's budget).
const stepTimes = [];
let stepT0 = Date.now();
function begin(name) {
  stepTimes.push(`${step} ${((Date.now() - stepT0) / 1000).toFixed(1)} s`);
  step = name;
  stepT0 = Date.now();
}
// Voilà 0.5.13's page warns about the shared modules of every federated
// extension built against a newer JupyterLab (warnings, not errors); its
// two refused requests are fonts off loopback.
function watchPage(p) {
  p.on("console", (m) => { if (m.type() === "error") errors.push(`${m.text()} (during ${step})`); });
  p.on("pageerror", (e) => errors.push(`pageerror: ${e.message} (during ${step})`));
  p.on("dialog", (d) => { dialogs.push(`${d.type()}: ${d.message()} (during ${step})`); d.dismiss().catch(() => {}); });
  return p;
}
let page = watchPage(await browser.context.newPage());
// knobs: the try-it's keys in the page's address (the token aside).
const knobs = () => {
  const q = new URL(page.url()).searchParams;
  q.delete("token");
  return q.toString();
};
// pageNotes: the page state's line and notes (lab.Try in Voilà).
const pageNotes = () => page.evaluate(() => ({
  line: (document.querySelector(".jp-ConclabPageState-line") || {}).innerText || "",
  notes: [...document.querySelectorAll("[data-conclab-note]")].map((e) => e.innerText),
  unknown: [...document.querySelectorAll("[data-conclab-unknown]")].map((e) => e.getAttribute("data-conclab-unknown")).filter(Boolean),
}));
// kernelNotice waits for the page's notice that its kernel stopped.
async function kernelNotice(timeout) {
  try {
    const el = page.locator("[data-conclab-kernel-notice]");
    await el.waitFor({ timeout });
    return { why: await el.getAttribute("data-conclab-kernel-notice"), text: (await el.innerText()).replace(/\s+/g, " ") };
  } catch {
    return null;
  }
}

async function shot(name) {
  await page.screenshot({ path: path.join(opt.shots, `voila-${String(++shotN).padStart(2, "0")}-${name}.png`), fullPage: true });
}
const bodyText = async () => (await page.innerText("body").catch(() => "")).replace(/\s+/g, " ");
async function waitBody(re, timeout, what) {
  const t0 = Date.now();
  for (;;) {
    const m = (await bodyText()).match(re);
    if (m) return m;
    if (Date.now() - t0 > timeout) {
      fail(`${what}: the page never showed ${re} in ${timeout / 1000} s; it shows: ${(await bodyText()).slice(-400)}`);
      return null;
    }
    await page.waitForTimeout(100);
  }
}
// state: what the page shows of the run: the sliders' readouts, the table's
// count and req/s, the waterfall's subtitle and a digest of its data.
async function state() {
  return page.evaluate(() => {
    const readouts = [...document.querySelectorAll(".widget-slider .widget-readout")].map((e) => e.innerText.trim());
    const charts = [...document.querySelectorAll('[data-conclab-chart="1"]')].map((el) => {
      const inst = el.conclabChart || (window.echarts && window.echarts.getInstanceByDom(el));
      if (!inst || inst.isDisposed()) return { ready: false };
      const o = inst.getOption();
      return { ready: el.hasAttribute("data-conclab-ready"), title: (o.title || []).map((t) => t.text).join(" "),
        subtext: (o.title || []).map((t) => t.subtext || "").join(" "),
        data: JSON.stringify((o.series || []).map((s) => s.data)) };
    });
    let count = null, rps = null;
    for (const tr of document.querySelectorAll("table tr")) {
      const cells = [...tr.querySelectorAll("td")].map((td) => td.innerText.trim());
      if (cells[0] === "def") { count = Number(cells[1]); rps = Number(cells[4]); }
    }
    return { readouts, charts, count, rps, waterfalls: charts.filter((c) => /waterfall/i.test(c.title)) };
  });
}
// settled waits for a finished run: the table and a drawn waterfall.
async function settled(timeout, what) {
  try {
    await page.waitForFunction(() => {
      const drawn = [...document.querySelectorAll('[data-conclab-chart="1"][data-conclab-ready]')].some((el) => {
        const inst = el.conclabChart || (window.echarts && window.echarts.getInstanceByDom(el));
        return inst && !inst.isDisposed() && (inst.getOption().title || []).some((t) => /waterfall/i.test(t.text));
      });
      return drawn && [...document.querySelectorAll("table td")].some((td) => td.innerText.trim() === "def");
    }, null, { timeout });
    return await state();
  } catch {
    fail(`${what}: no finished run (table and waterfall) within ${timeout / 1000} s; the page shows: ${(await bodyText()).slice(-300)}`);
    return null;
  }
}

try {
  // 1. The page: Voilà runs the notebook, then draws the widgets.
  const t0 = Date.now();
  await page.goto(`${opt.url}/?token=${encodeURIComponent(opt.token)}`, { waitUntil: "load", timeout: 180000 });
  await page.locator(".widget-slider").first().waitFor({ timeout: 60000 });
  const first = await settled(60000, "the first run");
  if (first) {
    pass(`the dashboard shows ${first.readouts.length} sliders (${first.readouts.join(", ")}), ` +
      `the table (count ${first.count}, ${first.rps} req/s) and ${first.waterfalls.length} waterfall "${first.waterfalls.map((w) => w.subtext).join("")}" ${((Date.now() - t0) / 1000).toFixed(1)} s after the request`);
    if (first.readouts.join(",") !== "2,8") fail(`the sliders read ${first.readouts}; want the notebook's 2, 8`);
  }
  const n1 = await pageNotes();
  /lesson's values/.test(n1.line) && knobs() === "" && n1.notes.length === 0 ?
    pass(`the page says "${n1.line.trim()}"; its address holds no values (${page.url().replace(opt.token, "T")})`) :
    fail(`the first page: line "${n1.line}", notes ${JSON.stringify(n1.notes)}, address values "${knobs()}"; want the lesson's values, none in the address`);
  const ids = kernelIDs();
  ids.length === 1 ? pass(`one kernel for the page (${ids[0]})`) : fail(`${ids.length} kernels for one page: ${ids}`);
  let kid = ids[0], pid = kernelPID(kid);
  if (!pid) throw new Error(`no process for kernel ${kid}`);
  await shot("first");

  // 2. Drag the tokens slider: the experiment re-runs, the chart changes.
  begin("drag");
  const slider = page.locator(".widget-slider").first();
  const track = await slider.locator(".noUi-target").boundingBox();
  const handle = await slider.locator(".noUi-handle").boundingBox();
  const y = handle.y + handle.height / 2;
  await page.mouse.move(handle.x + handle.width / 2, y);
  await page.mouse.down();
  for (let s = 1; s <= 10; s++) await page.mouse.move(handle.x + handle.width / 2 + (track.width * 0.6) * s / 10, y);
  await page.mouse.up();
  const tokens = Number((await slider.locator(".widget-readout").innerText()).trim());
  if (!(tokens >= 4)) fail(`after the drag the tokens slider reads ${tokens}; want 4 or more`);
  // The old run's outputs go when the new run shows its first; wait for a
  // table whose count differs.
  await page.waitForFunction((c) => {
    for (const tr of document.querySelectorAll("table tr")) {
      const cells = [...tr.querySelectorAll("td")].map((td) => td.innerText.trim());
      if (cells[0] === "def" && Number(cells[1]) !== c) return true;
    }
    return false;
  }, first && first.count, { timeout: 60000 }).catch(() => {});
  const second = await settled(60000, "the re-run after the drag");
  if (first && second) {
    const w1 = first.waterfalls[0], w2 = second.waterfalls[0];
    if (second.waterfalls.length !== 1) fail(`${second.waterfalls.length} waterfalls after the re-run; want 1 (the first run's replaced)`);
    else if (w1.data === w2.data) fail("the waterfall's data did not change after the drag");
    else if (!new RegExp(`(^| of )${second.count} requests`).test(w2.subtext)) fail(`the new waterfall says "${w2.subtext}"; the table counts ${second.count}`);
    // 100 ms requests: req/s ≈ 10 × tokens while users queue.
    else if (!(second.rps > first.rps * 1.4)) fail(`tokens 2 → ${tokens}: ${first.rps} → ${second.rps} req/s; want at least 1.4× (≈ 10 per token)`);
    else pass(`dragged tokens 2 → ${tokens}: re-ran, ${first.rps} → ${second.rps} req/s, the waterfall "${w1.subtext}" → "${w2.subtext}" (its data changed)`);
  }
  knobs() === `tokens=${tokens}` ? pass(`the page's address follows the drag: ?…&${knobs()}`) :
    fail(`after the drag the page's address holds "${knobs()}"; want tokens=${tokens}`);
  await shot("dragged");

  // 3. A 30 s run, stopped by the Stop button.
  begin("stop");
  const before = listeners(pid);
  const kidsBefore = children(pid).join(" "); // the kernel's own helper process
  await page.locator(".widget-toggle-buttons button", { hasText: "30s" }).click();
  await waitBody(/\/ 30 s/, 20000, "the 30 s run's progress line");
  await page.waitForTimeout(1500);
  const during = listeners(pid);
  during > before ? pass(`the 30 s run is serving: the kernel listens on ${during} sockets (${before} before)`) :
    fail(`during the 30 s run the kernel listens on ${during} sockets, ${before} before: the run's server is not seen`);
  await shot("running");
  const clicked = Date.now();
  await page.locator("button.jupyter-button", { hasText: "Stop" }).click();
  const m = await waitBody(/stopped: "Stop" clicked after ([\d.]+) s/, 10000, "the stopped run's line");
  const shown = Date.now() - clicked;
  if (m) {
    shown < 1000 ? pass(`Stop: the page says the run stopped ${shown} ms after the click (it ran ${m[1]} s of 30)`) :
      fail(`the page said the run stopped ${shown} ms after the click; want under 1000`);
  }
  let after = listeners(pid);
  const kids = children(pid).join(" ");
  after === before && kids === kidsBefore ? pass(`after Stop the kernel listens on ${after} sockets (as before the run) and has the child processes it had before it (${kidsBefore || "none"})`) :
    fail(`after Stop the kernel listens on ${after} sockets (${before} before the run), children: ${kids || "none"} (before: ${kidsBefore || "none"})`);
  await shot("stopped");
  // Back to 2 s (a reload runs the notebook with the address's values: a
  // 30 s first run would hold the page that long).
  begin("2s");
  await page.locator(".widget-toggle-buttons button", { hasText: "2s" }).click();
  const back = await settled(60000, "the 2 s run after Stop");
  knobs() === `tokens=${tokens}` ? pass(`back to 2 s (${back && back.rps} req/s): the address holds ${knobs()} (run for is at the lesson's value, left out)`) :
    fail(`back to 2 s the address holds "${knobs()}"; want tokens=${tokens}`);

  // 4. Reload: a new visit, a new kernel; the old one shut down.
  begin("reload");
  const oldPID = pid;
  const reloaded = Date.now();
  await page.reload({ waitUntil: "load", timeout: 180000 });
  await page.locator(".widget-slider").first().waitFor({ timeout: 60000 });
  const third = await settled(60000, "the run after a reload");
  if (third) {
    const toggled = await page.locator(".widget-toggle-buttons button.mod-active").innerText().catch(() => "?");
    third.readouts.join(",") === `${tokens},8` && toggled.trim() === "2s" ?
      pass(`after a reload (${((Date.now() - reloaded) / 1000).toFixed(1)} s) the widgets are back with their values (sliders ${third.readouts.join(", ")}, run for ${toggled.trim()}), from the address ?…&${knobs()}`) :
      fail(`after a reload the sliders read ${third.readouts}, run for ${toggled}; want ${tokens}, 8, 2s`);
    // The run redrawn for them: 100 ms requests, req/s ≈ 10 × tokens.
    const w = third.waterfalls[0];
    third.waterfalls.length === 1 && third.rps > first.rps * 1.4 && w && new RegExp(`(^| of )${third.count} requests`).test(w.subtext) ?
      pass(`the reloaded page's run is for tokens ${tokens}: ${third.rps} req/s (${first.rps} at the lesson's 2), its waterfall "${w.subtext}"`) :
      fail(`the reloaded page's run: ${third.rps} req/s (${first.rps} at 2 tokens), ${third.waterfalls.length} waterfalls "${w && w.subtext}", table count ${third.count}`);
    const n3 = await pageNotes();
    // The link back to the lesson's values: this address without the knobs.
    const href = await page.locator("a.jp-ConclabPageState-reset").getAttribute("href").catch(() => null);
    const lesson = href && new URL(href);
    const backOK = lesson && lesson.searchParams.get("token") === opt.token && !lesson.searchParams.has("tokens") &&
      lesson.pathname === new URL(page.url()).pathname;
    new RegExp(`Your values \\(tokens ${tokens}\\)`).test(n3.line) && n3.notes.length === 0 && backOK ?
      pass(`the reloaded page says "${n3.line.trim()}" (the link: this address without tokens)`) :
      fail(`the reloaded page's line "${n3.line}", notes ${JSON.stringify(n3.notes)}, the link back ${href && href.replace(opt.token, "T")}`);
  }
  // Voilà's own shutdown on unload is refused (voila#1458); voila.sh culls
  // a kernel idle with no page for CONCLAB_VOILA_CULL s (--cull here).
  let gone = false;
  const limit = 2 * Number(opt.cull) * 1000 + 10000;
  while (!gone && Date.now() - reloaded < limit) { gone = !alive(oldPID); if (!gone) await page.waitForTimeout(200); }
  gone ? pass(`the reloaded page's old kernel (pid ${oldPID}) was shut down ${((Date.now() - reloaded) / 1000).toFixed(1)} s after the reload (culled after ${opt.cull} s with no page)`) :
    fail(`the old kernel (pid ${oldPID}) outlived the reload by ${limit / 1000} s`);
  const ids2 = kernelIDs().filter((i) => i !== kid);
  if (ids2.length !== 1) fail(`after the reload ${ids2.length} new kernels: ${ids2}`);
  kid = ids2[0];
  pid = kernelPID(kid);
  await shot("reloaded");

  // 5. The kernel dies; jupyter-server restarts it.
  begin("restart");
  const errorsBefore = errors.length;
  process.kill(pid, "SIGKILL");
  let pid2 = 0;
  for (let i = 0; i < 300 && !pid2; i++) { await page.waitForTimeout(100); pid2 = kernelPID(kid); }
  pid2 && pid2 !== pid ? pass(`the killed kernel was restarted by the server (pid ${pid} → ${pid2}, same kernel id)`) :
    fail(`no restarted kernel for ${kid} within 30 s`);
  const said = await kernelNotice(20000);
  said && /kernel has stopped/.test(said.text) && /Reload the page to start a fresh one/.test(said.text) ?
    pass(`the page says: "${said.text}" (${said.why})`) : fail(`after the kernel died the page shows no notice; it shows: ${(await bodyText()).slice(0, 300)}`);
  const marked = await page.waitForFunction(() => document.querySelectorAll(".jupyter-widgets-disconnected").length > 0, null, { timeout: 20000 })
    .then(() => true).catch(() => false);
  await page.waitForTimeout(3000); // time for a dialog or an error loop to show, if any would
  const n = await page.locator(".jupyter-widgets-disconnected").count();
  const notices = await page.locator("[data-conclab-kernel-notice]").count();
  marked && notices === 1 ? pass(`one notice; the page marks ${n} widget views disconnected (ipywidgets' broken-link mark)`) :
    fail(`after the kernel's restart: ${notices} notices, ${n} widget views marked disconnected`);
  const modal = await page.locator(".jp-Dialog, [role=dialog], .modal").count();
  dialogs.length === 0 && modal === 0 ? pass("no dialog after the restart") : fail(`dialogs after the restart: ${dialogs.join(" | ")} (${modal} on the page)`);
  const newErrors = errors.slice(errorsBefore);
  newErrors.length <= 3 ? pass(`no error loop: ${newErrors.length} console errors in the 3 s after the restart`) :
    fail(`${newErrors.length} console errors after the restart: ${newErrors.slice(0, 3).join(" | ")}`);
  await shot("restarted");

  // 6. The same address in a new tab of the browser, with bad values
  // added: the good one is restored, the bad ones ignored with notes.
  begin("reopen");
  const addr = new URL(page.url());
  addr.searchParams.set("users", "99");
  addr.searchParams.set("bogus", "1");
  const known = new Set(kernelIDs());
  await page.close({ runBeforeUnload: true });
  page = watchPage(await browser.context.newPage());
  await page.goto(addr.href, { waitUntil: "load", timeout: 180000 });
  await page.locator(".widget-slider").first().waitFor({ timeout: 60000 });
  const fourth = await settled(60000, "the run of the reopened address");
  const n6 = await pageNotes();
  if (fourth) {
    const users99 = n6.notes.find((x) => /users=99/.test(x) && /from 1 to 16/.test(x));
    fourth.readouts.join(",") === `${tokens},8` && users99 && n6.unknown.join(",") === "bogus" ?
      pass(`the address reopened with users=99 and bogus=1 added: sliders ${fourth.readouts.join(", ")}, a finished run (${fourth.count} requests), the notes "${users99}" and "${(await page.locator("[data-conclab-unknown]").first().innerText()).trim()}"`) :
      fail(`the reopened address: sliders ${fourth.readouts}, notes ${JSON.stringify(n6)}; want ${tokens}, 8, a users=99 note, bogus unknown`);
  }
  await shot("reopened");
  // Its kernel shut down by the server (as voila.sh's culling does).
  begin("shutdown");
  const kid4 = kernelIDs().find((i) => !known.has(i));
  const errorsBefore6 = errors.length;
  const del = await fetch(`${opt.url}/api/kernels/${kid4}`, { method: "DELETE", headers: { Authorization: `token ${opt.token}` } });
  del.status === 204 ? pass(`the reopened page's kernel ${kid4} shut down through the server's API`) : fail(`DELETE /api/kernels/${kid4}: ${del.status}`);
  const said6 = await kernelNotice(20000);
  await page.waitForTimeout(3000);
  const err6 = errors.slice(errorsBefore6);
  said6 && /shut down/.test(said6.why) && dialogs.length === 0 && err6.length <= 5 ?
    pass(`the page says: "${said6.text}"; no dialog, ${err6.length} console errors in the 3 s after`) :
    fail(`after its kernel was shut down: notice ${JSON.stringify(said6)}, dialogs ${dialogs.length}, console errors ${err6.length}: ${err6.slice(0, 3).join(" | ")}`);
  await shot("shutdown");
} catch (e) {
  fail(`the flow broke: ${e.stack || e}`);
  await shot("broken").catch(() => {});
}

const widgetError = /Error displaying widget|Could not create|widget model not found|Wrong widget protocol|Could not process update|Failed to create view/i;
const werr = errors.filter((e) => widgetError.test(e));
werr.length === 0 ? pass(`no widget error logged (${errors.length} other console errors)`) : fail(`widget errors logged: ${werr.slice(0, 5).join(" | ")}`);
for (const e of errors.filter((e) => !widgetError.test(e)).slice(0, 8)) console.log(`  note [voila] console: ${e.slice(0, 300)}`);
if (browser.blocked.length) console.log(`  note [voila] refused ${browser.blocked.length} request(s) off loopback, e.g. ${browser.blocked[0]}`);
// Leave the page as a person does: Voilà shuts the kernel down on unload.
await page.close({ runBeforeUnload: true }).catch(() => {});
await browser.close();
begin("end");
console.log(`  note [voila] steps: ${stepTimes.join(", ")}`);
console.log(failures ? `voila.mjs: ${failures} failure(s)` : "voila.mjs: all passed");
process.exit(failures ? 1 : 0);
