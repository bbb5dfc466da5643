// conclab's charts in JupyterLab 4, Notebook 7 and Voila: a renderer for the
// MIME type of a conclab chart output (charts.MIMEType in Go), JSON holding
// each chart's ECharts option, size and notes:
//
//   {"charts": [{"title": "...", "option": "{...}", "width": 900, "height": 420, "notes": ["..."]},
//               {"problem": "Cannot draw ..."}]}
//
// (the option is JSON text, so that a saved notebook keeps it on one line;
// an object is read too).
// The option is drawn by ECharts (bundled here, loaded with the first chart
// of a page) through charts/render.js, the code the chart's text/html output
// runs too: it draws once the output has a size, redraws when the panel
// resizes or a windowed cell comes back, and follows the light or dark
// theme. The renderer is safe for untrusted outputs (a notebook reopened
// from disk): the option's functions come from render.js by name, tooltips
// are drawn on the canvas, and nothing in the data becomes HTML or a link.
import { Widget } from "@lumino/widgets";
import conclabCharts from "../../../charts/render.js";
import { pageStateExtension } from "./pagestate.js";

export const MIME_TYPE = "application/vnd.conclab.echarts.v1+json";

let echartsLoad = null;
function loadECharts() {
  if (!echartsLoad) echartsLoad = import("echarts");
  return echartsLoad;
}

// optionOf parses an entry's option (JSON text; an object is taken as it is).
function optionOf(e) {
  return typeof e.option === "string" ? JSON.parse(e.option) : e.option;
}

function problemBox(text) {
  const p = document.createElement("div");
  p.className = "jp-ConclabChart-problem";
  p.setAttribute("data-conclab-problem", "1");
  p.textContent = text;
  return p;
}

class ChartOutput extends Widget {
  constructor(options) {
    super();
    this._mimeType = options.mimeType;
    this._handles = [];
    this._shape = "";
    this.addClass("jp-ConclabChart");
  }

  async renderModel(model) {
    const spec = model.data[this._mimeType];
    const entries = spec && Array.isArray(spec.charts) ? spec.charts : null;
    if (!entries) {
      this._clear();
      this.node.appendChild(problemBox(`conclab chart: the output's ${this._mimeType} has no "charts" list`));
      return;
    }
    let echarts;
    try {
      echarts = await loadECharts();
    } catch (e) {
      this._clear();
      this.node.appendChild(problemBox(`conclab chart: ECharts could not be loaded: ${e}`));
      return;
    }
    if (this.isDisposed) return;
    // A display update of the same charts (charts.Live): redraw in place.
    const shape = JSON.stringify(entries.map((e) => (e.problem ? "p" : [e.width, e.height, (e.notes || []).join("\n")])));
    if (shape === this._shape && this._handles.length > 0) {
      try {
        let i = 0;
        for (const e of entries) if (!e.problem) this._handles[i++].update(optionOf(e));
        return;
      } catch (err) {
        // Drawn afresh below, which names the chart that fails.
      }
    }
    this._clear();
    this._shape = shape;
    for (const e of entries) {
      if (e.problem) {
        this.node.appendChild(problemBox(e.problem));
        continue;
      }
      const box = document.createElement("div");
      box.className = "jp-ConclabChart-chart";
      if (e.width > 0) box.style.maxWidth = `${e.width}px`;
      const el = document.createElement("div");
      el.className = "jp-ConclabChart-canvas";
      el.style.height = `${e.height > 0 ? e.height : 420}px`;
      el.setAttribute("data-conclab-chart", "1");
      el.setAttribute("data-conclab-renderer", "mime");
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", e.title || "chart");
      box.appendChild(el);
      for (const n of e.notes || []) {
        const d = document.createElement("div");
        d.className = "jp-ConclabChart-note";
        d.textContent = `Note: ${n}`;
        box.appendChild(d);
      }
      this.node.appendChild(box);
      try {
        this._handles.push(conclabCharts.mount(echarts, el, optionOf(e), { html: false }));
      } catch (err) {
        el.setAttribute("data-conclab-error", String(err));
        box.insertBefore(problemBox(`ECharts could not draw this chart: ${err}`), el);
        console.error("conclab chart:", err);
      }
    }
  }

  _clear() {
    for (const h of this._handles) h.dispose();
    this._handles = [];
    this._shape = "";
    this.node.textContent = "";
  }

  _fit() {
    for (const h of this._handles) h.fit();
  }

  onAfterAttach(msg) {
    super.onAfterAttach(msg);
    this._fit();
  }

  onAfterShow(msg) {
    super.onAfterShow(msg);
    this._fit();
  }

  onResize(msg) {
    super.onResize(msg);
    this._fit();
  }

  dispose() {
    if (this.isDisposed) return;
    this._clear();
    super.dispose();
  }
}

export const rendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  defaultRank: 0,
  createRenderer: (options) => new ChartOutput(options),
};

export default [
  {
    id: "@conclab/jupyterlab-charts:renderer",
    rendererFactory,
    rank: 0,
    dataType: "json",
  },
  // A try-it's page state in a Voilà dashboard: pagestate.js.
  pageStateExtension,
];
