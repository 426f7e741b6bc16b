package topology

import "fmt"

// armName is the name of an implementer (part -1) or of one of its parts.
type armName struct {
	implementer, part int
	name              string
}

// ARM's /proc/cpuinfo has no model name, only the implementer and part
// numbers of the Main ID Register (MIDR_EL1). armNames names them as
// util-linux's lscpu does (sys-utils/lscpu-arm.c), for the parts found in
// phones, laptops, servers and qemu. A slice of constants, not a map: the
// linker lays it out, where a map would be built by code at the start of
// every corepin command.
var armNames = []armName{
	{0x41, -1, "ARM"},
	{0x42, -1, "Broadcom"},
	{0x43, -1, "Cavium"},
	{0x46, -1, "Fujitsu"},
	{0x48, -1, "HiSilicon"},
	{0x4e, -1, "NVIDIA"},
	{0x50, -1, "APM"},
	{0x51, -1, "Qualcomm"},
	{0x53, -1, "Samsung"},
	{0x56, -1, "Marvell"},
	{0x61, -1, "Apple"},
	{0x69, -1, "Intel"},
	{0x6d, -1, "Microsoft"},
	{0xc0, -1, "Ampere"},
	{0x41, 0xc05, "Cortex-A5"},
	{0x41, 0xc07, "Cortex-A7"},
	{0x41, 0xc08, "Cortex-A8"},
	{0x41, 0xc09, "Cortex-A9"},
	{0x41, 0xc0d, "Cortex-A12"},
	{0x41, 0xc0e, "Cortex-A17"},
	{0x41, 0xc0f, "Cortex-A15"},
	{0x41, 0xd01, "Cortex-A32"},
	{0x41, 0xd02, "Cortex-A34"},
	{0x41, 0xd03, "Cortex-A53"},
	{0x41, 0xd04, "Cortex-A35"},
	{0x41, 0xd05, "Cortex-A55"},
	{0x41, 0xd06, "Cortex-A65"},
	{0x41, 0xd07, "Cortex-A57"},
	{0x41, 0xd08, "Cortex-A72"},
	{0x41, 0xd09, "Cortex-A73"},
	{0x41, 0xd0a, "Cortex-A75"},
	{0x41, 0xd0b, "Cortex-A76"},
	{0x41, 0xd0c, "Neoverse-N1"},
	{0x41, 0xd0d, "Cortex-A77"},
	{0x41, 0xd0e, "Cortex-A76AE"},
	{0x41, 0xd40, "Neoverse-V1"},
	{0x41, 0xd41, "Cortex-A78"},
	{0x41, 0xd42, "Cortex-A78AE"},
	{0x41, 0xd43, "Cortex-A65AE"},
	{0x41, 0xd44, "Cortex-X1"},
	{0x41, 0xd46, "Cortex-A510"},
	{0x41, 0xd47, "Cortex-A710"},
	{0x41, 0xd48, "Cortex-X2"},
	{0x41, 0xd49, "Neoverse-N2"},
	{0x41, 0xd4a, "Neoverse-E1"},
	{0x41, 0xd4b, "Cortex-A78C"},
	{0x41, 0xd4c, "Cortex-X1C"},
	{0x41, 0xd4d, "Cortex-A715"},
	{0x41, 0xd4e, "Cortex-X3"},
	{0x41, 0xd4f, "Neoverse-V2"},
	{0x41, 0xd80, "Cortex-A520"},
	{0x41, 0xd81, "Cortex-A720"},
	{0x41, 0xd82, "Cortex-X4"},
	{0x41, 0xd84, "Neoverse-V3"},
	{0x41, 0xd85, "Cortex-X925"},
	{0x41, 0xd87, "Cortex-A725"},
	{0x41, 0xd8e, "Neoverse-N3"},
	{0x48, 0xd01, "TaiShan-v110"},
	{0x48, 0xd02, "TaiShan-v120"},
	{0x48, 0xd40, "Cortex-A76"},
	{0x48, 0xd41, "Cortex-A77"},
	{0x51, 0x00f, "Scorpion"},
	{0x51, 0x02d, "Scorpion"},
	{0x51, 0x04d, "Krait"},
	{0x51, 0x06f, "Krait"},
	{0x51, 0x201, "Kryo"},
	{0x51, 0x205, "Kryo"},
	{0x51, 0x211, "Kryo"},
	{0x51, 0x800, "Falkor-V1/Kryo"},
	{0x51, 0x801, "Kryo-V2"},
	{0x51, 0x802, "Kryo-3XX-Gold"},
	{0x51, 0x803, "Kryo-3XX-Silver"},
	{0x51, 0x804, "Kryo-4XX-Gold"},
	{0x51, 0x805, "Kryo-4XX-Silver"},
	{0x51, 0xc00, "Falkor"},
	{0x51, 0xc01, "Saphira"},
	{0x53, 0x001, "exynos-m1"},
	{0x53, 0x002, "exynos-m3"},
	{0x53, 0x003, "exynos-m4"},
	{0x53, 0x004, "exynos-m5"},
	{0x61, 0x022, "Icestorm-M1"},
	{0x61, 0x023, "Firestorm-M1"},
	{0x61, 0x024, "Icestorm-M1-Pro"},
	{0x61, 0x025, "Firestorm-M1-Pro"},
	{0x61, 0x028, "Icestorm-M1-Max"},
	{0x61, 0x029, "Firestorm-M1-Max"},
	{0x61, 0x032, "Blizzard-M2"},
	{0x61, 0x033, "Avalanche-M2"},
	{0xc0, 0xac3, "Ampere-1"},
	{0xc0, 0xac4, "Ampere-1a"},
}

// armModel names an ARM core from its implementer and part numbers, as
// lscpu's "Model name" does; "" when the part is not known, "" for both
// numbers missing.
func armModel(implementer, part int) string {
	if part < 0 {
		return ""
	}
	if name := armLookup(implementer, part); name != "" {
		return name
	}
	if vendor := armLookup(implementer, -1); vendor != "" {
		return fmt.Sprintf("%s part 0x%03x", vendor, part)
	}
	return ""
}

func armLookup(implementer, part int) string {
	for _, n := range armNames {
		if n.implementer == implementer && n.part == part {
			return n.name
		}
	}
	return ""
}
