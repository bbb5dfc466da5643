// A try-it's page state in a Voilà dashboard (lab.Try in Go, lab/address.go):
// the renderer of application/vnd.conclab.page-state.v1+json,
//
//   {"knobs": [{"key": "tokens", "label": "tokens", "value": "6", "default": "2"}, ...],
//    "notes": ["ignored tokens=99 from the page's address ..."], "reserved": ["token", ...]}
//
// Voilà starts a fresh kernel for every visit, with the visit's query
// string; the kernel sets the controls from it. This renderer
//   - puts the controls' values into the page's address as they change
//     (history.replaceState: no reload, no history entry), so a reload, a
//     bookmark or a copied link brings them back; a value equal to the
//     lesson's is left out;
//   - shows a line saying so, with a link back to the lesson's values, and
//     the kernel's notes on what of the address it ignored; keys of the
//     address that no try-it on the page has are named too (only the page
//     sees every try-it);
//   - watches the page's kernel (Voilà's app, window.jupyterapp, holds its
//     widget manager and so the kernel connection) and, when the kernel
//     stops — killed and restarted empty by the server, shut down after
//     being left idle, the server gone — shows one banner on top of the
//     page saying so and that reloading starts a fresh one. No dialog.
//     (A kernel shut down while the page is connected leaves the page's
//     socket open and silent, so the page also asks the server every 5 s
//     whether its kernel is still listed.)
// Outside Voilà (JupyterLab, Notebook 7: the kernel emits no page state
// there) it draws the line only and leaves the address alone.
import { Widget } from "@lumino/widgets";

export const PAGE_STATE_MIME = "application/vnd.conclab.page-state.v1+json";

const inVoila = () => typeof document !== "undefined" && document.body && document.body.dataset.voila === "voila";

// Every try-it's knob keys on this page, for the unknown-key note.
const claimed = new Set();
const reservedKeys = new Set();
let unknownTimer = 0;
const unknownListeners = new Set(); // PageStateOutputs

function checkUnknown() {
  clearTimeout(unknownTimer);
  unknownTimer = setTimeout(() => {
    const params = new URLSearchParams(window.location.search);
    const unknown = [...new Set(params.keys())].filter((k) => !claimed.has(k) && !reservedKeys.has(k));
    // Said once, by the first try-it on the page.
    const shown = [...unknownListeners].filter((w) => w.node.isConnected)
      .sort((a, b) => (a.node.compareDocumentPosition(b.node) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    shown.forEach((w, i) => w._onUnknown(i === 0 ? unknown : []));
  }, 300);
}

// The address with knobs set to values (a value equal to the lesson's
// removes its key).
function addressWith(knobs, values) {
  const u = new URL(window.location.href);
  for (const k of knobs) {
    const v = values[k.key];
    if (v === undefined || v === k.default) u.searchParams.delete(k.key);
    else u.searchParams.set(k.key, v);
  }
  return u;
}

class PageStateOutput extends Widget {
  constructor(options) {
    super();
    this._mimeType = options.mimeType;
    this.addClass("jp-ConclabPageState");
    this._line = document.createElement("div");
    this._line.className = "jp-ConclabPageState-line";
    this._notes = document.createElement("div");
    this._notes.className = "jp-ConclabPageState-notes";
    this._unknown = document.createElement("div");
    this._unknown.className = "jp-ConclabPageState-notes";
    this.node.append(this._line, this._notes, this._unknown);
    this._onUnknown = (keys) => {
      this._unknown.textContent = keys.length
        ? `Ignored in the page's address: ${keys.map((k) => `${k}=`).join(", ")} — no control on this page is called ${keys.length > 1 ? "so" : "that"}.`
        : "";
      this._unknown.setAttribute("data-conclab-unknown", keys.join(","));
    };
  }

  async renderModel(model) {
    const st = model.data[this._mimeType] || {};
    const knobs = Array.isArray(st.knobs) ? st.knobs : [];
    const notes = Array.isArray(st.notes) ? st.notes : [];
    this._notes.textContent = "";
    for (const n of notes) {
      const d = document.createElement("div");
      d.className = "jp-ConclabPageState-note";
      d.setAttribute("data-conclab-note", "1");
      d.textContent = `Note: ${n}`;
      this._notes.appendChild(d);
    }
    const values = Object.fromEntries(knobs.map((k) => [k.key, String(k.value)]));
    const changed = knobs.filter((k) => String(k.value) !== String(k.default));
    this._line.textContent = "";
    if (!inVoila()) {
      this._line.textContent = `values: ${knobs.map((k) => `${k.label} ${k.value}`).join(", ")}`;
      return;
    }
    for (const k of knobs) claimed.add(k.key);
    for (const r of st.reserved || []) reservedKeys.add(r);
    unknownListeners.add(this);
    const here = addressWith(knobs, values);
    if (here.href !== window.location.href) window.history.replaceState(window.history.state, "", here.href);
    checkUnknown();
    watchKernel();
    const text = document.createElement("span");
    text.textContent = changed.length
      ? `Your values (${changed.map((k) => `${k.label} ${k.value}`).join(", ")}) are kept in this page's address: reload or bookmark it to come back to them. `
      : "These are the lesson's values. The values you choose are kept in this page's address: reload or bookmark it to come back to them. ";
    this._line.appendChild(text);
    if (changed.length) {
      const a = document.createElement("a");
      a.className = "jp-ConclabPageState-reset";
      a.textContent = "Back to the lesson's values";
      a.href = addressWith(knobs, Object.fromEntries(knobs.map((k) => [k.key, k.default]))).href;
      a.title = "Reloads the page with the lesson's values (a fresh kernel runs the lesson again)";
      this._line.appendChild(a);
    }
  }

  dispose() {
    if (this.isDisposed) return;
    unknownListeners.delete(this);
    super.dispose();
  }
}

// The kernel watcher: one per page.
let watching = false;
let noticed = false;

function notice(why) {
  if (noticed) return;
  noticed = true;
  const b = document.createElement("div");
  b.className = "jp-ConclabKernelNotice";
  b.setAttribute("role", "alert");
  b.setAttribute("data-conclab-kernel-notice", why);
  const msg = document.createElement("span");
  msg.textContent = `This page's kernel has stopped (${why}): the controls do nothing now. ` +
    "Reload the page to start a fresh one — the values you chose are kept in the page's address. ";
  const btn = document.createElement("button");
  btn.type = "button";
  btn.textContent = "Reload";
  btn.addEventListener("click", () => window.location.reload());
  b.append(msg, btn);
  document.body.prepend(b);
}

function watchKernel() {
  if (watching) return;
  watching = true;
  let tries = 0;
  const find = () => {
    const kernel = window.jupyterapp && window.jupyterapp.widgetManager && window.jupyterapp.widgetManager.kernel;
    if (!kernel) {
      if (++tries < 600) setTimeout(find, 100); // Voilà's app starts after the outputs render
      return;
    }
    let baseUrl = "/";
    try {
      baseUrl = JSON.parse(document.getElementById("jupyter-config-data").textContent).baseUrl || "/";
    } catch { /* Voilà's page has it; "/" otherwise */ }
    // restarting: the server restarted a dead kernel (an empty one);
    // autorestarting: the kernel's own restarter did; dead: it could not.
    kernel.statusChanged.connect((_, s) => {
      if (kernel.isDisposed) return; // the page is unloading (Voilà disposes it)
      if (s === "restarting" || s === "autorestarting") notice("it died and the server started an empty one in its place");
      else if (s === "dead") notice("it died");
    });
    // A dropped connection is retried by the kernel connection; the
    // kernel is gone when the server no longer lists it (culled, shut
    // down) or the server does not answer. A kernel shut down while the
    // page is connected leaves the page's socket open and silent (the
    // server drops what it sends), so the page also asks the server every
    // few seconds whether its kernel is still there.
    let checking = false;
    const check = async () => {
      if (checking || noticed || kernel.isDisposed) return;
      checking = true;
      try {
        const r = await fetch(`${baseUrl}api/kernels/${encodeURIComponent(kernel.id)}`, { credentials: "same-origin" });
        if (r.status === 404) notice("it was shut down: the server stops a kernel left idle with no page connected");
        else if (r.status >= 500) notice(`the server answers ${r.status}`);
      } catch (e) {
        if (!kernel.isDisposed) notice("the server does not answer");
      } finally {
        checking = false;
      }
    };
    const every = setInterval(() => {
      if (noticed || kernel.isDisposed) clearInterval(every);
      else check();
    }, 5000);
    kernel.connectionStatusChanged.connect((_, s) => {
      if (kernel.isDisposed) return;
      if (s === "disconnected") notice("the connection to it was lost");
      else if (s === "connecting") check();
    });
  };
  find();
}

export const pageStateRendererFactory = {
  safe: true,
  mimeTypes: [PAGE_STATE_MIME],
  defaultRank: 0,
  createRenderer: (options) => new PageStateOutput(options),
};

export const pageStateExtension = {
  id: "@conclab/jupyterlab-charts:page-state",
  rendererFactory: pageStateRendererFactory,
  rank: 0,
  dataType: "json",
};
