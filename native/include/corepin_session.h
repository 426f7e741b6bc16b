/*
 * corepin_session.h - corepin's thread session for native code in an app.
 *
 * A session puts the calling thread - the one that does the work - on a
 * chosen CPU with the scheduling it asks for, proves it by reading
 * everything back, and restores what it found at the end. It is the C form
 * of corepin's Go package session, with the same order, the same traps and
 * the same report:
 *
 *   capture   affinity, policy, priority, nice, flags, uclamp, QoS
 *   request   affinity first, then the ladder of attributes, then QoS
 *   read back the effective mask, the CPU, the attributes, the QoS level
 *   accept    a rule over the report decides whether the work may run
 *   observe   read back only, at non-timed boundaries; refresh re-asserts
 *   finish    restore QoS, attributes, affinity, each verified
 *
 * A thread whose restore failed must not be reused: end it (return from
 * its start routine, or pthread_exit), and no new session begins in the
 * process until corepin_clear_taint() is called.
 *
 * Compute threads register with corepin_worker_enter()/_leave(); the
 * maintenance thread (corepin_maintenance_start) keeps them on target and
 * counts the same figures as corepin's watcher. The results writer makes a
 * folder that `corepin report` and `corepin compare` read on the host.
 *
 * Only libc is needed (pthreads and dlopen are part of it on glibc 2.34+,
 * bionic and musl; link -lpthread -ldl on older glibc).
 *
 * Threads
 *
 *   A session belongs to the thread that began it. observe, refresh and
 *   finish called from any other thread return COREPIN_ERR_WRONG_THREAD
 *   and change nothing, so the owner can still finish; accepted, tid,
 *   accepted_step and report_json only read and may be called from any
 *   thread that does not race with the owner's own calls on that session.
 *   A thread has at most one unfinished session: a second begin on it
 *   returns COREPIN_ERR_NESTED, whatever CPU it asks for. Sessions of
 *   different threads are independent and may run at once.
 *   corepin_session_free of an unfinished session finishes it on its own
 *   thread. Freed from another thread (a C++ ThreadSession destroyed
 *   there), it cannot be restored there: the owner keeps the session's
 *   scheduling, the process is tainted while it does (corepin_tainted
 *   says which thread), and the owner's next begin first puts back what
 *   the session found, so that it never captures the changed state as
 *   the original; the taint ends with it, or when the owner has ended.
 *   The taint (corepin_tainted, corepin_clear_taint) and the worker
 *   registry (corepin_worker_enter/_leave) are safe from any thread.
 *   There is one maintenance thread per process: start and stop it from
 *   one thread. A sampler and a results writer are not shared: each
 *   handle is used by one thread at a time.
 *
 * Misuse is refused before any change: a NULL where a pointer is needed,
 * a CPU that is not online or is outside the thread's allowed CPUs, a
 * nested session, a non-finite time or text that is not JSON where JSON
 * is asked for. A refusal changes nothing and taints nothing.
 */
#ifndef COREPIN_SESSION_H
#define COREPIN_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version; corepin_version() is the one it was built as,
 * which may differ from the header a program was compiled with. */
#define COREPIN_VERSION_MAJOR 0
#define COREPIN_VERSION_MINOR 4
#define COREPIN_VERSION_PATCH 0
#define COREPIN_VERSION "0.4.0"
#define COREPIN_VERSION_NUMBER (COREPIN_VERSION_MAJOR * 10000 + COREPIN_VERSION_MINOR * 100 + COREPIN_VERSION_PATCH)

/* Only the functions declared here are exported from the shared library;
 * the sources are built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define COREPIN_API __attribute__((visibility("default")))
#else
#define COREPIN_API
#endif

/* corepin_version returns COREPIN_VERSION as the library was built. */
COREPIN_API const char *corepin_version(void);

/* Masks hold up to 4096 CPUs. */
#define COREPIN_CPU_WORDS 64
#define COREPIN_MAX_CPUS (COREPIN_CPU_WORDS * 64)

typedef struct corepin_cpuset {
	uint64_t w[COREPIN_CPU_WORDS];
} corepin_cpuset;

COREPIN_API void corepin_cpuset_zero(corepin_cpuset *s);
COREPIN_API void corepin_cpuset_add(corepin_cpuset *s, int cpu);
COREPIN_API int corepin_cpuset_has(const corepin_cpuset *s, int cpu);
COREPIN_API int corepin_cpuset_count(const corepin_cpuset *s);
/* corepin_cpuset_parse reads a CPU list such as "0-3,6"; 0 on success. */
COREPIN_API int corepin_cpuset_parse(corepin_cpuset *s, const char *list);
/* corepin_cpuset_format writes the list form ("0-3,6"); returns buf. */
COREPIN_API char *corepin_cpuset_format(const corepin_cpuset *s, char *buf, size_t len);

/* Results of the calls that can fail. */
enum {
	COREPIN_OK = 0,
	COREPIN_ERR_INVALID = -1,        /* a bad option; see the message */
	COREPIN_ERR_TAINTED = -2,        /* an earlier restore failed */
	COREPIN_ERR_WRONG_THREAD = -3,   /* used from another thread */
	COREPIN_ERR_NOMEM = -4,
	COREPIN_ERR_NOT_ACCEPTED = -5,   /* the acceptance rule refused */
	COREPIN_ERR_RESTORE_FAILED = -6, /* end the thread */
	COREPIN_ERR_SYSTEM = -7,         /* a system call failed; errno kept */
	COREPIN_ERR_NESTED = -8          /* the thread already has an unfinished session */
};

/* Scheduling policies, the kernel's numbers. */
enum {
	COREPIN_SCHED_OTHER = 0,
	COREPIN_SCHED_FIFO = 1,
	COREPIN_SCHED_RR = 2,
	COREPIN_SCHED_BATCH = 3,
	COREPIN_SCHED_IDLE = 5,
	COREPIN_SCHED_DEADLINE = 6
};

/* QoS levels: OpenHarmony's QoS_Level numbers. */
enum {
	COREPIN_QOS_NONE = -1,
	COREPIN_QOS_BACKGROUND = 0,
	COREPIN_QOS_UTILITY = 1,
	COREPIN_QOS_DEFAULT = 2,
	COREPIN_QOS_USER_INITIATED = 3,
	COREPIN_QOS_DEADLINE_REQUEST = 4,
	COREPIN_QOS_USER_INTERACTIVE = 5
};

/* One rung of a ladder; has_* say which parts it asks for. A step with no
 * policy keeps the thread's own (a fair one) and asks for nice or uclamp. */
typedef struct corepin_step {
	int has_policy, policy, priority;
	int has_nice, nice;
	int has_uclamp;
	uint32_t uclamp_min, uclamp_max;
} corepin_step;

typedef enum corepin_mode { COREPIN_EXACT = 0, COREPIN_SOFT = 1 } corepin_mode;

typedef struct corepin_options {
	int cpu;                    /* the exact target CPU */
	const corepin_cpuset *cpus; /* the soft target group; NULL means {cpu} */
	corepin_mode mode;
	/* ladder: "geekbench" (also NULL), "spec" or "none"; or a custom
	 * ladder of nsteps steps named ladder when steps is not NULL. */
	const char *ladder;
	const corepin_step *steps;
	int nsteps;
	int allow_realtime;  /* ladder steps may ask for FIFO or RR */
	int qos;             /* COREPIN_QOS_NONE, or a level to request */
	const char *accept;  /* rule text as session.ParseRule; NULL is the mode's rule (exact or soft) */
} corepin_options;

/* corepin_options_init fills the defaults: exact, geekbench, no realtime,
 * no QoS, the mode's own rule. */
COREPIN_API void corepin_options_init(corepin_options *o, int cpu);

typedef struct corepin_session corepin_session;

/* corepin_session_begin captures the calling thread's state and makes the
 * requests. On COREPIN_OK *out holds the session; call
 * corepin_session_accepted before the work and corepin_session_finish at
 * the end, whatever happens in between. msg (may be NULL) receives why a
 * session did not begin. */
COREPIN_API int corepin_session_begin(const corepin_options *o, corepin_session **out, char *msg, size_t msglen);
COREPIN_API int corepin_session_accepted(const corepin_session *s);
COREPIN_API pid_t corepin_session_tid(const corepin_session *s);
/* The ladder step that held (1-based), 0 for none. */
COREPIN_API int corepin_session_accepted_step(const corepin_session *s);
/* corepin_session_observe reads back without asking for anything. */
COREPIN_API int corepin_session_observe(corepin_session *s);
/* corepin_session_refresh reads back and asks again for what drifted;
 * *reasserted (may be NULL) receives how many requests it made again. */
COREPIN_API int corepin_session_refresh(corepin_session *s, int *reasserted);
/* corepin_session_finish restores QoS, attributes and affinity, each
 * verified. COREPIN_OK, or COREPIN_ERR_RESTORE_FAILED: the thread is not as
 * it was; the process is tainted and the thread must end. Later calls
 * return the first result. */
COREPIN_API int corepin_session_finish(corepin_session *s);
/* corepin_session_report_json returns the scheduling report (docs/schema.md)
 * as a string to free(); NULL when out of memory. */
COREPIN_API char *corepin_session_report_json(const corepin_session *s);
/* corepin_session_free releases a session. One not finished is finished
 * first on its own thread (a failed restore taints, as finish does); from
 * another thread it is kept for its owner, whose next begin restores it
 * (see Threads above). */
COREPIN_API void corepin_session_free(corepin_session *s);

/* corepin_session_run runs fn(arg) on the calling thread under a session:
 * begin, the acceptance check, fn, finish. *report_json (may be NULL)
 * receives the report, to free(). Returns fn's result when it ran and the
 * restore held; COREPIN_ERR_NOT_ACCEPTED, COREPIN_ERR_RESTORE_FAILED (end
 * the thread now), or a begin error otherwise. */
COREPIN_API int corepin_session_run(const corepin_options *o, int (*fn)(corepin_session *, void *), void *arg,
			char **report_json, char *msg, size_t msglen);

/* The taint: after a failed restore, sessions are refused until cleared. */
COREPIN_API int corepin_tainted(char *why, size_t len);
COREPIN_API void corepin_clear_taint(void);

COREPIN_API const char *corepin_strerror(int code);

/* corepin_pick_target chooses the exact CPU the way `corepin topo` does for
 * "prime": the first hardware thread of the best physical core among the
 * CPUs this thread may use (capacity, then highest_perf, then maximum
 * frequency; among equal cores the highest-numbered, away from CPU 0's
 * housekeeping). sysfs is the root of /sys ("/sys" when NULL). -1 on
 * failure: sysfs has no devices/system/cpu/online, or no online CPU is
 * allowed. */
COREPIN_API int corepin_pick_target(const char *sysfs);

/* ---- compute threads and the maintenance thread ---- */

/* corepin_worker_enter registers the calling thread (TID and start time)
 * as a compute thread; corepin_worker_leave removes it, waiting for a
 * maintenance signal in flight to finish. 0 on success. */
COREPIN_API int corepin_worker_enter(void);
COREPIN_API void corepin_worker_leave(void);

typedef struct corepin_maintenance_options {
	int period_ms;          /* 100 when 0 */
	corepin_cpuset target;  /* the mask threads are kept on */
	int keep_attr;          /* keep policy/priority/nice below */
	int policy, priority, nice;
	int qos;                /* COREPIN_QOS_NONE, or the level to keep (signal path) */
	/* use_signal opts in to the directed-signal path: what only the thread
	 * itself can set (HarmonyOS QoS, and affinity or attributes where a
	 * request by TID is refused) is re-asserted by a handler that runs on
	 * the thread and makes only async-signal-safe system calls. */
	int use_signal;
	int signal_only;        /* re-assert everything through the signal (tests) */
	int signo;              /* SIGRTMIN+4 when 0 */
	corepin_cpuset avoid;   /* where the maintenance thread must not run (with SMT siblings) */
} corepin_maintenance_options;

COREPIN_API void corepin_maintenance_options_init(corepin_maintenance_options *o, const corepin_cpuset *target);
COREPIN_API int corepin_maintenance_start(const corepin_maintenance_options *o, char *msg, size_t msglen);
/* corepin_maintenance_stop ends the thread after a last look, drains the
 * signal path, and returns the watcher-shaped result (docs/schema.md
 * "watch") to free(). */
COREPIN_API char *corepin_maintenance_stop(void);

/* ---- evidence on the host ---- */

/* A 1 Hz per-CPU sampler writing corepin's telemetry CSV
 * (t_s,cpu,util_pct,freq_mhz,freq_source); it stays off avoid. */
typedef struct corepin_sampler corepin_sampler;
COREPIN_API corepin_sampler *corepin_sampler_start(const char *csv_path, const corepin_cpuset *target,
				       const corepin_cpuset *avoid, int period_ms);
/* Stops and writes the summary fields of run.json's "telemetry" object
 * into *stats_json (to free()); returns the number of samples. */
COREPIN_API int corepin_sampler_stop(corepin_sampler *s, char **stats_json);

/* The results writer: a folder DIR/<timestamp>-<host>/ with run.json,
 * summary.csv and bench.txt that `corepin report` reads. */
typedef struct corepin_results corepin_results;
COREPIN_API corepin_results *corepin_results_create(const char *base, int exact_cpu, const corepin_cpuset *soft,
					const char *ladder, int realtime);
/* corepin_results_set_app names the app in run.json (options.app; the
 * program's name when not called). Its benchmarks are of kind "native". */
COREPIN_API int corepin_results_set_app(corepin_results *r, const char *name);
/* The folder's path, valid until corepin_results_close. */
COREPIN_API const char *corepin_results_path(const corepin_results *r);
/* Adds one run of a benchmark. scheduling_json is a session report (or
 * NULL), watch_json a maintenance result (or NULL), telemetry_csv the
 * sampler's file relative to the folder and telemetry_json its stats (or
 * NULL). check_what/check_ok is the output check. COREPIN_OK, or
 * COREPIN_ERR_INVALID with nothing kept, so that run.json always reads
 * and every figure in it is a number: wall_s is not a time from 1 ns to
 * 10^9 s (corepin relates no other: not finite, not positive, or a value
 * whose spread or ratio overflows); benchmark is NULL, empty, not UTF-8,
 * or holds a control character (a newline, an ESC) or a bidi control; a
 * JSON argument is not one JSON value, holds a number no double holds
 * (1e999), or is not an object where one is asked for (the report, and the
 * stats, whose members must be of corepin_sampler_stop's types);
 * COREPIN_ERR_NOMEM. Strings are written to run.json as JSON escapes of
 * their UTF-8 (a byte that is not UTF-8 as U+FFFD). */
COREPIN_API int corepin_results_add_run(corepin_results *r, const char *benchmark, double wall_s, int valid,
			    const char *summary, const char *check_what, int check_ok,
			    const char *scheduling_json, const char *watch_json,
			    const char *telemetry_csv, const char *telemetry_json);
/* Writes the files; 0 on success. The handle stays valid until close. */
COREPIN_API int corepin_results_save(corepin_results *r);
COREPIN_API void corepin_results_close(corepin_results *r);

#ifdef __cplusplus
}
#endif
#endif
