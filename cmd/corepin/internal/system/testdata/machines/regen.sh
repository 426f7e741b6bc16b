#!/usr/bin/env bash
# Writes the fixture machines of package system: cpufreq, cpuidle, IRQ and
# kernel files laid out as on the real machines they are modelled on.
# Run from this folder; it replaces the trees it writes.
set -euo pipefail
cd "$(dirname "$0")"

put() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1"; }

# common MACHINE NCPUS: the files every machine has.
common() {
	local m=$1 n=$2 last=$(($2 - 1))
	local cpu=$m/sys/devices/system/cpu
	put $cpu/online "0-$last"
	put $cpu/possible "0-$last"
	put $cpu/present "0-$last"
	put $cpu/isolated ""
	put $m/proc/sys/kernel/perf_event_max_sample_rate 100000
	put $m/proc/sys/kernel/randomize_va_space 2
	put $m/proc/loadavg "0.52 0.31 0.12 2/311 4242"
	put $m/proc/uptime "8812.41 30112.03"
	put $m/proc/cmdline "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet"
	put $m/proc/stat "procs_running 2"
	put $m/proc/irq/default_smp_affinity "$(printf '%x' $(((1 << n) - 1)))"
	local header="     " i
	for ((i = 0; i < n; i++)); do header+=$(printf '%11s' CPU$i); done
	printf '%s\n' "$header" >$m/proc/interrupts
	for ((i = 0; i < n; i++)); do put $cpu/cpu$i/online 1; done
}

# irq MACHINE N AFFINITY NAME COUNTS...: one interrupt line.
irq() {
	local m=$1 n=$2 aff=$3 name=$4
	shift 4
	put $m/proc/irq/$n/smp_affinity_list "$aff"
	local line c
	line=$(printf '%4s:' $n)
	for c in "$@"; do line+=$(printf '%11s' $c); done
	printf '%s   %s\n' "$line" "$name" >>$m/proc/interrupts
}

# policy MACHINE N CPUS DRIVER GOVERNOR GOVERNORS MIN MAX HWMIN HWMAX CUR
policy() {
	local m=$1 p=$2 cpus=$3 driver=$4 gov=$5 govs=$6 min=$7 max=$8 hwmin=$9 hwmax=${10} cur=${11}
	local d=$m/sys/devices/system/cpu/cpufreq/policy$p c
	put $d/related_cpus "$cpus"
	put $d/affected_cpus "$cpus"
	put $d/scaling_driver "$driver"
	put $d/scaling_governor "$gov"
	put $d/scaling_available_governors "$govs"
	put $d/scaling_min_freq "$min"
	put $d/scaling_max_freq "$max"
	put $d/cpuinfo_min_freq "$hwmin"
	put $d/cpuinfo_max_freq "$hwmax"
	put $d/scaling_cur_freq "$cur"
	put $d/scaling_setspeed "<unsupported>"
	for c in $cpus; do ln -sfn ../cpufreq/policy$p $m/sys/devices/system/cpu/cpu$c/cpufreq; done
}

# idle MACHINE CPU NAME:LATENCY...: the CPU's idle states.
idle() {
	local m=$1 c=$2 i=0 s
	shift 2
	for s in "$@"; do
		local d=$m/sys/devices/system/cpu/cpu$c/cpuidle/state$i
		put $d/name "${s%%:*}"
		put $d/desc "${s%%:*}"
		put $d/latency "${s##*:}"
		put $d/disable 0
		i=$((i + 1))
	done
}

# An Intel laptop with intel_pstate in active mode: powersave with
# balance_performance, turbo on.
m=intel-pstate
rm -rf $m
common $m 4
put $m/sys/devices/system/cpu/intel_pstate/status active
put $m/sys/devices/system/cpu/intel_pstate/no_turbo 0
put $m/sys/devices/system/cpu/intel_pstate/max_perf_pct 100
put $m/sys/devices/system/cpu/intel_pstate/min_perf_pct 17
put $m/sys/devices/system/cpu/cpuidle/current_driver intel_idle
put $m/sys/devices/system/cpu/cpuidle/current_governor menu
for c in 0 1 2 3; do
	policy $m $c $c intel_pstate powersave "performance powersave" 800000 4700000 800000 4700000 1312000
	d=$m/sys/devices/system/cpu/cpufreq/policy$c
	put $d/base_frequency 2400000
	put $d/energy_performance_preference balance_performance
	put $d/energy_performance_available_preferences "default performance balance_performance balance_power power"
	put $m/sys/devices/system/cpu/cpu$c/power/energy_perf_bias 6
	idle $m $c POLL:0 C1:2 C1E:10 C6:92 C8:200
done
irq $m 0 0 "IO-APIC    2-edge      timer" 9 0 0 0
irq $m 8 0-3 "IO-APIC    8-edge      rtc0" 0 1 0 0
irq $m 9 0-3 "IO-APIC    9-fasteoi   acpi" 0 0 4411 0
irq $m 124 2 "PCI-MSI 327680-edge      xhci_hcd" 0 0 88120 0
irq $m 125 0-3 "PCI-MSIX-0000:02:00.0    0-edge      nvme0q0" 31 0 0 0
irq $m 131 3 "PCI-MSI 520192-edge      enp0s31f6" 0 0 0 99812
printf '%s\n' " NMI:          0          0          0          0   Non-maskable interrupts" \
	" LOC:     812345     700123     655321     901234   Local timer interrupts" \
	" ERR:          0" >>$m/proc/interrupts
mkdir -p $m/sys/class/thermal
put $m/sys/class/thermal/thermal_zone0/type x86_pkg_temp
put $m/sys/class/thermal/thermal_zone0/temp 52000
put $m/sys/class/thermal/cooling_device0/type Processor
put $m/sys/class/thermal/cooling_device0/cur_state 0
put $m/sys/class/thermal/cooling_device0/max_state 3

# A server with acpi-cpufreq, ondemand and boost on.
m=acpi-cpufreq
rm -rf $m
common $m 2
put $m/sys/devices/system/cpu/cpufreq/boost 1
put $m/sys/devices/system/cpu/cpuidle/current_driver acpi_idle
put $m/sys/devices/system/cpu/cpuidle/current_governor menu
for c in 0 1; do
	policy $m $c $c acpi-cpufreq ondemand "conservative ondemand userspace powersave performance schedutil" 1200000 3000000 1200000 3000000 1200000
	put $m/sys/devices/system/cpu/cpufreq/policy$c/scaling_available_frequencies "3000000 2400000 1800000 1200000"
	idle $m $c POLL:0 C1:1 C2:400
done
irq $m 0 0 "IO-APIC    2-edge      timer" 40 0
irq $m 4 0-1 "IO-APIC    4-edge      ttyS0" 0 12
irq $m 24 1 "PCI-MSI 65536-edge      eth0-TxRx-0" 0 77121

# An AMD desktop with amd-pstate in active (EPP) mode.
m=amd-pstate-epp
rm -rf $m
common $m 4
put $m/sys/devices/system/cpu/amd_pstate/status active
put $m/sys/devices/system/cpu/cpufreq/boost 1
put $m/sys/devices/system/cpu/cpuidle/current_driver acpi_idle
put $m/sys/devices/system/cpu/cpuidle/current_governor menu
for c in 0 1 2 3; do
	policy $m $c $c amd-pstate-epp powersave "performance powersave" 400000 5083000 400000 5083000 2881000
	d=$m/sys/devices/system/cpu/cpufreq/policy$c
	put $d/amd_pstate_nominal_freq 3800000
	put $d/amd_pstate_max_freq 5083000
	put $d/amd_pstate_lowest_nonlinear_freq 1100000
	put $d/energy_performance_preference balance_performance
	put $d/energy_performance_available_preferences "default performance balance_performance balance_power power"
	idle $m $c POLL:0 C1:1 C2:350
done
irq $m 0 0 "IO-APIC    2-edge      timer" 12 0 0 0
irq $m 58 1 "PCI-MSIX-0000:0c:00.0    1-edge      nvme0q1" 0 5521 0 0
irq $m 70 0-3 "PCI-MSI 1048576-edge      amdgpu" 0 0 0 1120

# An arm64 phone with three clusters (4 little, 3 big, 1 prime), each a
# cpufreq policy named after its first CPU, with a thermal governor's
# cooling devices on each.
m=phone-4-3-1
rm -rf $m
common $m 8
put $m/sys/devices/system/cpu/cpuidle/current_driver psci_idle
put $m/sys/devices/system/cpu/cpuidle/current_governor menu
policy $m 0 "0 1 2 3" qcom-cpufreq-hw schedutil "schedutil userspace powersave performance" 300000 1804800 300000 1804800 1036800
put $m/sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies "300000 691200 1036800 1420800 1804800"
policy $m 4 "4 5 6" qcom-cpufreq-hw schedutil "schedutil userspace powersave performance" 710400 2419200 710400 2419200 1555200
put $m/sys/devices/system/cpu/cpufreq/policy4/scaling_available_frequencies "710400 1555200 2112000 2419200"
policy $m 7 7 qcom-cpufreq-hw schedutil "schedutil userspace powersave performance" 844800 2841600 844800 2841600 844800
put $m/sys/devices/system/cpu/cpufreq/policy7/scaling_available_frequencies "844800 1670400 2419200 2841600"
for c in 0 1 2 3 4 5 6 7; do idle $m $c WFI:0 cpu-sleep-0:140 cluster-sleep-0:1600; done
irq $m 11 0-7 "GICv3  27 Level     arch_timer" 100 0 0 0 0 0 0 0
irq $m 208 0-7 "GICv3 130 Level     ufshcd" 0 0 0 0 0 0 0 9021
irq $m 230 7 "GICv3 232 Edge      kgsl-3d0" 0 0 0 0 0 0 0 40111
for z in 0 1 2; do
	put $m/sys/class/thermal/thermal_zone$z/type "cpu-$z-usr"
	put $m/sys/class/thermal/thermal_zone$z/temp $((41000 + z * 3000))
	put $m/sys/class/thermal/cooling_device$z/type "thermal-cpufreq-$z"
	put $m/sys/class/thermal/cooling_device$z/max_state 20
done
put $m/sys/class/thermal/cooling_device0/cur_state 0
put $m/sys/class/thermal/cooling_device1/cur_state 0
put $m/sys/class/thermal/cooling_device2/cur_state 3
