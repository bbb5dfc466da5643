// Package charts draws the lab's result frames (bench/frame) as ECharts
// charts, built with go-echarts, that render in JupyterLab 4, Notebook 7,
// Voilà, nbconvert's HTML export, conclab's own HTML export and standalone
// reports — offline.
//
// # Views
//
// Each view takes a frame following the column convention of bench/frame
// and returns a *Chart:
//
//	charts.Throughput(summary)              // rps bar per strategy
//	charts.Latency(summary).LogY()          // avg/p50/p95/p99 grouped, one bar per strategy
//	charts.OverTime(series, "p95_ms")       // a metric against t_s, a line per strategy
//	charts.Timeline(series)                 // rps and tail latency over time (a *Group)
//	charts.CDF(distribution).LogX()         // percentile against latency_ms
//	charts.Sweep(sweep, "concurrency", "rps")
//	charts.SourceVsMeasured(source, summary, "rps")
//	charts.Breakdown(summary)               // queue_wait_ms, gil_wait_ms, service_ms stacked
//
// A row's series is named by its strategy column, joined with any other label
// column whose value varies (e.g. "sync · sleep"). Each name has one colour
// in every chart of the process (ColorOf; SetColor to choose).
//
// Bad input never gives a blank box: a nil or empty frame, missing columns,
// or no finite values make a chart that says what is wrong (and Err returns
// it); NaN and infinite values, and values ≤ 0 on a log axis, are left out
// with a note under the chart.
//
// # Rendering
//
// A Chart implements display's Render() and HTML(). Its bundle carries:
//
//   - MIMEType, the chart's own output: JSON holding its ECharts option
//     and size, which conclab's JupyterLab extension (package jupyterlab,
//     installed by `conclab install`) draws in JupyterLab 4, Notebook 7 and
//     Voilà — also in untrusted (reopened) notebooks, cells scrolled out of
//     view and back, resized panels and the dark theme;
//   - text/html, for nbconvert, `conclab run --html`, reports and front
//     ends without the extension: a container holding a static SVG of the
//     same data, replaced by the ECharts chart when its script runs (where
//     scripts don't run, the SVG stays);
//   - image/svg+xml and text/plain.
//
// Both renderers draw through render.js (embedded here; the extension
// imports it): an option is JSON, the functions it needs are named
// ("conclab:number") and come from render.js, never from the output.
// Element ids are unique across renders and processes, so one chart may be
// shown twice and pages may mix outputs of several kernels. Live updates an
// output in place through its display id while a benchmark runs.
//
// # The ECharts library: once per page
//
// ECharts (the npm package echarts 5.x, the major version go-echarts v2.7.2
// targets) is embedded in the binary by scripts/setup.d/40-charts.sh; a build
// without it still compiles and looks for $CONCLAB_ECHARTS_JS, then
// node_modules/echarts/dist/echarts.min.js above the working directory, and
// otherwise shows the static SVG with a message naming the fix. Nothing is
// fetched from the network unless UseCDN is called.
//
// The text/html outputs inline the library once per page, not once per
// chart:
//
//   - In a kernel, a page is a front-end session: the execute_request
//     header's session (cell.Session), which Jupyter front ends draw afresh
//     for every page load, tab and client. The first chart a session renders
//     carries the library, so a chart run after a reload, in a second tab or
//     in another front end on the same kernel draws with no extra step. Later
//     charts wait for window.echarts, so output order does not matter.
//     Re-renders of a chart that carried it, and every version of a Live
//     output that started with it, keep carrying it, so a saved notebook and
//     its exports always have it. docs/charts.md says why this design.
//   - The notebook runner, when it executes several notebooks in one process,
//     calls ResetPage before each, so each notebook's first chart output
//     carries the library. Its HTML export then needs nothing more; as a
//     safety net, an exporter can call NeedsLibrary(pageHTML) and, when true,
//     put LibraryScript() in the page's head.
//   - Reports (NewReport(title).Add(...).WriteHTML(w)) put it once in the head
//     and render every chart without it.
//
// LibraryScript's element works on pages with require.js (nbconvert 7's
// templates load it): ECharts' UMD wrapper would otherwise call an anonymous
// define() and never set window.echarts, so the inlined bundle runs with
// define, exports and module shadowed by undefined parameters, which takes
// the wrapper's browser-global branch.
package charts
