package notebook

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// ansiColors are the 16 standard terminal colours (xterm's defaults).
var ansiColors = [16]string{
	"#000000", "#cd3131", "#0d8a0d", "#b58900", "#2472c8", "#bc3fbc", "#11a8cd", "#a0a0a0",
	"#666666", "#f14c4c", "#23d18b", "#d5c000", "#3b8eea", "#d670d6", "#29b8db", "#e5e5e5",
}

// color256 returns the CSS colour of xterm 256-colour index n.
func color256(n int) string {
	switch {
	case n < 16:
		return ansiColors[n]
	case n < 232:
		n -= 16
		lv := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", lv(n/36), lv(n/6%6), lv(n%6))
	default:
		g := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// ansiHTML escapes s for HTML and converts ANSI SGR escape sequences (colours,
// bold, italic, underline) into styled spans; other escape sequences are
// dropped.
func ansiHTML(s string) string {
	var b strings.Builder
	var fg, bg string
	var bold, italic, under bool
	open := false
	closeSpan := func() {
		if open {
			b.WriteString("</span>")
			open = false
		}
	}
	openSpan := func() {
		var st []string
		if fg != "" {
			st = append(st, "color:"+fg)
		}
		if bg != "" {
			st = append(st, "background-color:"+bg)
		}
		if bold {
			st = append(st, "font-weight:bold")
		}
		if italic {
			st = append(st, "font-style:italic")
		}
		if under {
			st = append(st, "text-decoration:underline")
		}
		if len(st) > 0 {
			b.WriteString(`<span style="` + strings.Join(st, ";") + `">`)
			open = true
		}
	}
	for len(s) > 0 {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			b.WriteString(html.EscapeString(s))
			break
		}
		b.WriteString(html.EscapeString(s[:i]))
		s = s[i+1:]
		if len(s) == 0 || s[0] != '[' {
			// Not a CSI sequence: drop the escape and one following byte.
			if len(s) > 0 {
				s = s[1:]
			}
			continue
		}
		// CSI: parameters and intermediates up to a final byte 0x40-0x7e.
		j := 1
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		if j >= len(s) {
			break
		}
		params, final := s[1:j], s[j]
		s = s[j+1:]
		if final != 'm' {
			continue
		}
		codes := strings.Split(params, ";")
		for k := 0; k < len(codes); k++ {
			c, err := strconv.Atoi(codes[k])
			if err != nil {
				c = 0 // "" means 0 (reset)
			}
			switch {
			case c == 0:
				fg, bg, bold, italic, under = "", "", false, false, false
			case c == 1:
				bold = true
			case c == 3:
				italic = true
			case c == 4:
				under = true
			case c == 22:
				bold = false
			case c == 23:
				italic = false
			case c == 24:
				under = false
			case c >= 30 && c <= 37:
				fg = ansiColors[c-30]
			case c >= 90 && c <= 97:
				fg = ansiColors[c-90+8]
			case c == 39:
				fg = ""
			case c >= 40 && c <= 47:
				bg = ansiColors[c-40]
			case c >= 100 && c <= 107:
				bg = ansiColors[c-100+8]
			case c == 49:
				bg = ""
			case c == 38 || c == 48:
				var col string
				if k+2 < len(codes) && codes[k+1] == "5" {
					if n, err := strconv.Atoi(codes[k+2]); err == nil && n >= 0 && n < 256 {
						col = color256(n)
					}
					k += 2
				} else if k+4 < len(codes) && codes[k+1] == "2" {
					r, _ := strconv.Atoi(codes[k+2])
					g, _ := strconv.Atoi(codes[k+3])
					bl, _ := strconv.Atoi(codes[k+4])
					col = fmt.Sprintf("#%02x%02x%02x", r&255, g&255, bl&255)
					k += 4
				}
				if c == 38 {
					fg = col
				} else {
					bg = col
				}
			}
		}
		closeSpan()
		openSpan()
	}
	closeSpan()
	return b.String()
}
