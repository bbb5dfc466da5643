package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCrashWatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pipe string
		want       []string // in the line; none: no line
	}{
		{"clean exit", cellNote(1, "x := 1") + "\n" + noteIdle + "\n" + noteExit + "\n", nil},
		{"closed without a report", cellNote(1, "x := 1") + "\n", nil},
		{"concurrent map", cellNote(3, "m := map[int]int{}\nfor {}") + "\n\ngoroutine 19 [running]:\ninternal/runtime/maps.fatal({0x4af807?, 0x0?})\n",
			[]string{"cell [3]", `"m := map[int]int{} ..."`, "fatal error: concurrent map access"}},
		{"stack overflow", cellNote(7, "f(0)") + "\n\nruntime stack:\nruntime.throw({0x4c7110?, 0x200000001?})\nruntime.newstack()\n",
			[]string{"cell [7]", "stack overflow", "256 MiB"}},
		{"out of memory", cellNote(2, "b := make([]byte, 1<<40)") + "\n\nruntime stack:\nruntime.throw({0x4c8c8d?, 0x226b?})\nruntime.sysMapOS(...)\n",
			[]string{"cell [2]", "out of memory"}},
		{"panic between cells", cellNote(4, "go f()") + "\n" + noteIdle + "\npanic: boom\n\ngoroutine 5 [running]:\n",
			[]string{"outside any cell", "panic: boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			report := filepath.Join(t.TempDir(), "report.txt")
			var out strings.Builder
			if code := crashWatch(strings.NewReader(tt.pipe), &out, report); code != 0 {
				t.Errorf("crashWatch returned %d", code)
			}
			got := out.String()
			saved, _ := os.ReadFile(report)
			if tt.want == nil {
				if got != "" || len(saved) != 0 {
					t.Errorf("line %q, report %q; want none", got, saved)
				}
				return
			}
			if strings.Count(got, "\n") != 1 || string(saved) != got {
				t.Errorf("line %q, report %q; want one line, saved", got, saved)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("line %q lacks %q", got, w)
				}
			}
			if took := takeCrashReport(report); took != strings.TrimSpace(got) {
				t.Errorf("takeCrashReport = %q", took)
			}
			if _, err := os.Stat(report); !os.IsNotExist(err) {
				t.Errorf("report not removed: %v", err)
			}
		})
	}
}
