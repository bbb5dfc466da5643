#!/usr/bin/env bash
# The README's test command: installs what is missing, starts the databases,
# then runs the Go tests and every integration suite in scripts/test.d.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage says how long it took (CI's budget is 25 minutes).
t0=$(date +%s)
stage_t=$t0
took() { local now; now=$(date +%s); echo "   ($1: $((now - stage_t)) s; $((now - t0)) s in all)"; stage_t=$now; }
bash scripts/setup.sh
took setup
bash scripts/services.sh start
took services
# shellcheck disable=SC1091
source .services.env
export PATH="$(pwd)/bin:$PATH"
# A calibration file of this run's own (docs/calibration.md): the first notebook
# that needs this machine's costs measures them, the others read them, and no
# run reads a previous one's.
CONCLAB_CALIBRATION="$(mktemp -d)/calibration.json"
export CONCLAB_CALIBRATION
trap 'rm -rf "$(dirname "$CONCLAB_CALIBRATION")"' EXIT

echo "== gofmt / go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go vet ./...
# macOS too (people study concurrency on their laptops): it must build and vet,
# though nothing here runs it.
GOOS=darwin GOARCH=arm64 go vet ./...
took "gofmt / go vet"

echo "== notebooks: nbformat 4.5, no outputs, code cells gofmt-clean"
bash scripts/check-notebooks.sh
took notebooks

echo "== go test"
# -p 3: three packages at a time. Most of the packages' time is waiting
# (waves of sleeps, real servers starting): one at a time they kept the 2
# cores a third busy. The tests assert what holds whatever the load (they
# pass at -p 3 under a load average of 12).
go test -p 3 -count=1 -timeout 15m ./...
took "go test"

for suite in scripts/test.d/*.sh; do
  [ -e "$suite" ] || continue
  echo "== $suite"
  bash "$suite"
  took "$suite"
done
echo "== all tests passed"
