/* sys.c - the system calls, the names corepin prints, masks, /proc
 * readers and the JSON buffer. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

pid_t cp_gettid(void) { return (pid_t)syscall(SYS_gettid); }

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

/* retry repeats a call interrupted by a signal, as corepin's Go wrappers
 * do; it turns -1/errno into the errno. */
#define CP_RETRY(call)                                                                             \
	do {                                                                                       \
		for (;;) {                                                                         \
			if ((call) == 0)                                                           \
				return 0;                                                          \
			if (errno != EINTR)                                                        \
				return errno;                                                      \
		}                                                                                  \
	} while (0)

int cp_getattr(pid_t tid, cp_attr *a)
{
	struct cp_sched_attr k;
	for (;;) {
		memset(&k, 0, sizeof k);
		if (syscall(SYS_sched_getattr, tid, &k, (unsigned)sizeof k, 0) == 0)
			break;
		if (errno != EINTR)
			return errno;
	}
	a->policy = (int)k.sched_policy;
	a->priority = (int)k.sched_priority;
	a->nice = k.sched_nice;
	a->flags = k.sched_flags;
	a->runtime = k.sched_runtime;
	a->deadline = k.sched_deadline;
	a->period = k.sched_period;
	a->util_min = k.sched_util_min;
	a->util_max = k.sched_util_max;
	return 0;
}

int cp_setattr(pid_t tid, const cp_attr *a)
{
	struct cp_sched_attr k;
	memset(&k, 0, sizeof k);
	k.size = sizeof k;
	k.sched_policy = (uint32_t)a->policy;
	k.sched_flags = a->flags;
	k.sched_nice = a->nice;
	k.sched_priority = (uint32_t)a->priority;
	k.sched_runtime = a->runtime;
	k.sched_deadline = a->deadline;
	k.sched_period = a->period;
	k.sched_util_min = a->util_min;
	k.sched_util_max = a->util_max;
	CP_RETRY(syscall(SYS_sched_setattr, tid, &k, 0));
}

/* cp_setuclamp changes only the clamp (KEEP_ALL): a kernel without uclamp
 * refuses a request that combines it with anything else as a whole. */
int cp_setuclamp(pid_t tid, uint32_t min, uint32_t max, int reset_on_fork)
{
	cp_attr a;
	memset(&a, 0, sizeof a);
	a.flags = CP_FLAG_KEEP_POLICY | CP_FLAG_KEEP_PARAMS | CP_FLAG_UTIL_CLAMP_MIN | CP_FLAG_UTIL_CLAMP_MAX;
	if (reset_on_fork)
		a.flags |= CP_FLAG_RESET_ON_FORK;
	a.util_min = min;
	a.util_max = max;
	return cp_setattr(tid, &a);
}

int cp_getaffinity(pid_t tid, corepin_cpuset *s)
{
	corepin_cpuset_zero(s);
	for (;;) {
		long n = syscall(SYS_sched_getaffinity, tid, sizeof s->w, s->w);
		if (n >= 0)
			return 0;
		if (errno != EINTR)
			return errno;
	}
}

int cp_setaffinity(pid_t tid, const corepin_cpuset *s)
{
	CP_RETRY(syscall(SYS_sched_setaffinity, tid, sizeof s->w, s->w));
}

/* getpriority's raw system call returns 20-nice; libc's wrapper returns the
 * nice value itself, with -1 both a value and an error. */
int cp_getnice(pid_t tid, int *nice)
{
	errno = 0;
	int v = getpriority(PRIO_PROCESS, (id_t)tid);
	if (v == -1 && errno != 0)
		return errno;
	*nice = v;
	return 0;
}

int cp_setnice(pid_t tid, int nice) { CP_RETRY(setpriority(PRIO_PROCESS, (id_t)tid, nice)); }

int cp_getcpu(int *cpu)
{
	unsigned c = 0, node = 0;
	if (syscall(SYS_getcpu, &c, &node, NULL) != 0)
		return errno;
	*cpu = (int)c;
	return 0;
}

/* A thread's CPU clock: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED). */
int cp_thread_cputime_ns(pid_t tid, uint64_t *ns)
{
	clockid_t clock = tid == 0 ? CLOCK_THREAD_CPUTIME_ID : (clockid_t)((~(unsigned)tid << 3) | 6);
	struct timespec ts;
	if (clock_gettime(clock, &ts) != 0)
		return errno;
	*ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

/* cp_tgkill with signal 0 tells whether tid is still a thread of this
 * process: a TID that left the process, or was never in it, fails. */
int cp_tgkill(pid_t tid, int sig)
{
	if (syscall(SYS_tgkill, getpid(), tid, sig) != 0)
		return errno;
	return 0;
}

/* The errnos the scheduler calls return, named and worded as corepin's Go
 * code prints them (golang.org/x/sys/unix), so that the two reports agree. */
static const struct {
	int num;
	const char *name, *text;
} errnos[] = {
    {EPERM, "EPERM", "operation not permitted"},
    {ENOENT, "ENOENT", "no such file or directory"},
    {ESRCH, "ESRCH", "no such process"},
    {EINTR, "EINTR", "interrupted system call"},
    {E2BIG, "E2BIG", "argument list too long"},
    {EAGAIN, "EAGAIN", "resource temporarily unavailable"},
    {ENOMEM, "ENOMEM", "cannot allocate memory"},
    {EACCES, "EACCES", "permission denied"},
    {EFAULT, "EFAULT", "bad address"},
    {EBUSY, "EBUSY", "device or resource busy"},
    {ENODEV, "ENODEV", "no such device"},
    {EINVAL, "EINVAL", "invalid argument"},
    {ENOTTY, "ENOTTY", "inappropriate ioctl for device"},
    {ENOSYS, "ENOSYS", "function not implemented"},
    {EOPNOTSUPP, "EOPNOTSUPP", "operation not supported"},
};

const char *cp_errno_name(int err)
{
	if (err == 0)
		return "";
	for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
		if (errnos[i].num == err)
			return errnos[i].name;
	return "";
}

const char *cp_errno_text(int err)
{
	for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
		if (errnos[i].num == err)
			return errnos[i].text;
	return strerror(err);
}

void cp_syserr(char *buf, size_t len, const char *call, int err)
{
	cp_snprintf(buf, len, "%s: %s", call, cp_errno_text(err));
}

void cp_snprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	(void)n; /* a cut message is still a message */
}

const char *cp_policy_name(int policy, char *buf, size_t len)
{
	static const char *names[] = {"other", "fifo", "rr", "batch", NULL, "idle", "deadline", "ext"};
	if (policy >= 0 && policy < 8 && names[policy])
		return names[policy];
	cp_snprintf(buf, len, "policy%d", policy);
	return buf;
}

/* cp_policy_parse reads a policy name as sched.ParsePolicy does: other
 * (or normal), fifo, rr, batch, idle, deadline, ext; any case. */
int cp_policy_parse(const char *s, int *policy)
{
	char t[16], buf[16];
	size_t n = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s && n + 1 < sizeof t; s++)
		t[n++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	t[n] = 0;
	if (!strcmp(t, "normal")) {
		*policy = COREPIN_SCHED_OTHER;
		return 0;
	}
	for (int p = 0; p < 8; p++) {
		const char *name = cp_policy_name(p, buf, sizeof buf);
		if (strncmp(name, "policy", 6) != 0 && !strcmp(t, name)) {
			*policy = p;
			return 0;
		}
	}
	return -1;
}

int cp_policy_realtime(int policy) { return policy == COREPIN_SCHED_FIFO || policy == COREPIN_SCHED_RR; }

/* ---- masks ---- */

/* A NULL set is empty and cannot be added to: the mask functions never
 * crash on one. */
void corepin_cpuset_zero(corepin_cpuset *s)
{
	if (s)
		memset(s, 0, sizeof *s);
}

void corepin_cpuset_add(corepin_cpuset *s, int cpu)
{
	if (s && cpu >= 0 && cpu < COREPIN_MAX_CPUS)
		s->w[cpu / 64] |= 1ULL << (cpu % 64);
}

int corepin_cpuset_has(const corepin_cpuset *s, int cpu)
{
	return s && cpu >= 0 && cpu < COREPIN_MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

int corepin_cpuset_count(const corepin_cpuset *s)
{
	int n = 0;
	for (int i = 0; s && i < COREPIN_CPU_WORDS; i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

int cp_cpuset_equal(const corepin_cpuset *a, const corepin_cpuset *b) { return memcmp(a, b, sizeof *a) == 0; }

int cp_cpuset_subset(const corepin_cpuset *a, const corepin_cpuset *b)
{
	for (int i = 0; i < COREPIN_CPU_WORDS; i++)
		if (a->w[i] & ~b->w[i])
			return 0;
	return 1;
}

int cp_cpuset_empty(const corepin_cpuset *a) { return corepin_cpuset_count(a) == 0; }

int cp_cpuset_last(const corepin_cpuset *a)
{
	for (int c = COREPIN_MAX_CPUS - 1; c >= 0; c--)
		if (corepin_cpuset_has(a, c))
			return c;
	return -1;
}

/* cpu_number reads the digits at *p (no sign, no space) as a CPU number. */
static int cpu_number(const char **p, long *v)
{
	const char *q = *p;
	long n = 0;
	if (*q < '0' || *q > '9')
		return -1;
	for (; *q >= '0' && *q <= '9'; q++) {
		n = n * 10 + (*q - '0');
		if (n >= COREPIN_MAX_CPUS)
			return -1;
	}
	*p = q;
	*v = n;
	return 0;
}

/* corepin_cpuset_parse reads the kernel's list form ("0-3,8-11", as in
 * /sys/devices/system/cpu/online), surrounding white space allowed. */
int corepin_cpuset_parse(corepin_cpuset *s, const char *list)
{
	if (!s || !list)
		return -1;
	corepin_cpuset_zero(s);
	const char *p = list;
	while (is_space(*p))
		p++;
	if (*p == 0)
		return 0;
	for (;;) {
		long a, b;
		if (cpu_number(&p, &a) != 0)
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (cpu_number(&p, &b) != 0 || b < a)
				return -1;
		}
		for (long c = a; c <= b; c++)
			corepin_cpuset_add(s, (int)c);
		if (*p == ',') {
			p++;
			continue;
		}
		while (is_space(*p))
			p++;
		return *p == 0 ? 0 : -1;
	}
}

char *corepin_cpuset_format(const corepin_cpuset *s, char *buf, size_t len)
{
	size_t used = 0;
	if (!buf || len == 0)
		return buf;
	buf[0] = 0;
	if (!s)
		return buf;
	for (int c = 0; c < COREPIN_MAX_CPUS;) {
		if (!corepin_cpuset_has(s, c)) {
			c++;
			continue;
		}
		int e = c;
		while (e + 1 < COREPIN_MAX_CPUS && corepin_cpuset_has(s, e + 1))
			e++;
		int n = e > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, e)
			      : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
		c = e + 1;
	}
	return buf;
}

/* ---- /proc ---- */

int cp_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t used = 0;
	while (used + 1 < len) {
		ssize_t n = read(fd, buf + used, len - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = 0;
	return (int)used;
}

/* cp_parse_taskstat reads a stat line as corepin's watcher does
 * (watch.ParseTaskStat): the name sits between the first "(" and the last
 * ")", and may itself hold spaces and parentheses; 37 fields follow it;
 * the state is one character; fields 14, 15, 22 and 39 are numbers. */
int cp_parse_taskstat(const char *line, cp_taskstat *st)
{
	memset(st, 0, sizeof *st);
	const char *open = strchr(line, '(');
	const char *close = strrchr(line, ')');
	if (!open || !close || close < open)
		return -1;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof st->comm)
		n = sizeof st->comm - 1;
	memcpy(st->comm, open + 1, n);
	st->comm[n] = 0;
	/* field 3 (state) follows the name; field N is the (N-3)th after it */
	const char *p = close + 1;
	for (int field = 3; field <= 39; field++) {
		while (is_space(*p))
			p++;
		if (*p == 0)
			return -1;
		const char *end = p;
		while (*end && !is_space(*end))
			end++;
		size_t len = (size_t)(end - p);
		if (field == 3) {
			if (len != 1)
				return -1;
			st->state = *p;
		} else if (field == 14 || field == 15 || field == 22 || field == 39) {
			unsigned long long v = 0;
			for (const char *q = p; q < end; q++) {
				unsigned d = (unsigned)(*q - '0');
				if (*q < '0' || *q > '9' || v > (~0ULL - d) / 10)
					return -1;
				v = v * 10 + d;
			}
			switch (field) {
			case 14: st->utime = v; break;
			case 15: st->stime = v; break;
			case 22: st->start = v; break;
			default: st->processor = (int)v; break;
			}
		}
		p = end;
	}
	return 0;
}

int cp_read_taskstat(pid_t pid, pid_t tid, cp_taskstat *st)
{
	char path[64], line[1024];
	cp_snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (cp_read_file(path, line, sizeof line) <= 0)
		return -1;
	return cp_parse_taskstat(line, st);
}

int cp_read_schedstat(pid_t pid, pid_t tid, uint64_t *run_ns, uint64_t *wait_ns, uint64_t *slices)
{
	char path[64], line[128];
	cp_snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (cp_read_file(path, line, sizeof line) <= 0)
		return -1;
	unsigned long long a, b, c;
	if (sscanf(line, "%llu %llu %llu", &a, &b, &c) != 3)
		return -1;
	*run_ns = a;
	*wait_ns = b;
	*slices = c;
	return 0;
}

/* ---- features decided once ---- */

static int uclamp_state = -1;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

static void *probe_uclamp(void *arg)
{
	*(int *)arg = cp_setuclamp(0, 0, CP_UCLAMP_MAX, 0);
	return NULL;
}

static void decide_features(void)
{
	struct stat st;
	pthread_t t;
	if (stat("/proc/sys/kernel/sched_util_clamp_min", &st) == 0) {
		uclamp_state = 1;
	} else if (stat("/proc/sys/kernel/pid_max", &st) == 0) {
		uclamp_state = 0;
	} else {
		int err = -1;
		if (pthread_create(&t, NULL, probe_uclamp, &err) == 0)
			pthread_join(t, NULL);
		uclamp_state = err == 0;
	}
}

/* cp_uclamp_supported: the kernel creates sched_util_clamp_min exactly when
 * it has uclamp; a read-back of 0/0 cannot tell. */
int cp_uclamp_supported(void)
{
	pthread_once(&features_once, decide_features);
	return uclamp_state == 1;
}

/* ---- buffer and JSON ---- */

void cp_buf_init(cp_buf *b) { memset(b, 0, sizeof *b); }

static void grow(cp_buf *b, size_t need)
{
	if (b->failed || b->len + need + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 1024;
	while (cap < b->len + need + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->failed = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

void cp_buf_put(cp_buf *b, const char *s)
{
	size_t n = strlen(s);
	grow(b, n);
	if (b->failed)
		return;
	memcpy(b->p + b->len, s, n + 1);
	b->len += n;
}

void cp_buf_vprintf(cp_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	grow(b, (size_t)n);
	if (b->failed)
		return;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void cp_buf_printf(cp_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cp_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *cp_buf_take(cp_buf *b)
{
	if (b->failed || !b->p) {
		free(b->p);
		cp_buf_init(b);
		return NULL;
	}
	char *p = b->p;
	cp_buf_init(b);
	return p;
}

void cp_buf_free(cp_buf *b)
{
	free(b->p);
	cp_buf_init(b);
}

/* cp_utf8_next decodes the UTF-8 sequence at p: the code point, and in
 * *size its length; -1 (size 1) for a byte that starts no valid sequence
 * (an overlong form, a surrogate, beyond U+10FFFF, a cut sequence). */
long cp_utf8_next(const char *s, int *size)
{
	const unsigned char *p = (const unsigned char *)s;
	static const long min[] = {0, 0, 0x80, 0x800, 0x10000};
	int n = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	*size = 1;
	if (n == 1)
		return p[0];
	if (n == 0)
		return -1;
	long r = p[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		r = r << 6 | (p[i] & 0x3f);
	}
	if (r < min[n] || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff))
		return -1;
	*size = n;
	return r;
}

/* cp_json_str writes a string that decodes, as encoding/json reads it, to
 * the same text, in ASCII alone: every other character as a \u escape
 * (a pair above U+FFFF), a byte that is not UTF-8 as U+FFFD, as
 * encoding/json writes it, and the HTML characters as \u003c, \u003e,
 * \u0026. Nothing in the file is a control a terminal would obey. */
void cp_json_str(cp_buf *b, const char *s)
{
	char tmp[16];
	cp_buf_put(b, "\"");
	for (const char *p = s; *p;) {
		int size;
		long r = cp_utf8_next(p, &size);
		p += size;
		switch (r) {
		case '"': cp_buf_put(b, "\\\""); continue;
		case '\\': cp_buf_put(b, "\\\\"); continue;
		case '\n': cp_buf_put(b, "\\n"); continue;
		case '\r': cp_buf_put(b, "\\r"); continue;
		case '\t': cp_buf_put(b, "\\t"); continue;
		}
		if (r < 0)
			r = 0xfffd;
		if (r >= 0x20 && r < 0x7f && r != '<' && r != '>' && r != '&') {
			tmp[0] = (char)r;
			tmp[1] = 0;
		} else if (r > 0xffff) {
			r -= 0x10000;
			cp_snprintf(tmp, sizeof tmp, "\\u%04lx\\u%04lx", 0xd800 + (r >> 10), 0xdc00 + (r & 0x3ff));
		} else {
			cp_snprintf(tmp, sizeof tmp, "\\u%04lx", r);
		}
		cp_buf_put(b, tmp);
	}
	cp_buf_put(b, "\"");
}

/* cp_name_problem says why s cannot be a benchmark's name, NULL when it
 * can: a name is one line of text, written as it is into summary.csv and
 * bench.txt, so it is valid UTF-8 without a control character (C0, DEL,
 * C1: a newline would split a row, an ESC would act on the terminal that
 * shows it) or a character that reorders or hides text (bidi controls,
 * the line and paragraph separators). */
const char *cp_name_problem(const char *s)
{
	if (!s || !*s)
		return "the name is empty";
	for (const char *p = s; *p;) {
		int size;
		long r = cp_utf8_next(p, &size);
		p += size;
		if (r < 0)
			return "the name is not valid UTF-8";
		if (r < 0x20 || (r >= 0x7f && r < 0xa0))
			return "the name holds a control character";
		if (r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x2028 && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069))
			return "the name holds a character that reorders or separates text";
	}
	return NULL;
}

void cp_json_cpus(cp_buf *b, const corepin_cpuset *s)
{
	cp_buf_put(b, "[");
	int first = 1;
	for (int c = 0; c < COREPIN_MAX_CPUS; c++) {
		if (!corepin_cpuset_has(s, c))
			continue;
		cp_buf_printf(b, first ? "%d" : ",%d", c);
		first = 0;
	}
	cp_buf_put(b, "]");
}

/* cp_json_float writes a number with the shortest form that reads back
 * the same, near what encoding/json writes. */
void cp_json_float(cp_buf *b, double v)
{
	char tmp[32];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	cp_buf_put(b, tmp);
}

/* ---- checking JSON from the caller ----
 *
 * The results writer splices the caller's JSON (a session report, a
 * maintenance result, the sampler's stats) into run.json as it is, so
 * text that is not one JSON value would make the whole file unreadable.
 * This is RFC 8259's grammar, strict: no NaN or Infinity, no trailing
 * text, nesting at most 64 deep. */

static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static const char *json_string(const char *p)
{
	for (p++; *p != '"'; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20)
			return NULL; /* includes the end of the text */
		if (c != '\\')
			continue;
		p++;
		if (*p == 'u') {
			for (int i = 1; i <= 4; i++)
				if (!is_hex(p[i]))
					return NULL;
			p += 4;
		} else if (*p == 0 || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *json_digits(const char *p)
{
	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

/* json_number reads a number; one a double cannot hold (1e999) is
 * refused, as encoding/json refuses it. */
static const char *json_number(const char *p)
{
	const char *start = p;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (!(p = json_digits(p)))
		return NULL;
	if (*p == '.' && !(p = json_digits(p + 1)))
		return NULL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(p = json_digits(p)))
			return NULL;
	}
	return isfinite(strtod(start, NULL)) ? p : NULL;
}

/* json_list reads the members of an object (obj) or the elements of an
 * array after its opening bracket, up to and past the closing one. */
static const char *json_list(const char *p, int depth, int obj)
{
	char close = obj ? '}' : ']';
	p = json_ws(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (obj) {
			if (*p != '"' || !(p = json_string(p)))
				return NULL;
			p = json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		if (!(p = json_value(p, depth + 1)))
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
		p = json_ws(p);
	}
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 64)
		return NULL;
	p = json_ws(p);
	switch (*p) {
	case '{': return json_list(p + 1, depth, 1);
	case '[': return json_list(p + 1, depth, 0);
	case '"': return json_string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	}
	return json_number(p);
}

int cp_json_valid(const char *text)
{
	const char *end = text ? json_value(text, 0) : NULL;
	return end && *json_ws(end) == 0;
}

/* json_is says whether the value from v to end is of type t, or null
 * (see cp_json_typed). */
static int json_is(const char *v, const char *end, const char *t)
{
	if (!strncmp(v, "null", 4))
		return 1; /* encoding/json leaves the field as it was */
	if (!strcmp(t, "str"))
		return *v == '"';
	if (!strcmp(t, "num"))
		return *v == '-' || (*v >= '0' && *v <= '9');
	if (!strcmp(t, "int")) {
		/* digits alone, as encoding/json reads an int: no sign, point or exponent */
		if (end - v > 9)
			return 0;
		for (const char *q = v; q < end; q++)
			if (*q < '0' || *q > '9')
				return 0;
		return end > v;
	}
	if (!strcmp(t, "strs")) {
		const char *q = json_ws(v + 1);
		if (*v != '[')
			return 0;
		while (*q == '"') {
			q = json_ws(json_string(q));
			if (*q == ',')
				q = json_ws(q + 1);
		}
		return *q == ']';
	}
	return 0;
}

int cp_json_typed(const char *text, const char *const (*types)[2], int ntypes)
{
	if (!cp_json_valid(text))
		return 0;
	const char *p = json_ws(text);
	if (*p != '{')
		return 0;
	p = json_ws(p + 1);
	while (*p == '"') {
		const char *key = p + 1, *after = json_string(p);
		size_t klen = (size_t)(after - 1 - key);
		p = json_ws(json_ws(after) + 1); /* past the colon */
		const char *end = json_value(p, 1);
		for (int i = 0; i < ntypes; i++)
			if (strlen(types[i][0]) == klen && !strncmp(types[i][0], key, klen) && !json_is(p, end, types[i][1]))
				return 0;
		p = json_ws(end);
		if (*p == ',')
			p = json_ws(p + 1);
	}
	return 1;
}
