package eval_test

import (
	"context"
	"testing"

	"github.com/conclab/conclab/kernel/eval"
)

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := eval.New(eval.Options{Symbols: labSymbols})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func BenchmarkEval(b *testing.B) {
	s, err := eval.New(eval.Options{Symbols: labSymbols})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, c := range []struct{ name, code string }{{"expr", "1"}, {"stmt", "x := 1\n_ = x"}, {"print", "fmt.Print(\"\")"}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Eval(ctx, c.code); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
