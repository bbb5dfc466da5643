// The JavaScript both of conclab's chart renderers share: the script of a
// chart's text/html output (charts/html.go inlines this file into it) and the
// JupyterLab 4 / Notebook 7 / Voila extension (jupyterlab/extension imports
// it). A chart's option is JSON; the functions it needs are named by strings
// "conclab:NAME" and come from here, never from the output, so a chart from
// an untrusted notebook can only draw. mount() draws an option into an
// element once the element has a size, redraws it when the element's size
// changes (windowed notebooks detach and re-attach cells; panels resize) and
// when the page switches between a light and a dark theme.
(function (root, factory) {
  if (typeof module === "object" && module && module.exports) module.exports = factory();
  else if (!root.conclabCharts || root.conclabCharts.version < 1) root.conclabCharts = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  // number prints a value compactly: integers from 100 up, 3 significant
  // digits below 1, at most 2 decimals between.
  function number(v) {
    if (v === null || v === undefined || v === "-" || isNaN(v)) return "-";
    var a = Math.abs(v);
    return a >= 100 ? Math.round(v).toLocaleString() : String(a >= 1 ? +(+v).toFixed(2) : +(+v).toPrecision(3));
  }

  function escapeHTML(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // hooks are the functions an option names: html says whether tooltips are
  // HTML (the text/html output) or drawn on the canvas (the extension);
  // tables is the option's "conclab" field (labels: an interval's tooltip
  // line, by index).
  function hooks(echarts, html, tables) {
    var labels = (tables && tables.labels) || [];
    var text = html ? escapeHTML : String;
    var br = html ? "<br>" : "\n";
    return {
      // tooltip.valueFormatter
      number: number,
      // a bar's value on top of it
      label: function (p) {
        var v = p.value;
        return v === null || v === undefined || v === "-" || isNaN(v) ? "" : number(v);
      },
      // custom series renderItem: one interval [row, start, end, request,
      // label, band] as a rectangle on its row (band 1-3: a third of it),
      // clipped to the plot
      intervalBar: function (params, api) {
        var row = api.value(0), band = api.value(5);
        var s = api.coord([api.value(1), row]), e = api.coord([api.value(2), row]);
        var h = api.size([0, 1])[1] * 0.8, y = s[1] - h / 2;
        if (band > 0) { h = h / 3; y = y + (band - 1) * h; }
        var cs = params.coordSys;
        var r = echarts.graphic.clipRectByRect(
          { x: s[0], y: y, width: Math.max(e[0] - s[0], 1), height: Math.max(h, 1) },
          { x: cs.x, y: cs.y, width: cs.width, height: cs.height });
        return r && { type: "rect", transition: [], shape: r, style: api.style() };
      },
      // an interval's tooltip: request, phase, where, how long
      intervalTooltip: function (p) {
        var v = p.value, d = v[2] - v[1];
        var line = typeof v[4] === "number" ? labels[v[4]] : v[4];
        return (v[3] > 0 ? "request " + v[3] + " · " : "") + text(p.seriesName) + br + text(line === undefined ? "" : line) + br +
          number(d) + " ms (" + number(v[1]) + " – " + number(v[2]) + " ms)";
      },
    };
  }

  var hookPrefix = "conclab:";

  // resolve replaces "conclab:NAME" strings by the named functions; an
  // unknown name is an error (an option from a newer conclab).
  function resolve(node, fns) {
    if (Array.isArray(node)) {
      for (var i = 0; i < node.length; i++) node[i] = resolve(node[i], fns);
      return node;
    }
    if (typeof node === "string" && node.lastIndexOf(hookPrefix, 0) === 0) {
      var f = fns[node.slice(hookPrefix.length)];
      if (!f) throw new Error("unknown chart function " + JSON.stringify(node));
      return f;
    }
    if (node && typeof node === "object") {
      for (var k in node) if (Object.prototype.hasOwnProperty.call(node, k)) node[k] = resolve(node[k], fns);
    }
    return node;
  }

  // Outside a trusted page nothing in an option may become HTML or a link:
  // tooltips are drawn on the canvas, links and the toolbox (its data view
  // is HTML) are dropped.
  function defuse(node) {
    if (Array.isArray(node)) { node.forEach(defuse); return; }
    if (!node || typeof node !== "object") return;
    delete node.link; delete node.sublink; delete node.toolbox; delete node.extraCssText;
    if (node.tooltip && typeof node.tooltip === "object") {
      [].concat(node.tooltip).forEach(function (t) { if (t && typeof t === "object") t.renderMode = "richText"; });
    }
    for (var k in node) if (Object.prototype.hasOwnProperty.call(node, k)) defuse(node[k]);
  }

  // isDark: the page's theme is dark (JupyterLab, Notebook 7 and Voila mark
  // <body data-jp-theme-light="false">; so does nbconvert's dark template).
  function isDark() {
    var b = typeof document !== "undefined" && document.body;
    return !!b && b.getAttribute("data-jp-theme-light") === "false";
  }

  // Colours on a dark background: a series colour with less than 3:1
  // contrast against it (the palette's navy and dark greys) is mixed with
  // white until it has 3:1.
  function luminance(rgb) {
    var c = rgb.map(function (x) { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  var darkBackground = luminance([0x11, 0x11, 0x11]);
  function contrast(rgb) { return (luminance(rgb) + 0.05) / (darkBackground + 0.05); }
  function brighten(color) {
    var m = /^#([0-9a-f]{6})$/i.exec(color);
    if (!m) return color;
    var n = parseInt(m[1], 16), rgb = [n >> 16, (n >> 8) & 255, n & 255];
    for (var t = 0; t < 1 && contrast(rgb) < 3; t += 0.05) {
      rgb = rgb.map(function (x) { return Math.round(x + (255 - x) * 0.1); });
    }
    return "#" + rgb.map(function (x) { return (x < 16 ? "0" : "") + x.toString(16); }).join("");
  }
  function brightenColors(node) {
    if (Array.isArray(node)) { node.forEach(brightenColors); return; }
    if (!node || typeof node !== "object") return;
    for (var k in node) {
      if (!Object.prototype.hasOwnProperty.call(node, k)) continue;
      if (k === "color" && typeof node[k] === "string") node[k] = brighten(node[k]);
      else brightenColors(node[k]);
    }
  }

  // prepare returns the option ECharts draws: a copy of the chart's option
  // with its functions, in the theme's colours; opts.html: tooltips may be
  // HTML (the page runs the chart's own script, so it is trusted).
  function prepare(echarts, option, opts) {
    var o = JSON.parse(JSON.stringify(option));
    var tables = o.conclab;
    delete o.conclab;
    if (!opts.html) defuse(o);
    resolve(o, hooks(echarts, !!opts.html, tables));
    o.backgroundColor = "transparent";
    if (opts.dark) brightenColors(o.series);
    return o;
  }

  var mounted = [];
  var themeWatch = null;
  function watchTheme() {
    if (themeWatch || typeof MutationObserver === "undefined" || !document.body) return;
    themeWatch = new MutationObserver(function () {
      var dark = isDark();
      mounted.forEach(function (m) { m.theme(dark); });
    });
    themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  }

  // count of data points in an option's series (what the tests read).
  function points(option) {
    var n = 0;
    [].concat(option.series || []).forEach(function (s) { n += (s && s.data && s.data.length) || 0; });
    return n;
  }

  // mount draws option into el with echarts and keeps it drawn; it returns
  // {update(option), dispose()}. el must have a height (the chart's); its
  // width follows its container. Until el has a size (a cell not yet on
  // screen, a hidden panel) nothing is drawn; a size of 0 later (a cell
  // detached by windowing) keeps the drawing for when it comes back.
  function mount(echarts, el, option, opts) {
    opts = opts || {};
    var inst = null, dark = isDark(), w = 0, h = 0, disposed = false;
    function draw() {
      if (disposed) return;
      var cw = el.clientWidth, ch = el.clientHeight;
      if (cw === 0 || ch === 0) return;
      if (!inst) {
        inst = echarts.init(el, dark ? "dark" : null, { renderer: "canvas" });
        inst.setOption(prepare(echarts, option, { html: opts.html, dark: dark }));
        el.conclabChart = inst;
        el.setAttribute("data-conclab-theme", dark ? "dark" : "light");
        el.setAttribute("data-conclab-points", String(points(option)));
        el.setAttribute("data-conclab-ready", "1");
      } else if (cw !== w || ch !== h) {
        inst.resize();
      }
      w = cw; h = ch;
    }
    var ro = null;
    if (typeof ResizeObserver !== "undefined") {
      ro = new ResizeObserver(draw);
      ro.observe(el);
    } else if (typeof window !== "undefined") {
      window.addEventListener("resize", draw);
    }
    var handle = {
      el: el,
      theme: function (d) {
        if (d === dark || disposed) return;
        dark = d;
        if (inst) { inst.dispose(); inst = null; }
        draw();
      },
      update: function (o) {
        option = o;
        if (inst) {
          inst.setOption(prepare(echarts, option, { html: opts.html, dark: dark }), true);
          el.setAttribute("data-conclab-points", String(points(option)));
        }
        draw();
      },
      // redraw after the element may have changed size without a resize
      // event reaching it (Lumino's after-attach and after-show).
      fit: draw,
      dispose: function () {
        disposed = true;
        if (ro) ro.disconnect();
        var i = mounted.indexOf(handle);
        if (i >= 0) mounted.splice(i, 1);
        if (inst) inst.dispose();
        inst = null;
      },
    };
    mounted.push(handle);
    watchTheme();
    draw();
    return handle;
  }

  return { version: 1, mount: mount, prepare: prepare, isDark: isDark, number: number, points: points, hookPrefix: hookPrefix };
});
