package watch

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
)

// original is what a thread had before the watcher first changed it, kept
// so that a watcher of a process that outlives it (Options.Restore) puts
// back what it changed. inherited marks what a thread born during the
// watch took from the thread that started it: corepin's change, copied,
// and put back only while the thread still has it.
type original struct {
	mask          *cpuset.Set
	attr          *sched.Attr
	maskInherited bool
	attrInherited bool
}

func (o original) empty() bool { return o.mask == nil && o.attr == nil }

// keepMask and keepAttr keep the first value seen before a change.
func (o *original) keepMask(m cpuset.Set) {
	if o.mask == nil {
		o.mask = &m
	}
}

func (o *original) keepAttr(a sched.Attr) {
	if o.attr == nil {
		o.attr = &a
	}
}

// inherit takes from's original of what ("affinity" or "attributes") for
// a thread that was born as asked.
func (o *original) inherit(what string, from original) {
	switch {
	case what == "affinity" && o.mask == nil && from.mask != nil:
		o.mask, o.maskInherited = from.mask, true
	case what == "attributes" && o.attr == nil && from.attr != nil:
		o.attr, o.attrInherited = from.attr, true
	}
}

// keepFirst records a process's first originals, for the threads it
// starts later.
func (w *Watcher) keepFirst(pid int, was original) {
	p := w.procWas[pid]
	if p.mask == nil {
		p.mask = was.mask
	}
	if p.attr == nil {
		p.attr = was.attr
	}
	w.procWas[pid] = p
}

// inherited is what thread tid, born in process pid during the watch,
// took from the thread that started it: its process's first original, or,
// for the first thread of a new process (tid = pid), its parent's (ppid).
func (w *Watcher) inherited(pid, tid, ppid int) original {
	from := pid
	if tid == pid {
		from = ppid
	}
	o := w.procWas[from]
	return original{mask: o.mask, attr: o.attr}
}

// restore puts back every thread the watcher changed, and reads each back.
// The threads are listed again until a listing finds none it has not
// seen: a thread still on the target that starts another while the list
// is worked through passes the change on, and that one is put back too.
func (w *Watcher) restore() {
	done := map[key]bool{}
	for again := true; again; {
		again = false
		for _, pt := range w.listThreads() {
			st, err := w.readStat(pt.pid, pt.tid)
			if err != nil {
				continue // ended
			}
			k := key{pt.tid, st.StartTime}
			if done[k] {
				continue
			}
			done[k], again = true, true
			was := w.originalOf(k, pt.pid, st.PPid)
			if was.empty() {
				continue
			}
			switch put, err := w.putBack(pt.tid, was); {
			case err == nil && put:
				w.res.Restored++
			case err == nil:
				// it chose otherwise since: left as it is
			case errors.Is(err, unix.ESRCH):
				// ended meanwhile: nothing is left to put back
			default:
				w.res.NotRestored++
				w.addError(fmt.Sprintf("putting back thread %d: %v", pt.tid, err))
			}
		}
	}
}

type pidTID struct{ pid, tid int }

// listThreads lists the threads followed, as a sample does.
func (w *Watcher) listThreads() []pidTID {
	var list []pidTID
	if len(w.opts.TIDs) > 0 {
		for _, tid := range w.opts.TIDs {
			list = append(list, pidTID{w.opts.PID, tid})
		}
		return list
	}
	for _, pid := range w.processes() {
		for _, tid := range w.tasks(pid) {
			list = append(list, pidTID{pid, tid})
		}
	}
	return list
}

// originalOf is what thread k had before the watcher: its own original,
// or, for a thread born after the last sample, what it inherited.
func (w *Watcher) originalOf(k key, pid, ppid int) original {
	if t := w.threads[k]; t != nil {
		return t.was
	}
	o := w.inherited(pid, k.tid, ppid)
	o.maskInherited, o.attrInherited = true, true
	w.keepFirst(pid, o) // a new process's, for its own threads
	return o
}

// putBack writes a thread's original mask and attributes, reads them
// back, and says whether it wrote any. What the thread inherited is put
// back only while it still holds what the watcher asks for: a thread that
// chose otherwise since keeps its choice.
func (w *Watcher) putBack(tid int, was original) (bool, error) {
	put := false
	if was.mask != nil {
		mask, err := sched.GetAffinity(tid)
		if err != nil {
			return put, err
		}
		if !was.maskInherited || mask.IsSubsetOf(w.opts.Mask) {
			if err := sched.SetAffinity(tid, *was.mask); err != nil {
				return put, err
			}
			put = true
			if got, err := sched.GetAffinity(tid); err != nil {
				return put, err
			} else if !got.Equal(*was.mask) {
				return put, fmt.Errorf("its mask reads back as %s, was %s", got, *was.mask)
			}
		}
	}
	if was.attr != nil && w.opts.Want != nil {
		a, err := sched.GetAttr(tid)
		if err != nil {
			return put, err
		}
		if !was.attrInherited || w.asWanted(a) {
			return true, putBackAttr(tid, *was.attr)
		}
	}
	return put, nil
}

// putBackAttr writes a thread's captured policy and nice value or
// priority back, and reads them back. A fair thread's captured slice is
// written as 0, the default, and again as captured only when it differs
// from what that reads back as, a slice that was asked for (written back
// as captured, a default slice would become a pinned custom one; see
// linux-sched-facts §1.7).
func putBackAttr(tid int, was sched.Attr) error {
	a := sched.Attr{Policy: was.Policy, Flags: was.Flags & sched.FlagResetOnFork}
	fair := !was.Policy.Realtime() && was.Policy != sched.Deadline
	switch {
	case was.Policy.Realtime():
		a.Priority = was.Priority
	case was.Policy == sched.Deadline:
		a.Runtime, a.Deadline, a.Period = was.Runtime, was.Deadline, was.Period
	default:
		a.Nice = was.Nice
	}
	if err := sched.SetAttr(tid, a); err != nil {
		return err
	}
	now, err := sched.GetAttr(tid)
	if err != nil {
		return err
	}
	if fair && was.Runtime != 0 && now.Runtime != was.Runtime {
		a.Runtime = was.Runtime
		if err := sched.SetAttr(tid, a); err != nil {
			return err
		}
		if now, err = sched.GetAttr(tid); err != nil {
			return err
		}
	}
	switch {
	case now.Policy != was.Policy || now.Priority != was.Priority:
		return fmt.Errorf("its policy reads back as %s:%d, was %s:%d", now.Policy, now.Priority, was.Policy, was.Priority)
	case fair && now.Nice != was.Nice:
		return fmt.Errorf("its nice value reads back as %d, was %d", now.Nice, was.Nice)
	}
	return nil
}
