// Package termsafetest helps test that outside text is made safe on every
// output: Fill puts text at its worst into every string of a value, such as
// a run read from a results folder that anyone may have written, and Check
// finds in what a view wrote anything a terminal would obey.
package termsafetest

import (
	"reflect"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Evil is outside text at its worst: an escape sequence (red), a CSV
// separator and quote, a newline, a carriage return (which would let a
// line overwrite the one before), a bell, DEL, the 8-bit CSI and a
// right-to-left override.
const Evil = "\x1b[31m,\"\n\r\x07\x7f\u009b\u202e"

// Fill sets every string reachable from v, a pointer, through exported
// fields, pointers, slices, arrays and maps to s (a []byte too), every
// number to 1 and every bool to b. Nil pointers are made, and slices and
// maps get two elements, so that every index of 1 and every optional value
// is there: a view shows all it can. Fields of unexported types' insides
// (time.Time, cpuset.Set) are left as they are.
func Fill(v any, s string, b bool) {
	fill(reflect.ValueOf(v).Elem(), s, b, 0)
}

// maxDepth stops a type that holds itself.
const maxDepth = 12

func fill(v reflect.Value, s string, b bool, depth int) {
	if depth > maxDepth || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem(), s, b, depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), s, b, depth+1)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), s, b, depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(s))
			return
		}
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := range v.Len() {
			fill(v.Index(i), s, b, depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for i := range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			switch k.Kind() {
			case reflect.String:
				k.SetString(s + string(rune('a'+i)))
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				k.SetInt(int64(i))
			default:
				return
			}
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, s, b, depth+1)
			v.SetMapIndex(k, e)
		}
	}
}

// Find returns the first rune of out that a terminal would obey, or that
// hides or reorders text, with its offset: a C0 control other than newline
// and tab, DEL, a C1 control, a format rune such as a bidi override, or an
// invalid byte. found is false when out holds none.
func Find(out []byte) (offset int, r rune, found bool) {
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		if (r == utf8.RuneError && size == 1) || (r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029)) {
			return i, r, true
		}
		i += size
	}
	return 0, 0, false
}

// Check fails the test when out, what a view wrote, holds a rune Find
// finds, quoting the place.
func Check(t testing.TB, what string, out []byte) {
	t.Helper()
	i, r, found := Find(out)
	if !found {
		return
	}
	from, to := max(0, i-60), min(len(out), i+20)
	t.Errorf("%s holds %U at byte %d: …%q…", what, r, i, out[from:to])
}
