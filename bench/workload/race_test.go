//go:build race

package workload_test

// raceSlack widens upper time bounds under the race detector, which slows
// every call several times; lower bounds (sleeps) never move.
const raceSlack = 2
