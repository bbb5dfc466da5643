// Package lab is what a notebook cell calls to ask one of the sources'
// questions in one line, and see the answer: each function runs or checks
// what it is given, renders what it finds (a table, and a chart where one
// helps) and returns an error with a readable message when the answer is
// "no" or the run failed — so a cell fails exactly when the source's claim
// does not hold on this machine.
//
//   - Shape and its Checks (Equal, AtLeast, AtMost, Between, Less, True):
//     "does the source's shape hold?" — a table of check, got, want, holds,
//     and an error listing the checks that failed.
//   - ModelVsReal: one bench.Run holding model strategies "X" and real
//     ones "real X" (bench/cpython's Real), driven by the same load model
//     through the same generator; rows paired by label, a verdict per pair
//     and metric (agrees only when within the stated tolerance; else
//     "ordering only" when no other pair is clearly ordered the other way,
//     counted apart; else disagrees), the "model vs real" chart, and "N of
//     M agree within ±X %; K agree in ordering only". The verdict is a
//     finding, not an error: Agreement.Err turns a clear disagreement into
//     one where arithmetic dominates the noise (waits), and
//     scripts/fidelity.sh checks the CPU-bound comparisons' targets.
//
// Rendering goes to the installed display publisher (a conclab kernel or
// `conclab run`); with none — a test, a plain Go program — the text form is
// printed to standard output instead.
package lab
