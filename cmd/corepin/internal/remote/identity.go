package remote

import (
	"encoding/json"
	"strings"
)

// Identity is which device a target is, as the device said when asked: what
// a result records beside its hostname (every Android phone is
// "localhost"), so that two phones of one model, or one phone reached
// twice, are told apart. Its JSON keys are those of run.json's host block.
type Identity struct {
	// On is the target spec it was reached through: ssh://…, adb:SERIAL,
	// hdc:KEY.
	On string `json:"on"`
	// Serial is the device's serial number: ro.serialno on Android,
	// ohos.boot.sn on HarmonyOS, else the adb serial or hdc key of the
	// spec; "" over ssh.
	Serial string `json:"serial,omitempty"`
	// Model is the product: ro.product.manufacturer and ro.product.model
	// on Android, const.product.model on HarmonyOS, the device tree's model
	// or DMI's sys_vendor and product_name elsewhere.
	Model string `json:"model,omitempty"`
	// OS is the system's release: "Android " and
	// ro.build.version.release, const.ohos.fullname on HarmonyOS,
	// /etc/os-release's PRETTY_NAME elsewhere.
	OS string `json:"os,omitempty"`
	// key tells two targets that are one device: the serial the device
	// reported, or over ssh /etc/machine-id (compared, never recorded),
	// after the client that reached it: one serial through adb and
	// through hdc is two devices (an Android phone is no HarmonyOS one,
	// and a serial the spec gave is only the client's name for it).
	key string
}

// identity reads the probe's answer for target t of platform pl.
func (p probe) identity(t Target, pl Platform) Identity {
	id := Identity{On: t.String()}
	switch {
	case pl.OS == "android":
		id.Serial, id.key = p["serialno"], p["serialno"]
		id.Model = p["model"]
		if maker := p["maker"]; maker != "" && !strings.HasPrefix(strings.ToLower(id.Model), strings.ToLower(maker)) {
			id.Model = strings.TrimSpace(maker + " " + id.Model)
		}
		if r := p["release"]; r != "" {
			id.OS = "Android " + r
		}
	case strings.HasPrefix(pl.System, "HarmonyOS"):
		id.Serial, id.key = p.param("ohos_sn"), p.param("ohos_sn")
		id.Model, id.OS = p.param("ohos_model"), p.param("ohos_name")
	default:
		id.OS = strings.Trim(p["os_release"], `"'`)
		id.Model = p["dt_model"]
		if id.Model == "" {
			id.Model = strings.TrimSpace(p["dmi_vendor"] + " " + p["dmi_product"])
		}
		id.key = p["machine_id"]
	}
	if id.OS == "" {
		id.OS = pl.System
	}
	if id.Serial == "" {
		switch v := t.(type) {
		case *ADB:
			id.Serial = v.Serial
		case *HDC:
			id.Serial = v.Key
		}
	}
	if id.key == "" {
		id.key = id.Serial
	}
	if id.key != "" {
		id.key = t.Kind() + "/" + id.key
	}
	return id
}

// Label names the device for a person: model, serial and system, and the
// spec when it says more than the serial.
func (id Identity) Label() string {
	var parts []string
	for _, s := range []string{id.Model, id.OS} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if id.Serial != "" {
		parts = append(parts, "serial "+id.Serial)
	}
	if len(parts) == 0 {
		return id.On
	}
	return id.On + ": " + strings.Join(parts, ", ")
}

// IdentityEnv is a Request's Env that tells the corepin on a device which
// device it is: name=its identity as JSON.
func IdentityEnv(name string) func(*Device) []string {
	return func(d *Device) []string {
		id, err := json.Marshal(d.Identity)
		if err != nil {
			return nil
		}
		return []string{name + "=" + string(id)}
	}
}
