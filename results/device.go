package results

import (
	"encoding/json"
	"strings"
)

// DeviceEnv is the environment variable through which corepin --on tells
// the corepin it starts on a device which device that is: a JSON object
// with the host block's keys on, serial, model and os, as the device
// answered when asked (getprop on Android, param on HarmonyOS,
// /etc/os-release and DMI over ssh).
const DeviceEnv = "COREPIN_DEVICE"

// AddDevice fills the device's keys from DeviceEnv's value; a value that
// is not such an object leaves them unknown.
func (h *Host) AddDevice(value string) {
	var d struct{ On, Serial, Model, OS string }
	if json.Unmarshal([]byte(value), &d) == nil {
		h.On, h.Serial, h.Model, h.OS = d.On, d.Serial, d.Model, d.OS
	}
}

// Name is what the run's results folder is named after, beside its start
// time: the device's serial where it has one (every Android phone's
// hostname is "localhost"), else the hostname.
func (h Host) Name() string {
	if h.Serial != "" {
		return h.Serial
	}
	return h.Hostname
}

// Label names the machine for a reader: its hostname, and on a device
// its model, system, serial and the target it was reached through.
func (h Host) Label() string {
	var parts []string
	for _, s := range []string{h.Hostname, h.Model, h.OS} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if h.Serial != "" {
		parts = append(parts, "serial "+h.Serial)
	}
	if h.On != "" {
		parts = append(parts, "via "+h.On)
	}
	return strings.Join(parts, ", ")
}
