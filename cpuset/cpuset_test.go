package cpuset

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"\n", nil},
		{"0", []int{0}},
		{"0-3\n", []int{0, 1, 2, 3}},
		{" 0-1 , 5 ", []int{0, 1, 5}},
		{"8-11,0-3", []int{0, 1, 2, 3, 8, 9, 10, 11}},
		{"3,3,3", []int{3}},
		{"6-7,10-11,14-15", []int{6, 7, 10, 11, 14, 15}}, // sparc64 dump: no cpu0
		{"1023-1025", []int{1023, 1024, 1025}},           // beyond unix.CPUSet's 1024 bits
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !slices.Equal(got.CPUs(), tt.want) && !(len(tt.want) == 0 && got.IsEmpty()) {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got.CPUs(), tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"3-1", "a", "1,,2", "-1", "1-", "0-6:2", "99999999999", "70000", ",", "1 2", "0x3"} {
		_, err := Parse(in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) error = %v, want a *ParseError", in, err)
			continue
		}
		if !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q) error %q does not quote the input", in, err)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, in := range []string{"", "0", "0-3", "0-3,8-11", "1,3,5", "0-1,64-129,4095"} {
		s := MustParse(in)
		if got := s.String(); got != in {
			t.Errorf("String(Parse(%q)) = %q", in, got)
		}
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ mask, list string }{
		{"00000003", "0-1"},
		{"3\n", "0-1"},
		{"ff,ffffffff", "0-39"},
		{"00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000101", "0,8"},
		{"1,00000000", "32"},
		{"00000000", ""},
		{"0x11", "0,4"},
	}
	for _, tt := range tests {
		s, err := ParseMask(tt.mask)
		if err != nil {
			t.Errorf("ParseMask(%q): %v", tt.mask, err)
			continue
		}
		if got := s.String(); got != tt.list {
			t.Errorf("ParseMask(%q) = %q, want %q", tt.mask, got, tt.list)
		}
	}
	if got := MustParse("0-39").Mask(); got != "ff,ffffffff" {
		t.Errorf("Mask() = %q, want ff,ffffffff", got)
	}
	if got := MustParse("32").Mask(); got != "1,00000000" {
		t.Errorf("Mask() = %q, want 1,00000000", got)
	}
	for _, bad := range []string{"", "xyz", "123456789", "ff,,ff"} {
		if _, err := ParseMask(bad); err == nil {
			t.Errorf("ParseMask(%q) succeeded", bad)
		}
	}
}

func TestSetOperations(t *testing.T) {
	a, b := MustParse("0-7"), MustParse("4-11")
	check := func(name string, got Set, want string) {
		t.Helper()
		if got.String() != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	check("union", a.Union(b), "0-11")
	check("intersect", a.Intersect(b), "4-7")
	check("difference", a.Difference(b), "0-3")
	check("disjoint", MustParse("0-1").Intersect(MustParse("200")), "")
	if !MustParse("4-5").IsSubsetOf(a) || b.IsSubsetOf(a) {
		t.Error("IsSubsetOf is wrong")
	}
	if a.Len() != 8 || a.First() != 0 || a.Last() != 7 || (Set{}).First() != -1 || (Set{}).Last() != -1 {
		t.Error("Len/First/Last are wrong")
	}
	if !MustParse("0-3").Equal(Of(3, 2, 1, 0)) || !(Set{}).Equal(MustParse("")) {
		t.Error("Equal is wrong")
	}
	if !Range(64, 64).Difference(Of(64)).Equal(Set{}) {
		t.Error("a difference down to nothing is not the zero Set")
	}
}

func TestJSON(t *testing.T) {
	data, err := json.Marshal(MustParse("12-13"))
	if err != nil || string(data) != "[12,13]" {
		t.Fatalf("Marshal = %s, %v", data, err)
	}
	var s Set
	if err := json.Unmarshal([]byte(`[3,1]`), &s); err != nil || s.String() != "1,3" {
		t.Errorf("Unmarshal array = %q, %v", s, err)
	}
	if err := json.Unmarshal([]byte(`"0-2"`), &s); err != nil || s.String() != "0-2" {
		t.Errorf("Unmarshal string = %q, %v", s, err)
	}
	if err := json.Unmarshal([]byte(`[-1]`), &s); err == nil {
		t.Error("Unmarshal of a negative CPU succeeded")
	}
}

func FuzzParse(f *testing.F) {
	for _, text := range []string{"0-3,8-11", "", "3-1", "1,,2", "0-65536", "6-7,10-11\n"} {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 64 && strings.Count(in, "-") > 0 {
			// Keep iterations cheap: a range may legitimately hold 65536 CPUs.
			in = in[:64]
		}
		s, err := Parse(in)
		if err != nil {
			return
		}
		again, err := Parse(s.String())
		if err != nil || !again.Equal(s) {
			t.Fatalf("round trip of %q through %q failed: %v", in, s.String(), err)
		}
		m, err := ParseMask(s.Mask())
		if err != nil || !m.Equal(s) {
			t.Fatalf("mask round trip of %q through %q failed: %v", in, s.Mask(), err)
		}
	})
}

func FuzzParseMask(f *testing.F) {
	for _, text := range []string{"ff,ffffffff", "0", "00000003\n", "1,00000000"} {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseMask(in)
		if err != nil {
			return
		}
		again, err := Parse(s.String())
		if err != nil || !again.Equal(s) {
			t.Fatalf("list round trip of mask %q failed: %v", in, err)
		}
	})
}
