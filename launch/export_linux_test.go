package launch

import "time"

// holdFrozen makes kill stop, for good, between its freeze and its thaw,
// after calling reached: the window in which a corepin that dies would
// leave its tree frozen, widened for the test. It holds asleep, not in an
// empty select: with every other goroutine parked (the tree frozen, a
// lock held by the kill's caller), the runtime took that for a deadlock
// and ended the process, and its guard then rightly thawed the tree.
func holdFrozen(reached func()) {
	afterFreeze = func() {
		reached()
		for {
			time.Sleep(time.Hour)
		}
	}
}
