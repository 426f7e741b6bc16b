/* internal.h - what the library's files share: system calls, the JSON
 * buffer, the attribute type. Not part of the API. */
#ifndef COREPIN_INTERNAL_H
#define COREPIN_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "corepin_session.h"

/* struct sched_attr (include/uapi/linux/sched/types.h), VER1: 56 bytes. */
struct cp_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

#define CP_FLAG_RESET_ON_FORK 0x01ULL
#define CP_FLAG_KEEP_POLICY 0x08ULL
#define CP_FLAG_KEEP_PARAMS 0x10ULL
#define CP_FLAG_UTIL_CLAMP_MIN 0x20ULL
#define CP_FLAG_UTIL_CLAMP_MAX 0x40ULL
#define CP_UCLAMP_MAX 1024U
#define CP_UCLAMP_RESET 0xFFFFFFFFU

/* cp_attr is the part of sched_attr corepin uses (sched.Attr). */
typedef struct cp_attr {
	int policy, priority, nice;
	uint64_t flags, runtime, deadline, period;
	uint32_t util_min, util_max;
} cp_attr;

/* The system calls: each returns 0 or the errno, retrying EINTR. */
pid_t cp_gettid(void);
int cp_getattr(pid_t tid, cp_attr *a);
int cp_setattr(pid_t tid, const cp_attr *a);
int cp_setuclamp(pid_t tid, uint32_t min, uint32_t max, int reset_on_fork);
int cp_getaffinity(pid_t tid, corepin_cpuset *s);
int cp_setaffinity(pid_t tid, const corepin_cpuset *s);
int cp_getnice(pid_t tid, int *nice);
int cp_setnice(pid_t tid, int nice);
int cp_getcpu(int *cpu);
int cp_thread_cputime_ns(pid_t tid, uint64_t *ns);
int cp_tgkill(pid_t tid, int sig);

/* Names as corepin's Go code prints them. */
const char *cp_errno_name(int err);  /* "EPERM"; "" for 0 */
const char *cp_errno_text(int err);  /* "operation not permitted" */
const char *cp_policy_name(int policy, char *buf, size_t len);
int cp_policy_realtime(int policy);
int cp_policy_parse(const char *s, int *policy);
int cp_cpuset_equal(const corepin_cpuset *a, const corepin_cpuset *b);
int cp_cpuset_subset(const corepin_cpuset *a, const corepin_cpuset *b);
int cp_cpuset_empty(const corepin_cpuset *a);
int cp_cpuset_last(const corepin_cpuset *a);

/* Features decided once per process. */
int cp_uclamp_supported(void);

/* /proc/self/task/TID/stat: start time (ticks since boot), last CPU, CPU
 * ticks, name. 0 on success. */
typedef struct cp_taskstat {
	char comm[32];
	char state;
	uint64_t utime, stime, start;
	int processor;
} cp_taskstat;
int cp_read_taskstat(pid_t pid, pid_t tid, cp_taskstat *st);
int cp_parse_taskstat(const char *line, cp_taskstat *st);
/* schedstat: time on CPU, run-queue wait (ns), timeslices. */
int cp_read_schedstat(pid_t pid, pid_t tid, uint64_t *run_ns, uint64_t *wait_ns, uint64_t *slices);
int cp_read_file(const char *path, char *buf, size_t len);

/* A growing text buffer; on allocation failure it keeps failing and
 * cp_buf_take returns NULL. */
typedef struct cp_buf {
	char *p;
	size_t len, cap;
	int failed;
} cp_buf;
void cp_buf_init(cp_buf *b);
void cp_buf_put(cp_buf *b, const char *s);
void cp_buf_printf(cp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cp_buf_vprintf(cp_buf *b, const char *fmt, va_list ap);
char *cp_buf_take(cp_buf *b);
void cp_buf_free(cp_buf *b);
/* UTF-8: the code point at s and its length (-1, length 1, for a byte
 * that starts no valid sequence); why s cannot be a benchmark's name. */
long cp_utf8_next(const char *s, int *size);
const char *cp_name_problem(const char *s);
/* JSON pieces, read by Go's encoding/json as written. */
void cp_json_str(cp_buf *b, const char *s);
void cp_json_cpus(cp_buf *b, const corepin_cpuset *s);
void cp_json_float(cp_buf *b, double v);
/* cp_json_valid says whether text is exactly one JSON value (RFC 8259). */
int cp_json_valid(const char *text);
/* cp_json_typed says whether text is one JSON object whose members named
 * in types[i][0] are null or of the type types[i][1], as encoding/json
 * reads them into corepin's fields: "int" (digits that an int holds),
 * "num" (a number), "str" (a string), "strs" (an array of strings). Other
 * members may hold any value. */
int cp_json_typed(const char *text, const char *const (*types)[2], int ntypes);

/* Safe formatting into fixed buffers. */
void cp_snprintf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cp_syserr(char *buf, size_t len, const char *call, int err);

/* QoS (qos.c). */
const char *cp_qos_name(int level);
int cp_qos_parse(const char *s, int *level);
typedef struct cp_qos_get {
	int ok;      /* the getter answered */
	int known;   /* it reported a level */
	int level;
	int err;     /* errno of the call, when it had one */
	char msg[200];
} cp_qos_get;
int cp_qos_available(void);             /* a node or libqos.so */
const char *cp_qos_backend(void);       /* harmonyos-libqos or harmonyos-node */
void cp_qos_get_level(cp_qos_get *g);
int cp_qos_set(int level, char *msg, size_t len);   /* 0 or errno (-1 no errno) */
int cp_qos_leave(char *msg, size_t len);
/* Async-signal-safe: the node's ioctl for the calling thread. */
int cp_qos_node_apply_raw(int level);
int cp_qos_node_get_raw(int *level);
/* latency nice of the calling thread from /proc/thread-self/sched, when the
 * kernel shows it; 0 when it does not. */
int cp_latency_nice(int *v);

/* The acceptance rule (rule.c). */
#define CP_MAX_REQS 8
typedef struct cp_rule {
	char base[8];
	int nreqs;
	struct {
		char key[16], op[3], value[32];
	} reqs[CP_MAX_REQS];
} cp_rule;
int cp_rule_parse(const char *text, cp_rule *r, char *msg, size_t len);
void cp_rule_string(const cp_rule *r, char *buf, size_t len);

/* For tests (worker.c): a registration as it stands after its thread
 * ended and its TID went to another; the samples the maintenance thread
 * took so far. */
int cp_worker_register_as(pid_t tid, uint64_t start);
int cp_maintenance_samples(void);

/* For tests (worker.c): a registration as it stands after its thread
 * ended and its TID went to another; the samples the maintenance thread
 * took so far. */
int cp_worker_register_as(pid_t tid, uint64_t start);
int cp_maintenance_samples(void);

#endif
