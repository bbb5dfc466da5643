package widgets

// SetDrawn makes Drawn return drawn (true: a front end draws the widgets;
// false: headless) until the returned function is called.
func SetDrawn(drawn bool) (restore func()) {
	v := int32(2)
	if drawn {
		v = 1
	}
	prev := drawOverride.Swap(v)
	return func() { drawOverride.Store(prev) }
}

// StartedByVoila is startedByVoila.
var StartedByVoila = startedByVoila

// PageQueryOf is pageQuery.
var PageQueryOf = pageQuery
