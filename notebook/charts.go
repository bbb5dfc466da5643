package notebook

import "github.com/conclab/conclab/charts"

// Charts: a notebook's first chart output carries the ECharts library (the
// runner calls charts.ResetPage before each notebook, see Execute). As a
// safety net — outputs written by another kernel process, or the carrying
// output cleared — an exported page whose outputs have charts but no library
// gets it once in its head.
func init() { RegisterHeadAsset(echartsAsset) }

func echartsAsset(outputs string) (string, error) {
	if !charts.NeedsLibrary(outputs) {
		return "", nil
	}
	s, err := charts.LibraryScript()
	if err != nil {
		// The charts keep their static SVG and say why; the export goes on.
		return "", nil
	}
	return s, nil
}
