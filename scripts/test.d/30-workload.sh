#!/usr/bin/env bash
# Runs every bench/workload benchmark once (image pipeline phases on the 8K
# JPEG, insert per backend, print modes, sum of squares) so they cannot rot:
# `go test` compiles benchmarks but never runs them. About 10 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "bench/workload: benchmarks, one iteration each"
go test -count=1 -run '^$' -bench . -benchtime 1x ./bench/workload/
