/* topology.c - choosing the target CPU as `corepin topo` does for "prime". */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long read_long(const char *sysfs, int cpu, const char *file)
{
	char path[256], buf[64];
	cp_snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/%s", sysfs, cpu, file);
	if (cp_read_file(path, buf, sizeof buf) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

int corepin_pick_target(const char *sysfs)
{
	char path[256], list[1024];
	corepin_cpuset allowed, online, siblings, seen;
	if (!sysfs)
		sysfs = "/sys";
	if (cp_getaffinity(0, &allowed) != 0)
		return -1;
	/* Without the online CPUs there is no tree to choose from: a sysfs
	 * that is not one (a wrong path) is a failure, not CPU 1. */
	cp_snprintf(path, sizeof path, "%s/devices/system/cpu/online", sysfs);
	if (cp_read_file(path, list, sizeof list) <= 0 || corepin_cpuset_parse(&online, list) != 0)
		return -1;
	for (int i = 0; i < COREPIN_CPU_WORDS; i++)
		allowed.w[i] &= online.w[i];
	corepin_cpuset_zero(&seen);
	int best = -1;
	long best_key[3] = {0, 0, 0};
	for (int c = 0; c < COREPIN_MAX_CPUS; c++) {
		if (!corepin_cpuset_has(&allowed, c) || corepin_cpuset_has(&seen, c))
			continue;
		/* one core: c and its SMT siblings; c is its first allowed thread */
		cp_snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list", sysfs, c);
		if (cp_read_file(path, list, sizeof list) > 0 && corepin_cpuset_parse(&siblings, list) == 0)
			for (int i = 0; i < COREPIN_CPU_WORDS; i++)
				seen.w[i] |= siblings.w[i];
		corepin_cpuset_add(&seen, c);
		long key[3] = {read_long(sysfs, c, "cpu_capacity"), read_long(sysfs, c, "acpi_cppc/highest_perf"),
			       read_long(sysfs, c, "cpufreq/cpuinfo_max_freq")};
		/* among equal cores the highest-numbered, away from CPU 0 */
		int better = best < 0;
		for (int k = 0; k < 3 && !better; k++) {
			if (key[k] != best_key[k]) {
				better = key[k] > best_key[k];
				break;
			}
			if (k == 2)
				better = 1;
		}
		if (better) {
			best = c;
			memcpy(best_key, key, sizeof key);
		}
	}
	return best;
}
