package topology

import "fmt"

// ARM's /proc/cpuinfo has no model name, only the implementer and part
// numbers of the Main ID Register (MIDR_EL1). These tables name them as
// util-linux's lscpu does (sys-utils/lscpu-arm.c), for the parts found in
// phones, laptops, servers and qemu.
var armImplementers = map[int]string{
	0x41: "ARM", 0x42: "Broadcom", 0x43: "Cavium", 0x46: "Fujitsu", 0x48: "HiSilicon",
	0x4e: "NVIDIA", 0x50: "APM", 0x51: "Qualcomm", 0x53: "Samsung", 0x56: "Marvell",
	0x61: "Apple", 0x69: "Intel", 0x6d: "Microsoft", 0xc0: "Ampere",
}

var armParts = map[int]map[int]string{
	0x41: {
		0xc05: "Cortex-A5", 0xc07: "Cortex-A7", 0xc08: "Cortex-A8", 0xc09: "Cortex-A9",
		0xc0d: "Cortex-A12", 0xc0e: "Cortex-A17", 0xc0f: "Cortex-A15",
		0xd01: "Cortex-A32", 0xd02: "Cortex-A34", 0xd03: "Cortex-A53", 0xd04: "Cortex-A35",
		0xd05: "Cortex-A55", 0xd06: "Cortex-A65", 0xd07: "Cortex-A57", 0xd08: "Cortex-A72",
		0xd09: "Cortex-A73", 0xd0a: "Cortex-A75", 0xd0b: "Cortex-A76", 0xd0c: "Neoverse-N1",
		0xd0d: "Cortex-A77", 0xd0e: "Cortex-A76AE", 0xd40: "Neoverse-V1", 0xd41: "Cortex-A78",
		0xd42: "Cortex-A78AE", 0xd43: "Cortex-A65AE", 0xd44: "Cortex-X1", 0xd46: "Cortex-A510",
		0xd47: "Cortex-A710", 0xd48: "Cortex-X2", 0xd49: "Neoverse-N2", 0xd4a: "Neoverse-E1",
		0xd4b: "Cortex-A78C", 0xd4c: "Cortex-X1C", 0xd4d: "Cortex-A715", 0xd4e: "Cortex-X3",
		0xd4f: "Neoverse-V2", 0xd80: "Cortex-A520", 0xd81: "Cortex-A720", 0xd82: "Cortex-X4",
		0xd84: "Neoverse-V3", 0xd85: "Cortex-X925", 0xd87: "Cortex-A725", 0xd8e: "Neoverse-N3",
	},
	0x48: {0xd01: "TaiShan-v110", 0xd02: "TaiShan-v120", 0xd40: "Cortex-A76", 0xd41: "Cortex-A77"},
	0x51: {
		0x00f: "Scorpion", 0x02d: "Scorpion", 0x04d: "Krait", 0x06f: "Krait",
		0x201: "Kryo", 0x205: "Kryo", 0x211: "Kryo", 0x800: "Falkor-V1/Kryo",
		0x801: "Kryo-V2", 0x802: "Kryo-3XX-Gold", 0x803: "Kryo-3XX-Silver",
		0x804: "Kryo-4XX-Gold", 0x805: "Kryo-4XX-Silver", 0xc00: "Falkor", 0xc01: "Saphira",
	},
	0x53: {0x001: "exynos-m1", 0x002: "exynos-m3", 0x003: "exynos-m4", 0x004: "exynos-m5"},
	0x61: {
		0x022: "Icestorm-M1", 0x023: "Firestorm-M1", 0x024: "Icestorm-M1-Pro", 0x025: "Firestorm-M1-Pro",
		0x028: "Icestorm-M1-Max", 0x029: "Firestorm-M1-Max", 0x032: "Blizzard-M2", 0x033: "Avalanche-M2",
	},
	0xc0: {0xac3: "Ampere-1", 0xac4: "Ampere-1a"},
}

// armModel names an ARM core from its implementer and part numbers, as
// lscpu's "Model name" does; "" when the part is not known, "" for both
// numbers missing.
func armModel(implementer, part int) string {
	if name, ok := armParts[implementer][part]; ok {
		return name
	}
	if vendor, ok := armImplementers[implementer]; ok && part >= 0 {
		return fmt.Sprintf("%s part 0x%03x", vendor, part)
	}
	return ""
}
