// Package notebook reads, writes, executes and exports Jupyter notebooks
// (nbformat 4) written in Go, without Python or Jupyter.
//
// Read and ReadFile decode a notebook; Notebook.Write and WriteFile encode it
// as nbformat 4.5 the way Jupyter does, so an unchanged notebook round-trips
// byte for byte. Execute runs a notebook's code cells in order in one
// in-process interpreter session (package kernel/eval, the same interpreter
// and display package the conclab kernel uses) and records their outputs:
// stdout and stderr as stream outputs, display.Display / Update / Clear as
// display_data outputs (updated in place by display id, or cleared), a cell's
// last value as execute_result, and a failure as an error output. WriteHTML
// exports a self-contained HTML page: Markdown rendered with goldmark (GFM),
// code highlighted with chroma, outputs embedded.
//
// The `conclab run` command is a thin layer over this package.
package notebook
