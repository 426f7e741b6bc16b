package launch

// holdFrozen makes kill stop, for good, between its freeze and its thaw,
// after calling reached: the window in which a corepin that dies would
// leave its tree frozen, widened for the test.
func holdFrozen(reached func()) {
	afterFreeze = func() {
		reached()
		select {}
	}
}
