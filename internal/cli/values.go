package cli

import (
	"fmt"
	"strconv"
)

// OptionalInt is a number flag without a default: Value is nil until the
// flag is given, and help prints no default. What names a number of it
// in the message for a word that is none ("CPU number").
type OptionalInt struct {
	Value *int
	What  string
}

func (o *OptionalInt) String() string {
	if o.Value == nil {
		return ""
	}
	return strconv.Itoa(*o.Value)
}

func (o *OptionalInt) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%q is not a %s", v, o.What)
	}
	o.Value = &n
	return nil
}

// OptionalString is a string flag that knows it was given: Value is nil
// until it is, so that an empty value given (--cpus ”) can be refused
// rather than taken for none.
type OptionalString struct{ Value *string }

func (o *OptionalString) String() string {
	if o.Value == nil {
		return ""
	}
	return *o.Value
}

func (o *OptionalString) Set(v string) error {
	o.Value = &v
	return nil
}
