package cpython

// RealPrefix starts the label of every real row: "real /sync-sleep" is the
// real app beside the model's "/sync-sleep" (lab.ModelVsReal pairs them).
const RealPrefix = "real "
