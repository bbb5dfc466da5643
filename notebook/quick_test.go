package notebook

import (
	"reflect"
	"strings"
	"testing"
)

func TestQuickParameters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		md      map[string]any
		want    []Parameter
		wantErr string
	}{
		{"no metadata", nil, nil, ""},
		{"no quick", map[string]any{"conclab": map[string]any{}}, nil, ""},
		{"sorted by name", map[string]any{"conclab": map[string]any{"quick": map[string]any{"vus": "4", "duration": "2s"}}},
			[]Parameter{{"duration", "2s"}, {"vus", "4"}}, ""},
		{"conclab not an object", map[string]any{"conclab": "quick"}, nil, `metadata "conclab" is a string`},
		{"quick not an object", map[string]any{"conclab": map[string]any{"quick": []any{"vus"}}}, nil, "conclab.quick is a list"},
		{"a number, not text", map[string]any{"conclab": map[string]any{"quick": map[string]any{"vus": 4.0}}}, nil, `conclab.quick.vus is a number (4); want text as on -p, such as "4"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			nb := &Notebook{Metadata: tc.md}
			got, err := nb.QuickParameters()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to say %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
