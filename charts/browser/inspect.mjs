// Shared by the browser tests (notebook6.mjs and
// jupyterlab/test/lab.mjs): Debian's chromium launched offline, and what a
// page's conclab charts look like.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

// launch starts chromium with a fresh user-data dir; every request outside
// file://, data: and loopback is refused and recorded in `blocked`. close()
// removes the profile.
export async function launch({ viewport = { width: 1100, height: 900 } } = {}) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "conclab-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: chromiumArgs,
    viewport,
  });
  const blocked = [];
  await context.route("**/*", (route) => {
    const u = new URL(route.request().url());
    if (u.protocol === "file:" || u.protocol === "data:" || u.protocol === "blob:" ||
      u.hostname === "127.0.0.1" || u.hostname === "localhost" || u.hostname === "[::1]") {
      return route.continue();
    }
    blocked.push(u.href);
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

// settle waits until every chart container on the page is ready or failed
// (the chart scripts give up after 20 s), or timeout ms.
export async function settle(page, timeout = 45000) {
  await page.waitForFunction(() => {
    const els = [...document.querySelectorAll('[data-conclab-chart="1"]')];
    return els.every((el) => el.hasAttribute("data-conclab-ready") || el.hasAttribute("data-conclab-error"));
  }, null, { timeout }).catch(() => {});
}

// chartReport describes every chart container on the page: drawn by ECharts
// (an instance on the element), with data points, with ink on its canvas.
export async function chartReport(page) {
  return page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('[data-conclab-chart="1"]')) {
      const r = { id: el.id, ready: el.hasAttribute("data-conclab-ready"), error: el.getAttribute("data-conclab-error") };
      const inst = window.echarts && window.echarts.getInstanceByDom(el);
      r.instance = !!inst;
      // Data points handed to ECharts: axes and a grid alone draw ink too.
      r.points = 0;
      if (inst) {
        const opt = inst.getOption();
        for (const s of opt.series || []) r.points += (s.data || []).length;
        r.subtext = (opt.title || []).map((t) => t.subtext || "").join(" ");
      }
      const canvas = el.querySelector("canvas");
      r.inked = 0;
      if (canvas && canvas.width > 0 && canvas.height > 0) {
        const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] > 0 && (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235)) n++;
        }
        r.inked = n / (canvas.width * canvas.height);
        r.size = [canvas.width, canvas.height];
      }
      out.push(r);
    }
    const problems = document.querySelectorAll('[data-conclab-problem="1"]').length;
    const libs = document.querySelectorAll("script[data-conclab-echarts]").length;
    return { charts: out, problems, libs, amd: typeof window.define === "function" && !!window.define.amd };
  });
}

// undrawn lists the charts of a report that ECharts did not draw with data.
export function undrawn(report) {
  return report.charts.filter((c) => !c.ready || !c.instance || c.error || !(c.inked > 0.005) || !(c.points > 0));
}

export function describe(report) {
  return `${report.charts.length} chart containers, ${report.charts.length - undrawn(report).length} drawn by ECharts` +
    ` (data points ${report.charts.map((c) => c.points).join(" ")}), ${report.libs} library copies`;
}
