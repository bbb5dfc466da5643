// Shared by the browser tests (check.mjs, jupyterlab/test/*.mjs): Debian's
// chromium launched offline, and what a page's conclab charts look like.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

// loopback reports whether a request may leave the browser: file:, data:,
// blob: and loopback only.
export function loopback(href) {
  const u = new URL(href);
  return u.protocol === "file:" || u.protocol === "data:" || u.protocol === "blob:" ||
    u.hostname === "127.0.0.1" || u.hostname === "localhost" || u.hostname === "[::1]";
}

// launch starts chromium with a fresh user-data dir; every request outside
// file://, data: and loopback is refused and recorded in `blocked`. close()
// removes the profile. javaScript: false opens pages with scripts off.
export async function launch({ viewport = { width: 1100, height: 900 }, javaScript = true } = {}) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "conclab-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: chromiumArgs,
    viewport,
    javaScriptEnabled: javaScript,
  });
  const blocked = [];
  await context.route("**/*", (route) => {
    const href = route.request().url();
    if (loopback(href)) return route.continue();
    blocked.push(href);
    return route.abort();
  });
  return {
    context, blocked,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// watch records a page's console errors and uncaught exceptions in errors.
// ignore: a predicate for messages that are known and explained.
export function watch(page, errors, ignore = () => false) {
  page.on("console", (m) => {
    if (m.type() === "error" && !ignore(m.text(), m)) errors.push("console: " + m.text() + locationOf(m));
  });
  page.on("pageerror", (e) => errors.push("pageerror: " + e.message));
}

function locationOf(m) {
  const l = m.location && m.location();
  return l && l.url ? ` (${l.url})` : "";
}

// settle waits until every chart container on the page (or in root, a CSS
// selector) is drawn or failed (the HTML charts' scripts give up after
// 20 s), or timeout ms.
export async function settle(page, timeout = 45000, root = "body") {
  await page.waitForFunction((root) => {
    const r = document.querySelector(root);
    const els = r ? [...r.querySelectorAll('[data-conclab-chart="1"]')] : [];
    return els.every((el) => el.hasAttribute("data-conclab-ready") || el.hasAttribute("data-conclab-error"));
  }, root, { timeout }).catch(() => {});
}

// chartReport describes every chart container on the page (or in root): who
// drew it (renderer "mime": conclab's JupyterLab extension; "html": the
// chart's own script), its ECharts instance and data points, its size on the
// page and its canvas's, the ink on its canvas (and how much of it is light
// or dark, which says whether text reads on the theme's background), whether
// the static image still stands in for it, and the contrast of its series
// colours against the page's background.
export async function chartReport(page, root = "body") {
  return page.evaluate((root) => {
    function rgb(css) {
      const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/.exec(css || "");
      if (m) return { c: [+m[1], +m[2], +m[3]], a: m[4] === undefined ? 1 : +m[4] };
      const h = /^#([0-9a-f]{6})$/i.exec(css || "");
      if (h) { const n = parseInt(h[1], 16); return { c: [n >> 16, (n >> 8) & 255, n & 255], a: 1 }; }
      return null;
    }
    function lum(c) {
      const v = c.map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
      return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
    }
    // The background a chart is drawn on: the first opaque one up its tree.
    function background(el) {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c && c.a > 0.5) return c.c;
      }
      return [255, 255, 255];
    }
    const scope = document.querySelector(root) || document.body;
    const out = [];
    for (const el of scope.querySelectorAll('[data-conclab-chart="1"]')) {
      const r = { id: el.id, renderer: el.getAttribute("data-conclab-renderer") || "html",
        ready: el.hasAttribute("data-conclab-ready"), error: el.getAttribute("data-conclab-error"),
        theme: el.getAttribute("data-conclab-theme"), size: [el.clientWidth, el.clientHeight],
        fallback: !!el.querySelector("img.conclab-chart-fallback") };
      const inst = el.conclabChart || (window.echarts && window.echarts.getInstanceByDom(el));
      r.instance = !!inst && !inst.isDisposed();
      r.points = 0;
      r.contrast = null;
      if (r.instance) {
        const opt = inst.getOption();
        const bg = background(el);
        r.background = bg;
        let minContrast = Infinity;
        const colors = [];
        for (const s of opt.series || []) {
          r.points += (s.data || []).length;
          const cs = [s.itemStyle && s.itemStyle.color, s.lineStyle && s.lineStyle.color];
          for (const d of s.data || []) if (d && d.itemStyle && d.itemStyle.color) cs.push(d.itemStyle.color);
          for (const c of cs) {
            const p = typeof c === "string" && rgb(c);
            if (!p) continue;
            colors.push(c);
            const a = lum(p.c), b = lum(bg);
            minContrast = Math.min(minContrast, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05));
          }
        }
        r.contrast = colors.length ? +minContrast.toFixed(2) : null;
        r.subtext = (opt.title || []).map((t) => t.subtext || "").join(" ");
        // An interval chart's tooltip (a named function reading the
        // option's label table): what it says for the first bar.
        const first = (opt.series || []).find((s) => s.type === "custom" && (s.data || []).length > 0);
        const fmt = opt.tooltip && opt.tooltip[0] && opt.tooltip[0].formatter;
        if (first && typeof fmt === "function") {
          const d = first.data[0];
          r.tooltip = String(fmt({ value: Array.isArray(d) ? d : d.value, seriesName: first.name }));
        }
      }
      const canvas = el.querySelector("canvas");
      r.inked = 0; r.light = 0; r.dark = 0;
      if (canvas && canvas.width > 0 && canvas.height > 0) {
        const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0, light = 0, dark = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] === 0) continue;
          if (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235) n++;
          if (data[i + 3] > 128) {
            const y = lum([data[i], data[i + 1], data[i + 2]]);
            if (y > 0.6) light++;
            else if (y < 0.1) dark++;
          }
        }
        const px = canvas.width * canvas.height;
        r.inked = n / px; r.light = light / px; r.dark = dark / px;
        r.canvas = [canvas.width, canvas.height];
        r.canvasCSS = [canvas.clientWidth, canvas.clientHeight];
      }
      out.push(r);
    }
    const problems = scope.querySelectorAll('[data-conclab-problem="1"]').length;
    const libs = document.querySelectorAll("script[data-conclab-echarts]").length;
    return { charts: out, problems, libs, amd: typeof window.define === "function" && !!window.define.amd };
  }, root);
}

// undrawn lists the charts of a report that ECharts did not draw with data,
// at a size, with ink.
export function undrawn(report) {
  return report.charts.filter((c) => !c.ready || !c.instance || c.error || c.fallback || !(c.inked > 0.005) ||
    !(c.points > 0) || !(c.size[0] > 0 && c.size[1] > 0) || !c.canvas || !tooltipNamesItsLine(c));
}

// tooltipNamesItsLine: an interval chart's tooltip says request, phase,
// its thread or lane (from the label table), and the time.
function tooltipNamesItsLine(c) {
  if (c.tooltip === undefined) return true;
  const lines = c.tooltip.split(/<br>|\n/);
  return lines.length === 3 && lines[1].trim() !== "" && !/undefined|NaN/.test(c.tooltip) && / ms \(/.test(lines[2]);
}

export function describe(report) {
  const by = {};
  for (const c of report.charts) by[c.renderer] = (by[c.renderer] || 0) + 1;
  return `${report.charts.length} chart containers (${Object.entries(by).map(([k, v]) => `${v} ${k}`).join(", ") || "none"}),` +
    ` ${report.charts.length - undrawn(report).length} drawn by ECharts` +
    ` (data points ${report.charts.map((c) => c.points).join(" ")}), ${report.libs} library copies`;
}
