package kernel_test

import (
	"fmt"

	"github.com/conclab/conclab/kernel"
)

func ExampleNewSpec() {
	s := kernel.NewSpec("/usr/local/bin/conclab")
	fmt.Println(s.DisplayName, s.Argv, s.InterruptMode)
	// Output: Go (conclab) [/usr/local/bin/conclab kernel {connection_file}] message
}
