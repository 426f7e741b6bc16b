package qos

import (
	"bytes"
	"errors"
	"testing"
)

func TestRequestCode(t *testing.T) {
	if requestCode != 0xC010CC01 {
		t.Errorf("QOS_CTRL_BASIC_OPERATION = %#x, want 0xC010CC01", requestCode)
	}
	if got := iowr(qosCtrlMagic, qosCtrlBasic, 28); got != 0xC01CCC01 {
		t.Errorf("the QOS_EXT_ENABLE code = %#x, want 0xC01CCC01", got)
	}
}

func TestEncode(t *testing.T) {
	got := ctrlData{tid: 1234, op: opApply, level: uint32(UserInteractive)}.encode()
	want := []byte{
		0xd2, 0x04, 0, 0, // pid 1234
		1, 0, 0, 0, // QOS_APPLY
		5, 0, 0, 0, // QOS_USER_INTERACTIVE
		0, 0, 0, 0, // qos (out)
	}
	want = append(want, make([]byte, 16)...) // padding for the 28-byte layout
	if !bytes.Equal(got[:], want) {
		t.Errorf("encode = % x\nwant     % x", got, want)
	}
	back := decode(got)
	if back.tid != 1234 || back.op != opApply || back.level != 5 {
		t.Errorf("decode(encode) = %+v", back)
	}
	if decode(ctrlData{op: opGet, qos: noQoS}.encode()).qos != -1 {
		t.Error("qos -1 does not survive encoding")
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Level{
		"user-interactive": UserInteractive, "QOS_USER_INTERACTIVE": UserInteractive, "5": UserInteractive,
		"qos0": Background, "Background": Background, "deadline_request": DeadlineRequest,
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "high", "6", "-1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestLinuxMappingIsOrdered(t *testing.T) {
	// Higher levels never ask for less: nice does not rise, uclamp min
	// does not fall.
	prev := Background.Linux()
	for _, l := range Levels()[1:] {
		s := l.Linux()
		if s.Nice > prev.Nice || (s.Uclamp && prev.Uclamp && s.UclampMin < prev.UclampMin) {
			t.Errorf("%v asks for less than the level below it: %+v after %+v", l, s, prev)
		}
		if s.Policy.Realtime() {
			t.Errorf("%v maps to a realtime policy", l)
		}
		prev = s
	}
}

func TestNodeAbsentHere(t *testing.T) {
	if NodeAvailable() {
		t.Skip("this kernel has a HarmonyOS QoS node")
	}
	if !errors.Is(ErrNoNode, errors.ErrUnsupported) {
		t.Error("ErrNoNode does not wrap errors.ErrUnsupported")
	}
	if err := Set(UserInteractive); err != ErrNoNode || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Set without a node = %v, want ErrNoNode", err)
	}
	if _, known, err := Get(); known || err != ErrNoNode {
		t.Errorf("Get without a node = %v, %v", known, err)
	}
}
