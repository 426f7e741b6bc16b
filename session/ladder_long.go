package session

// NiceFirst is the ladder for runs longer than a second: every step that
// is not realtime comes first, each followed by itself without uclamp, and
// the realtime steps last. The kernel's realtime throttle holds a
// realtime thread back for part of every second (sched_rt_runtime_us),
// which over a long run costs more than nice -20 gains; on a kernel
// without uclamp, the spec ladder would otherwise skip past nice -20 to
// FIFO. A ladder without a realtime step is returned as it is.
func (l Ladder) NiceFirst() Ladder {
	var fair, rt []Step
	for _, s := range l.steps {
		if s.Realtime() {
			rt = append(rt, s)
		} else {
			fair = append(fair, s)
		}
	}
	if len(rt) == 0 || len(fair) == 0 {
		return l
	}
	out := Ladder{name: l.name + ":nice-first"}
	seen := map[string]bool{}
	add := func(s Step) {
		if k := s.String(); !seen[k] {
			seen[k] = true
			out.steps = append(out.steps, s.clone())
		}
	}
	for _, s := range fair {
		add(s)
		if s.Uclamp != nil && (s.Nice != nil || s.Policy != nil) {
			bare := s.clone()
			bare.Uclamp = nil
			add(bare)
		}
	}
	for _, s := range rt {
		add(s)
	}
	return out
}
