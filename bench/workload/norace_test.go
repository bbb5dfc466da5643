//go:build !race

package workload_test

const raceSlack = 1
