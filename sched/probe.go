package sched

// Feature is the answer of a probe: whether this kernel and this user allow
// something, and the evidence for the answer. Probes that change thread
// state do it on a throwaway thread that dies afterwards.
type Feature struct {
	Supported bool   `json:"supported"`
	Evidence  string `json:"evidence"`
}
