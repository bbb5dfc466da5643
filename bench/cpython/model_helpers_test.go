package cpython

import "github.com/conclab/conclab/bench/pymodel"

func pymodelConfig() pymodel.Config { return pymodel.Config{CPUs: 2} }
