/* results.c - the evidence on the host: a results folder that `corepin
 * report` and `corepin compare` read as they read corepin's own
 * (run.json, summary.csv, bench.txt; schema corepin.run/v1), and the 1 Hz
 * per-CPU sampler writing corepin's telemetry CSV. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---- time ---- */

static void rfc3339(const struct timespec *t, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&t->tv_sec, &tm);
	char base[32];
	strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
	cp_snprintf(buf, len, "%s.%09ldZ", base, (long)t->tv_nsec);
}

/* ---- the sampler ---- */

#define MAX_SAMPLE_CPUS 512

struct corepin_sampler {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int stop, period_ms, samples, ncpus;
	FILE *f;
	corepin_cpuset target, avoid;
	struct timespec start;
	unsigned long long busy[MAX_SAMPLE_CPUS], total[MAX_SAMPLE_CPUS];
	int have_prev[MAX_SAMPLE_CPUS];
	double util_sum, freq_sum, freq_min, freq_max;
	int util_n, freq_n;
	char source[24];
	char note[200];
	char stat[65536]; /* /proc/stat, read once a sample */
};

static int read_freq(int cpu, double *mhz, const char **source)
{
	static const char *files[] = {"cpuinfo_avg_freq", "scaling_cur_freq", "cpuinfo_cur_freq"};
	char path[128], buf[32];
	for (int i = 0; i < 3; i++) {
		cp_snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, files[i]);
		if (cp_read_file(path, buf, sizeof buf) > 0) {
			long khz = strtol(buf, NULL, 10);
			if (khz > 0) {
				*mhz = (double)khz / 1000;
				*source = files[i];
				return 1;
			}
		}
	}
	*source = "none";
	return 0;
}

static void sample_cpus(corepin_sampler *s)
{
	char *stat = s->stat;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double t = (double)(now.tv_sec - s->start.tv_sec) + (double)(now.tv_nsec - s->start.tv_nsec) / 1e9;
	if (cp_read_file("/proc/stat", stat, sizeof s->stat) <= 0)
		return;
	s->samples++;
	for (char *line = stat; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		int cpu;
		unsigned long long v[10] = {0};
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5 ||
		    cpu < 0 || cpu >= MAX_SAMPLE_CPUS)
			continue;
		unsigned long long idle = v[3] + v[4], total = 0;
		for (int i = 0; i < 8; i++)
			total += v[i];
		unsigned long long busy = total - idle;
		char util[16] = "";
		if (s->have_prev[cpu] && total > s->total[cpu]) {
			double u = 100.0 * (double)(busy - s->busy[cpu]) / (double)(total - s->total[cpu]);
			cp_snprintf(util, sizeof util, "%.1f", u);
			if (corepin_cpuset_has(&s->target, cpu)) {
				s->util_sum += u;
				s->util_n++;
			}
		}
		s->busy[cpu] = busy;
		s->total[cpu] = total;
		s->have_prev[cpu] = 1;
		double mhz;
		const char *source;
		char freq[16] = "";
		if (read_freq(cpu, &mhz, &source)) {
			cp_snprintf(freq, sizeof freq, "%.1f", mhz);
			if (corepin_cpuset_has(&s->target, cpu)) {
				if (!s->freq_n || mhz < s->freq_min)
					s->freq_min = mhz;
				if (!s->freq_n || mhz > s->freq_max)
					s->freq_max = mhz;
				s->freq_sum += mhz;
				s->freq_n++;
				cp_snprintf(s->source, sizeof s->source, "%s", source);
			}
		}
		fprintf(s->f, "%.3f,%d,%s,%s,%s\n", t, cpu, util, freq, source);
	}
	fflush(s->f);
}

static void *sampler_main(void *arg)
{
	corepin_sampler *s = arg;
	corepin_cpuset mine;
	if (cp_getaffinity(getpid(), &mine) == 0) {
		for (int i = 0; i < COREPIN_CPU_WORDS; i++)
			mine.w[i] &= ~s->avoid.w[i];
		if (cp_cpuset_empty(&mine) || cp_setaffinity(0, &mine) != 0)
			cp_snprintf(s->note, sizeof s->note, "the sampler shares the measured CPUs: no allowed CPU lies off the target");
	}
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		pthread_mutex_unlock(&s->mu);
		sample_cpus(s);
		pthread_mutex_lock(&s->mu);
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += (long)(s->period_ms % 1000) * 1000000L;
		t.tv_sec += s->period_ms / 1000 + t.tv_nsec / 1000000000L;
		t.tv_nsec %= 1000000000L;
		while (!s->stop && pthread_cond_timedwait(&s->cond, &s->mu, &t) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&s->mu);
	sample_cpus(s); /* the end of the run */
	return NULL;
}

corepin_sampler *corepin_sampler_start(const char *csv_path, const corepin_cpuset *target, const corepin_cpuset *avoid, int period_ms)
{
	if (!csv_path)
		return NULL;
	corepin_sampler *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->f = fopen(csv_path, "w");
	if (!s->f) {
		free(s);
		return NULL;
	}
	fputs("t_s,cpu,util_pct,freq_mhz,freq_source\n", s->f);
	s->period_ms = period_ms > 0 ? period_ms : 1000;
	if (target)
		s->target = *target;
	if (avoid)
		s->avoid = *avoid;
	cp_snprintf(s->source, sizeof s->source, "none");
	clock_gettime(CLOCK_MONOTONIC, &s->start);
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
		fclose(s->f);
		free(s);
		return NULL;
	}
	return s;
}

static void opt_float(cp_buf *b, const char *key, int have, double v)
{
	cp_buf_printf(b, ",\"%s\":", key);
	if (have)
		cp_json_float(b, v);
	else
		cp_buf_put(b, "null");
}

int corepin_sampler_stop(corepin_sampler *s, char **stats_json)
{
	if (stats_json)
		*stats_json = NULL;
	if (!s)
		return COREPIN_ERR_INVALID;
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	fclose(s->f);
	int target_samples = 0;
	for (int c = 0; c < MAX_SAMPLE_CPUS; c++)
		if (corepin_cpuset_has(&s->target, c))
			target_samples += s->samples;
	if (stats_json) {
		cp_buf b;
		cp_buf_init(&b);
		cp_buf_printf(&b, "{\"samples\":%d,\"freq_source\":", target_samples);
		cp_json_str(&b, s->source);
		opt_float(&b, "freq_min_mhz", s->freq_n, s->freq_min);
		opt_float(&b, "freq_max_mhz", s->freq_n, s->freq_max);
		opt_float(&b, "freq_mean_mhz", s->freq_n, s->freq_n ? s->freq_sum / s->freq_n : 0);
		opt_float(&b, "util_mean_pct", s->util_n, s->util_n ? s->util_sum / s->util_n : 0);
		if (s->note[0]) {
			cp_buf_put(&b, ",\"notes\":[");
			cp_json_str(&b, s->note);
			cp_buf_put(&b, "]");
		}
		cp_buf_put(&b, "}");
		*stats_json = cp_buf_take(&b);
	}
	int n = s->samples;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cond);
	free(s);
	return n;
}

/* ---- the results writer ---- */

#define MAX_RUNS 256

typedef struct run_rec {
	char *bench, *summary, *check_what, *scheduling, *watch, *csv, *telemetry;
	double wall_s;
	int valid, check_ok;
	struct timespec started;
} run_rec;

struct corepin_results {
	char path[1024];
	char app[64];
	int exact_cpu, realtime;
	corepin_cpuset soft;
	char ladder[32];
	struct timespec started;
	run_rec runs[MAX_RUNS];
	int nruns;
};

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static void free_run(run_rec *x)
{
	free(x->bench);
	free(x->summary);
	free(x->check_what);
	free(x->scheduling);
	free(x->watch);
	free(x->csv);
	free(x->telemetry);
	memset(x, 0, sizeof *x);
}

/* app_name is the program's own name (its comm), the default name of the
 * app whose module wrote the results. */
static void app_name(char *buf, size_t len)
{
	if (cp_read_file("/proc/self/comm", buf, len) <= 0)
		cp_snprintf(buf, len, "app");
	buf[strcspn(buf, "\n")] = 0;
}

corepin_results *corepin_results_create(const char *base, int exact_cpu, const corepin_cpuset *soft, const char *ladder, int realtime)
{
	if (!base || !*base || exact_cpu < 0 || exact_cpu >= COREPIN_MAX_CPUS)
		return NULL;
	corepin_results *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	app_name(r->app, sizeof r->app);
	clock_gettime(CLOCK_REALTIME, &r->started);
	r->exact_cpu = exact_cpu;
	r->realtime = realtime;
	if (soft)
		r->soft = *soft;
	else
		corepin_cpuset_add(&r->soft, exact_cpu);
	cp_snprintf(r->ladder, sizeof r->ladder, "%s", ladder ? ladder : "geekbench");
	mkdir(base, 0755);
	char host[64] = "host", name[128], stamp[32];
	gethostname(host, sizeof host - 1);
	for (char *p = host; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_'))
			*p = '_';
	struct tm tm;
	gmtime_r(&r->started.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	cp_snprintf(name, sizeof name, "%s-%s", stamp, host);
	cp_snprintf(r->path, sizeof r->path, "%s/%s", base, name);
	for (int i = 2; mkdir(r->path, 0755) != 0; i++) {
		if (errno != EEXIST || i > 1000) {
			free(r);
			return NULL;
		}
		cp_snprintf(r->path, sizeof r->path, "%s/%s-%d", base, name, i);
	}
	char tel[1100];
	cp_snprintf(tel, sizeof tel, "%s/telemetry", r->path);
	if (mkdir(tel, 0755) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

const char *corepin_results_path(const corepin_results *r) { return r ? r->path : NULL; }

int corepin_results_set_app(corepin_results *r, const char *name)
{
	if (!r || !name || !*name)
		return COREPIN_ERR_INVALID;
	cp_snprintf(r->app, sizeof r->app, "%s", name);
	return COREPIN_OK;
}

/* json_or_null: a JSON argument may be NULL, and is otherwise one value. */
static int json_or_null(const char *text) { return !text || cp_json_valid(text); }

/* The bounds of a time, as corepin's results package has them
 * (results.MinTimeS, MaxTimeS): no clock reads less than a nanosecond, no
 * run lasts 10^9 s, and between them every ratio and spread of the times
 * is a finite number that report, compare and merge can relate. */
#define MIN_TIME_S 1e-9
#define MAX_TIME_S 1e9

/* The members of the sampler's stats (telemetry_json) as run.json's reader
 * types them: a value of another type would make the whole file unreadable. */
static const char *const telemetry_types[][2] = {
    {"samples", "int"},        {"freq_source", "str"},   {"freq_min_mhz", "num"}, {"freq_max_mhz", "num"},
    {"freq_mean_mhz", "num"}, {"util_mean_pct", "num"}, {"notes", "strs"},
};

int corepin_results_add_run(corepin_results *r, const char *benchmark, double wall_s, int valid, const char *summary, const char *check_what,
			    int check_ok, const char *scheduling_json, const char *watch_json, const char *telemetry_csv,
			    const char *telemetry_json)
{
	/* Refused before anything is kept: run.json must stay readable, and
	 * every figure in it a time (a wall of 1e300 s made the spread
	 * infinite). */
	if (!r || cp_name_problem(benchmark) || !(wall_s >= MIN_TIME_S && wall_s <= MAX_TIME_S) || !json_or_null(scheduling_json) ||
	    !json_or_null(watch_json) ||
	    (telemetry_json && !cp_json_typed(telemetry_json, telemetry_types, (int)(sizeof telemetry_types / sizeof telemetry_types[0]))))
		return COREPIN_ERR_INVALID;
	if (scheduling_json && scheduling_json[strspn(scheduling_json, " \t\r\n")] != '{')
		return COREPIN_ERR_INVALID; /* the report is an object */
	if (r->nruns == MAX_RUNS)
		return COREPIN_ERR_INVALID;
	run_rec *x = &r->runs[r->nruns++];
	x->bench = strdup(benchmark);
	x->summary = dup_or_null(summary);
	x->check_what = dup_or_null(check_what);
	x->scheduling = dup_or_null(scheduling_json);
	x->watch = dup_or_null(watch_json);
	x->csv = dup_or_null(telemetry_csv);
	x->telemetry = dup_or_null(telemetry_json);
	x->wall_s = wall_s;
	x->valid = valid;
	x->check_ok = check_ok;
	clock_gettime(CLOCK_REALTIME, &x->started);
	if (!x->bench || (summary && !x->summary) || (check_what && !x->check_what) || (scheduling_json && !x->scheduling) ||
	    (watch_json && !x->watch) || (telemetry_csv && !x->csv) || (telemetry_json && !x->telemetry)) {
		r->nruns--;
		free_run(x);
		return COREPIN_ERR_NOMEM;
	}
	return COREPIN_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef struct stats {
	int n;
	double median, min, max, cv;
} stats;

/* compute sorts t and summarises it as corepin does: median, min, max and
 * cv (standard deviation / mean). The times are within MIN_TIME_S and
 * MAX_TIME_S (add_run's door), so every figure is finite. */
static stats compute(double *t, int n)
{
	stats st = {n, 0, 0, 0, 0};
	if (n == 0)
		return st;
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	double mean = 0, var = 0;
	for (int i = 0; i < n; i++)
		mean += t[i] / n;
	for (int i = 0; i < n; i++)
		var += (t[i] - mean) * (t[i] - mean) / (n > 1 ? n - 1 : 1);
	st.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	st.min = t[0];
	st.max = t[n - 1];
	st.cv = mean > 0 && n > 1 ? sqrt(var) / mean : 0;
	return st;
}

/* The interval of the median is corepin's only below 6 runs (equal to the
 * median, confidence 0); above that the writer says it gives none. */
static void write_stats(cp_buf *b, stats st)
{
	cp_buf_printf(b, ",\"n\":%d,\"median_s\":", st.n);
	cp_json_float(b, st.median);
	cp_buf_put(b, ",\"ci_low_s\":");
	cp_json_float(b, st.median);
	cp_buf_put(b, ",\"ci_high_s\":");
	cp_json_float(b, st.median);
	cp_buf_put(b, ",\"ci_confidence\":0,\"min_s\":");
	cp_json_float(b, st.min);
	cp_buf_put(b, ",\"max_s\":");
	cp_json_float(b, st.max);
	cp_buf_put(b, ",\"cv\":");
	cp_json_float(b, st.cv);
	cp_buf_put(b, ",\"outliers\":[]");
}

/* The scheduling object of a run is launch.Report's: the session's report
 * with the watcher's result as "watch". */
static void write_scheduling(cp_buf *b, const run_rec *x)
{
	if (!x->scheduling) {
		cp_buf_put(b, "null");
		return;
	}
	size_t n = strlen(x->scheduling);
	while (n > 0 && x->scheduling[n - 1] != '}')
		n--;
	if (n == 0) {
		cp_buf_put(b, "null");
		return;
	}
	char *head = strndup(x->scheduling, n - 1);
	if (!head) {
		b->failed = 1;
		return;
	}
	cp_buf_put(b, head);
	free(head);
	cp_buf_put(b, ",\"command\":null,\"start\":\"thread\",\"child\":{\"pid\":0,\"exit_code\":null,\"signal\":null,\"wall_s\":0");
	cp_buf_put(b, ",\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":0,\"timed_out\":false,\"started\":false},\"watch\":");
	cp_buf_put(b, x->watch ? x->watch : "null");
	cp_buf_put(b, ",\"parent\":{\"cpus\":[],\"restored\":false}}");
}

/* csv_field writes a CSV field as Go's encoding/csv does: quoted, its
 * quotes doubled, when it holds a comma or a quote or starts with a space. */
static void csv_field(cp_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"") && s[0] != ' ') {
		cp_buf_put(b, s);
		return;
	}
	cp_buf_put(b, "\"");
	for (const char *p = s; *p; p++)
		cp_buf_put(b, *p == '"' ? "\"\"" : (char[]){*p, 0});
	cp_buf_put(b, "\"");
}

/* bench_name writes a name in the Go benchmark format as results.BenchName
 * does: "Benchmark", the first letter upper case, spaces as underscores
 * (the format's name is one field). add_run let in no control character. */
static void bench_name(cp_buf *b, const char *name)
{
	cp_buf_put(b, "Benchmark");
	for (const char *p = name; *p; p++) {
		char c = *p == ' ' ? '_' : p == name && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
		cp_buf_put(b, (char[]){c, 0});
	}
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[1200], tmp[1210];
	cp_snprintf(path, sizeof path, "%s/%s", dir, name);
	cp_snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int ok = fputs(text, f) >= 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int corepin_results_save(corepin_results *r)
{
	if (!r)
		return COREPIN_ERR_INVALID;
	struct timespec now;
	char t1[48], t2[48], cpus[256], host[256] = "", pol[8];
	(void)pol;
	clock_gettime(CLOCK_REALTIME, &now);
	rfc3339(&r->started, t1, sizeof t1);
	rfc3339(&now, t2, sizeof t2);
	struct utsname u;
	uname(&u);
	gethostname(host, sizeof host - 1);
	char model[256] = "";
	size_t cpuinfo_len = 1 << 20;
	char *cpuinfo = malloc(cpuinfo_len);
	if (cpuinfo && cp_read_file("/proc/cpuinfo", cpuinfo, cpuinfo_len) > 0) {
		char *p = strstr(cpuinfo, "model name");
		if (!p)
			p = strstr(cpuinfo, "Hardware");
		if (p && (p = strchr(p, ':'))) {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			size_t n = strcspn(p, "\n");
			if (n >= sizeof model)
				n = sizeof model - 1;
			memcpy(model, p, n);
		}
	}
	free(cpuinfo);
	char path[128], gov[64] = "", drv[64] = "";
	cp_snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", r->exact_cpu);
	cp_read_file(path, gov, sizeof gov);
	gov[strcspn(gov, "\n")] = 0;
	cp_snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver", r->exact_cpu);
	cp_read_file(path, drv, sizeof drv);
	drv[strcspn(drv, "\n")] = 0;

	cp_buf b;
	cp_buf_init(&b);
	cp_buf_printf(&b, "{\n  \"schema\": \"corepin.run/v1\",\n  \"started\": \"%s\",\n  \"finished\": \"%s\",\n  \"interrupted\": false,\n  \"host\": {\"hostname\":", t1,
		      t2);
	cp_json_str(&b, host);
	cp_buf_printf(&b, ",\"kernel\":");
	cp_json_str(&b, u.release);
	cp_buf_put(&b, ",\"cpu_model\":");
	cp_json_str(&b, model);
	cp_buf_put(&b, ",\"governor\":");
	cp_json_str(&b, gov);
	cp_buf_put(&b, ",\"cpufreq_driver\":");
	cp_json_str(&b, drv);
	/* no Go here: the toolchain that built the library takes its place */
	cp_buf_put(&b, ",\"go_version\":");
#ifdef __clang__
	cp_json_str(&b, "clang " __clang_version__);
#elif defined(__GNUC__)
	cp_json_str(&b, "gcc " __VERSION__);
#else
	cp_json_str(&b, "");
#endif
	cp_buf_put(&b, ",\"corepin_version\":\"native " COREPIN_VERSION "\"},\n  \"topology\": null,\n");
	cp_buf_printf(&b, "  \"target\": {\"spec\":\"%d\",\"mode\":\"exact\",\"exact_cpu\":%d,\"soft_cpus\":", r->exact_cpu, r->exact_cpu);
	cp_json_cpus(&b, &r->soft);
	cp_buf_printf(&b, ",\"why\":\"CPU %d was chosen by the app's native module\"},\n", r->exact_cpu);
	cp_buf_put(&b, "  \"options\": {\"app\":");
	cp_json_str(&b, r->app);
	cp_buf_printf(&b, ",\"quick\":false,\"runs\":%d,\"warmup\":0,\"isolation\":\"thread\",\"shuffle\":false,\"telemetry_period_s\":1,\"ladder\":", r->nruns);
	cp_json_str(&b, r->ladder);
	cp_buf_printf(&b, ",\"realtime\":%s},\n  \"benchmarks\": [", r->realtime ? "true" : "false");
	(void)cpus;

	cp_buf sum, bench;
	cp_buf_init(&sum);
	cp_buf_init(&bench);
	cp_buf_put(&sum, "name,valid,n,median_s,ci_low_s,ci_high_s,min_s,max_s,cv,reference_s,ratio,warnings\n");
	cp_buf_printf(&bench, "goos: linux\ncpu: %s\ncorepin-target: %d\ncorepin-mode: exact\ncorepin-isolation: thread\n", model, r->exact_cpu);
	int done[MAX_RUNS] = {0}, nb = 0;
	for (int i = 0; i < r->nruns; i++) {
		if (done[i])
			continue;
		const char *name = r->runs[i].bench;
		double times[MAX_RUNS];
		int n = 0, valid = 1;
		for (int j = i; j < r->nruns; j++)
			if (!strcmp(r->runs[j].bench, name)) {
				valid = valid && r->runs[j].valid && r->runs[j].check_ok;
				times[n++] = r->runs[j].wall_s;
			}
		cp_buf_printf(&b, "%s\n    {\"name\":", nb++ ? "," : "");
		cp_json_str(&b, name);
		cp_buf_printf(&b, ",\"kind\":\"native\",\"valid\":%s", valid ? "true" : "false");
		stats st = compute(times, n);
		write_stats(&b, st);
		cp_buf_put(&b, ",\"ratio\":null,\"warnings\":[");
		if (n >= 6)
			cp_buf_put(&b, "\"the native writer gives no interval of the median: ci_low_s and ci_high_s equal the median\"");
		cp_buf_put(&b, "],\"runs\":[");
		int k = 0;
		for (int j = i; j < r->nruns; j++) {
			run_rec *x = &r->runs[j];
			if (strcmp(x->bench, name) != 0)
				continue;
			done[j] = 1;
			char st[48];
			rfc3339(&x->started, st, sizeof st);
			cp_buf_printf(&b, "%s\n      {\"index\":%d,\"warmup\":false,\"wall_s\":", k ? "," : "", k);
			cp_json_float(&b, x->wall_s);
			cp_buf_printf(&b, ",\"user_s\":0,\"sys_s\":0,\"max_rss_kb\":0,\"valid\":%s", x->valid && x->check_ok ? "true" : "false");
			if (x->summary) {
				cp_buf_put(&b, ",\"summary\":");
				cp_json_str(&b, x->summary);
			}
			cp_buf_put(&b, ",\"checks\":[");
			if (x->check_what) {
				cp_buf_put(&b, "{\"what\":");
				cp_json_str(&b, x->check_what);
				cp_buf_printf(&b, ",\"passed\":%s}", x->check_ok ? "true" : "false");
			}
			cp_buf_put(&b, "],\"scheduling\":");
			write_scheduling(&b, x);
			cp_buf_put(&b, ",\"telemetry_csv\":");
			cp_json_str(&b, x->csv ? x->csv : "");
			cp_buf_printf(&b, ",\"telemetry\":%s", x->telemetry ? x->telemetry : "{\"samples\":0,\"freq_source\":\"none\",\"freq_min_mhz\":null,\"freq_max_mhz\":null,\"freq_mean_mhz\":null,\"util_mean_pct\":null}");
			cp_buf_printf(&b, ",\"started\":\"%s\"}", st);
			bench_name(&bench, name);
			cp_buf_printf(&bench, "\t1\t%.0f ns/op\n", x->wall_s * 1e9);
			k++;
		}
		cp_buf_put(&b, "]}");
		csv_field(&sum, name);
		cp_buf_printf(&sum, ",%s,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,0,,\n", valid ? "true" : "false", n, st.median, st.median, st.median,
			      st.min, st.max, st.cv);
	}
	cp_buf_put(&b, "\n  ],\n  \"score\": null,\n  \"warnings\": []\n}\n");
	char *run = cp_buf_take(&b), *s = cp_buf_take(&sum), *bt = cp_buf_take(&bench);
	int rc = -1;
	if (run && s && bt)
		rc = write_file(r->path, "run.json", run) | write_file(r->path, "summary.csv", s) | write_file(r->path, "bench.txt", bt);
	free(run);
	free(s);
	free(bt);
	return rc;
}

void corepin_results_close(corepin_results *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nruns; i++)
		free_run(&r->runs[i]);
	free(r);
}
