package charts

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// SVG returns a static drawing of the same data as the ECharts chart (title,
// legend, axes with units, bars or lines in the same colours), for viewers
// that run no scripts: GitHub's notebook view, untrusted JupyterLab outputs,
// and the fallback inside the chart's own HTML until ECharts draws.
func (c *Chart) SVG() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ss, notes, problem := c.checkPoints()
	if problem != "" {
		return problemSVG(c.title, problem)
	}
	return c.svgLocked(ss, notes)
}

func problemSVG(title, msg string) string {
	if title == "" {
		title = "chart"
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="900" height="80" viewBox="0 0 900 80" font-family="sans-serif"><rect x="0.5" y="0.5" width="899" height="79" fill="#fff6f6" stroke="#d9a5a5"/><text x="12" y="30" font-size="14" fill="#8a1f1f">Cannot draw %s:</text><text x="12" y="56" font-size="13" fill="#8a1f1f">%s</text></svg>`,
		html.EscapeString(fmt.Sprintf("%q", title)), html.EscapeString(msg))
}

// logFloor returns the decade a log axis starts at for a smallest value v:
// the decade at or below v, one lower when v is close to it, so the smallest
// bar still shows its height.
func logFloor(v float64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	if v/d < 2 {
		d /= 10
	}
	return d
}

// scale maps data values to pixels on one axis.
type scale struct {
	lo, hi   float64 // data range
	p0, p1   float64 // pixel range
	log      bool
	ticks    []float64
	category bool
}

func (s scale) at(v float64) float64 {
	if s.log {
		v, lo, hi := math.Log10(v), math.Log10(s.lo), math.Log10(s.hi)
		return s.p0 + (v-lo)/(hi-lo)*(s.p1-s.p0)
	}
	return s.p0 + (v-s.lo)/(s.hi-s.lo)*(s.p1-s.p0)
}

// niceStep returns a round step giving about n intervals over span.
func niceStep(span float64, n int) float64 {
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// newScale makes an axis over [lo, hi] with round ticks.
func newScale(lo, hi float64, log bool, p0, p1 float64) scale {
	s := scale{p0: p0, p1: p1, log: log}
	if log {
		s.lo = logFloor(lo)
		s.hi = math.Pow(10, math.Ceil(math.Log10(hi)))
		if s.hi <= s.lo {
			s.hi = s.lo * 10
		}
		for v := s.lo; v <= s.hi*1.0001; v *= 10 {
			s.ticks = append(s.ticks, v)
		}
		return s
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)*0.1, hi+math.Abs(hi)*0.1
		}
	}
	step := niceStep(hi-lo, 5)
	s.lo = math.Floor(lo/step) * step
	s.hi = math.Ceil(hi/step) * step
	for v := s.lo; v <= s.hi+step/2; v += step {
		s.ticks = append(s.ticks, v)
	}
	return s
}

// tickLabel formats an axis label.
func tickLabel(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e6:
		return trimZeros(fmt.Sprintf("%.2f", v/1e6)) + "M"
	case a >= 1e4:
		return trimZeros(fmt.Sprintf("%.1f", v/1e3)) + "k"
	case a >= 1:
		return trimZeros(fmt.Sprintf("%.2f", v))
	default:
		return trimZeros(fmt.Sprintf("%.3g", v))
	}
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "e") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }

// textWidth estimates the width of text at a font size (sans-serif).
func textWidth(s string, size float64) float64 { return float64(len([]rune(s))) * size * 0.58 }

// svgLocked draws the chart; c.mu is held and ss are drawable.
func (c *Chart) svgLocked(ss []series, notes []string) string {
	W, H := float64(c.width), float64(c.height)
	legendTop, gridTop := c.layout(len(ss))
	x0, x1 := 70.0, W-40
	y0, y1 := float64(gridTop), H-55
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`, W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="#fff"/>`, W, H)
	fmt.Fprintf(&b, `<text x="%g" y="26" font-size="16" font-weight="bold" text-anchor="middle" fill="#333">%s</text>`, W/2, esc(c.title))
	if c.subtitle != "" {
		fmt.Fprintf(&b, `<text x="%g" y="46" text-anchor="middle" fill="#888">%s</text>`, W/2, esc(c.subtitle))
	}
	if len(ss) > 1 {
		total := 0.0
		for _, s := range ss {
			total += 25 + textWidth(s.name, 12) + 10
		}
		x := math.Max(10, (W-total)/2)
		for _, s := range ss {
			op := s.opacity
			if op == 0 {
				op = 1
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="18" height="11" rx="2" fill="%s" fill-opacity="%g"/>`, x, legendTop+2, esc(s.color), op)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#333">%s</text>`, x+23, legendTop+12, esc(s.name))
			x += 25 + textWidth(s.name, 12) + 10
		}
	}

	// Value range.
	lo, hi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if c.kind == barKind {
		stacks := map[string][]float64{}
		for _, s := range ss {
			if s.stack == "" {
				for _, y := range s.ys {
					see(y)
				}
				continue
			}
			acc := stacks[s.stack]
			if acc == nil {
				acc = make([]float64, len(c.categories))
			}
			for i, y := range s.ys {
				if i < len(acc) && !math.IsNaN(y) {
					acc[i] += y
				}
			}
			stacks[s.stack] = acc
		}
		for _, acc := range stacks {
			for _, v := range acc {
				see(v)
			}
		}
		if !c.yLog {
			see(0)
		}
	} else {
		for _, s := range ss {
			for _, y := range s.ys {
				see(y)
			}
		}
		if !c.yLog && lo > 0 && lo < hi*0.5 {
			see(0)
		}
	}
	ys := newScale(lo, hi, c.yLog, y1, y0)

	// Grid lines and y labels.
	for _, t := range ys.ticks {
		y := ys.at(t)
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#e6e6e6"/>`, x0, y, x1, y)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end" fill="#666">%s</text>`, x0-6, y+4, tickLabel(t))
	}
	fmt.Fprintf(&b, `<text transform="translate(16 %.1f) rotate(-90)" text-anchor="middle" fill="#555">%s</text>`, (y0+y1)/2, esc(c.yName))
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#888"/>`, x0, y1, x1, y1)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle" fill="#555">%s</text>`, (x0+x1)/2, H-12, esc(c.xName))

	if c.kind == barKind {
		n := len(c.categories)
		band := (x1 - x0) / float64(max(n, 1))
		// Slots: each unstacked series, plus one per stack.
		slot := map[string]int{}
		nslots := 0
		for _, s := range ss {
			key := "series:" + s.name
			if s.stack != "" {
				key = "stack:" + s.stack
			}
			if _, ok := slot[key]; !ok {
				slot[key] = nslots
				nslots++
			}
		}
		barW := band * 0.75 / float64(max(nslots, 1))
		base := map[string][]float64{}
		for _, s := range ss {
			key := "series:" + s.name
			if s.stack != "" {
				key = "stack:" + s.stack
			}
			if base[key] == nil {
				base[key] = make([]float64, n)
			}
			op := s.opacity
			if op == 0 {
				op = 1
			}
			for i, y := range s.ys {
				if i >= n || math.IsNaN(y) {
					continue
				}
				from := base[key][i]
				to := from + y
				if s.stack == "" {
					from, to = 0, y
				}
				base[key][i] = to
				yFrom := y1
				if c.yLog {
					if s.stack != "" && from > 0 {
						yFrom = ys.at(from)
					}
				} else {
					yFrom = ys.at(from)
				}
				yTo := ys.at(to)
				color := s.color
				if i < len(s.itemColors) {
					color = s.itemColors[i]
				}
				x := x0 + band*float64(i) + band*0.125 + barW*float64(slot[key])
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="%g"><title>%s %s: %s</title></rect>`,
					x, math.Min(yFrom, yTo), math.Max(barW-1, 1), math.Abs(yFrom-yTo), esc(color), op, esc(s.name), esc(c.categories[i]), tickLabel(y))
				if len(ss) == 1 && len(s.itemColors) > 0 {
					fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#444">%s</text>`, x+barW/2, math.Min(yFrom, yTo)-5, tickLabel(y))
				}
			}
		}
		rotate := n > 6
		for i, cat := range c.categories {
			x := x0 + band*(float64(i)+0.5)
			if rotate {
				fmt.Fprintf(&b, `<text transform="translate(%.1f %g) rotate(-30)" text-anchor="end" fill="#444">%s</text>`, x, y1+14, esc(cat))
			} else {
				fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle" fill="#444">%s</text>`, x, y1+16, esc(cat))
			}
		}
	} else {
		xlo, xhi := math.Inf(1), math.Inf(-1)
		for _, s := range ss {
			for i, y := range s.ys {
				if !math.IsNaN(y) && i < len(s.xs) {
					xlo, xhi = math.Min(xlo, s.xs[i]), math.Max(xhi, s.xs[i])
				}
			}
		}
		xs := newScale(xlo, xhi, c.xLog, x0, x1)
		for _, t := range xs.ticks {
			x := xs.at(t)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#888"/>`, x, y1, x, y1+4)
			fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle" fill="#444">%s</text>`, x, y1+17, tickLabel(t))
		}
		for _, s := range ss {
			var pts []string
			for i, y := range s.ys {
				if math.IsNaN(y) || i >= len(s.xs) {
					continue
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs.at(s.xs[i]), ys.at(y)))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"><title>%s</title></polyline>`, strings.Join(pts, " "), esc(s.color), esc(s.name))
			if len(pts) <= 30 {
				for _, p := range pts {
					xy := strings.SplitN(p, ",", 2)
					fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`, xy[0], xy[1], esc(s.color))
				}
			}
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}
