package telemetry

// NoteKind says what a note is about, so that a reader can pick notes
// without matching their words.
type NoteKind string

// The kinds of notes a sampler makes.
const (
	// NoteShared: the sampler had to share the measured CPUs.
	NoteShared NoteKind = "shared"
	// NoteGap: a CPU had no reading for a while (offline, no frequency).
	NoteGap NoteKind = "gap"
	// NoteUnreadable: a file could not be read at a sample.
	NoteUnreadable NoteKind = "unreadable"
	// NoteMalformed: a line of a file was not understood and skipped.
	NoteMalformed NoteKind = "malformed"
	// NoteRoughFrequency: the frequency comes from a rough source.
	NoteRoughFrequency NoteKind = "rough-frequency"
)

// Note is something the sampler says about its series. It is written as
// its text, as before kinds existed; a note read back from text has no
// kind.
type Note struct {
	Kind NoteKind
	Text string
}

func (n Note) String() string { return n.Text }

// MarshalText writes the note's text.
func (n Note) MarshalText() ([]byte, error) { return []byte(n.Text), nil }

// UnmarshalText reads a note's text; its kind is not written, so it is
// left empty.
func (n *Note) UnmarshalText(b []byte) error {
	*n = Note{Text: string(b)}
	return nil
}
