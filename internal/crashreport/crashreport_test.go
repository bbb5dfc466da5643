package crashreport_test

import (
	"strings"
	"testing"

	"github.com/conclab/conclab/internal/crashreport"
)

func TestCause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, report string
		want         crashreport.Cause
		line         string
	}{
		{"stack overflow on stderr", "runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0xc\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw(...)\ngoroutine 1 [running]:\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "stack overflow (goroutine stack exceeds 1000000000-byte limit)"},
			"fatal error: stack overflow (goroutine stack exceeds 1000000000-byte limit)"},
		{"stack overflow in crash output (frames only)", "\nruntime stack:\nruntime.throw({0x4c7110?, 0x200000001?})\nruntime.newstack()\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "stack overflow", Hint: "runaway recursion?"},
			"fatal error: stack overflow (runaway recursion?)"},
		{"out of memory", "fatal error: runtime: out of memory\n\ngoroutine 7 [running]:\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "out of memory"}, "fatal error: out of memory"},
		{"out of memory by frames", "runtime.throw({0x4c8c8d?, 0x226b?})\nruntime.sysMapOS(...)\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "out of memory", Hint: "an allocation larger than the machine can give"}, ""},
		{"map writes", "fatal error: concurrent map writes\n\ngoroutine 9 [running]:\ninternal/runtime/maps.fatal(...)\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "concurrent map writes"}, "fatal error: concurrent map writes"},
		{"map by frames", "goroutine 19 [running]:\ninternal/runtime/maps.fatal({0x4af807?, 0x0?})\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "concurrent map access",
				Hint: "a map written by one goroutine while another reads or writes it: guard it with a sync.Mutex, or use sync.Map"}, ""},
		{"deadlock", "goroutine 1 [chan receive]:\nruntime.checkdead()\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "all goroutines are asleep - deadlock"}, "fatal error: all goroutines are asleep - deadlock"},
		{"goroutine panic", "panic: boom\n\ngoroutine 12 [running]:\nmain.f()\n",
			crashreport.Cause{Kind: crashreport.Panic, Message: "boom"}, "panic: boom"},
		{"segfault", "unexpected fault address 0x8\nfatal error: fault\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x8 pc=0x1]\n",
			crashreport.Cause{Kind: crashreport.FatalError, Message: "fault"}, "fatal error: fault"},
		{"signal only", "SIGILL: illegal instruction\nPC=0x0 m=0 sigcode=2\n",
			crashreport.Cause{Kind: crashreport.Signal, Message: "SIGILL: illegal instruction"}, "SIGILL: illegal instruction"},
		{"nothing telling", "some line\nlast words", crashreport.Cause{}, "some line"},
		{"empty", "\n\n", crashreport.Cause{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r crashreport.Report
			// Written in small pieces, with a huge dump after.
			for i := 0; i < len(tt.report); i += 5 {
				r.Write([]byte(tt.report[i:min(i+5, len(tt.report))]))
			}
			if tt.name != "nothing telling" && tt.name != "empty" {
				for range 1000 {
					r.Write([]byte("goroutine 99 [select]:\n\tsome/frame.go:12 +0x1f\n"))
				}
			}
			got := r.Cause()
			got.First, got.Last = "", ""
			if got != tt.want {
				t.Errorf("Cause = %#v; want %#v", got, tt.want)
			}
			if tt.line != "" && r.Cause().String() != tt.line {
				t.Errorf("String = %q; want %q", r.Cause().String(), tt.line)
			}
			if n := r.TailLen(); n > crashreport.Tail {
				t.Errorf("kept %d tail lines; want at most %d", n, crashreport.Tail)
			}
		})
	}
	var r crashreport.Report
	r.Write([]byte("some line\nlast words"))
	if c := r.Cause(); c.First != "some line" || c.Last != "last words" || c.String() != "some line" {
		t.Errorf("Cause = %#v", c)
	}
	if strings.Contains(r.Cause().String(), "\n") {
		t.Error("a cause in more than one line")
	}
}
