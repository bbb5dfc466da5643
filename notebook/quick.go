package notebook

import (
	"encoding/json"
	"fmt"
	"sort"
)

// QuickKey is where a notebook keeps its quick run's parameter values:
// metadata {"conclab": {"quick": {"vus": "4", "duration": "2s"}}}, each a
// text value exactly as on `conclab run -p NAME VALUE`. `conclab run
// --quick` applies them (before any -p, so an explicit -p wins); the CI
// suites and papermill runs read the same entry.
const QuickKey = "quick"

// QuickParameters returns the notebook's quick parameters (metadata
// conclab.quick), sorted by name; none when the notebook has no such
// entry. A conclab or quick entry that is not an object, or a value that is
// not text, is an error naming it.
func (nb *Notebook) QuickParameters() ([]Parameter, error) {
	raw, ok := nb.Metadata["conclab"]
	if !ok || raw == nil {
		return nil, nil
	}
	conclab, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("notebook metadata \"conclab\" is a %s; want an object such as {\"quick\": {\"vus\": \"4\"}}", jsonKind(raw))
	}
	q, ok := conclab[QuickKey]
	if !ok || q == nil {
		return nil, nil
	}
	quick, ok := q.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("notebook metadata conclab.quick is a %s; want an object of parameter names to text values, such as {\"vus\": \"4\"}", jsonKind(q))
	}
	names := make([]string, 0, len(quick))
	for n := range quick {
		names = append(names, n)
	}
	sort.Strings(names)
	ps := make([]Parameter, 0, len(names))
	for _, n := range names {
		text, ok := quick[n].(string)
		if !ok {
			return nil, fmt.Errorf("notebook metadata conclab.quick.%s is a %s (%v); want text as on -p, such as \"%v\"", n, jsonKind(quick[n]), quick[n], quick[n])
		}
		ps = append(ps, Parameter{Name: n, Text: text})
	}
	return ps, nil
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, int, int64, json.Number:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
