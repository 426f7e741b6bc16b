/* worker.c - compute threads and the maintenance thread.
 *
 * A compute thread registers itself (corepin_worker_enter) with its TID
 * and its start time, since the kernel reuses TIDs. The maintenance thread
 * looks at every registered thread once a period, from a CPU off the
 * target: CPU time, the CPU it last ran on, its run-queue wait, its mask
 * and attributes. What drifted it asks for again by TID, after checking the
 * thread's start time once more, so that a reused TID is never taken for
 * the old thread. What only the thread can set for itself (HarmonyOS QoS;
 * affinity or attributes where a request by TID is refused) goes through
 * an opt-in directed signal: the maintenance thread queues it to the TID
 * with the slot's number and generation, and the handler on the thread
 * checks both, then makes only async-signal-safe system calls (no locks,
 * no allocation, no logging, no QoS library). A leaving thread blocks the
 * signal and drains what is pending; stopping the maintenance waits for
 * every signal sent to be handled before the handler is removed. */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 256
#define CLOCK_TICK 100 /* USER_HZ */

enum { FREE = 0, ACTIVE, LEAVING, LEFT, GONE };
enum { REQ_AFFINITY = 1, REQ_ATTR = 2, REQ_QOS = 4 };

typedef struct slot {
	_Atomic int state;
	_Atomic int tid;
	_Atomic unsigned gen;
	_Atomic int req;
	_Atomic unsigned sent, handled;
	_Atomic int sig_reasserts;
	uint64_t start;
	char name[32], identity[24];
	/* the maintenance thread's figures */
	int seen, running, on_target, migrations, reasserts, last_cpu, compute;
	uint64_t base_ticks, last_ticks, base_cpu_ns, last_cpu_ns;
	int have_sched;
	uint64_t base_wait, last_wait, base_slices, last_slices;
} slot;

static slot slots[MAX_WORKERS];
static int update(slot *s);
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;

/* What the signal handler reads: set before it is installed, unchanged
 * while it is. */
static corepin_cpuset sig_target;
static struct cp_sched_attr sig_attr;
static int sig_qos = -1;
static _Atomic int sig_installed;
static int sig_no;

static int self_slot(pid_t tid)
{
	for (int i = 0; i < MAX_WORKERS; i++)
		if (atomic_load(&slots[i].tid) == tid && atomic_load(&slots[i].state) == ACTIVE)
			return i;
	return -1;
}

/* register_slot fills a free slot; reg_mu held. */
static int register_slot(pid_t tid, uint64_t start, const char *name)
{
	for (int i = 0; i < MAX_WORKERS; i++) {
		slot *s = &slots[i];
		if (atomic_load(&s->state) != FREE)
			continue;
		unsigned gen = atomic_load(&s->gen) + 1;
		memset(s->name, 0, sizeof s->name);
		cp_snprintf(s->name, sizeof s->name, "%s", name);
		s->identity[0] = 0;
		s->start = start;
		s->seen = s->running = s->on_target = s->migrations = s->reasserts = s->compute = s->have_sched = 0;
		s->last_cpu = -1;
		atomic_store(&s->req, 0);
		atomic_store(&s->sent, 0);
		atomic_store(&s->handled, 0);
		atomic_store(&s->sig_reasserts, 0);
		atomic_store(&s->gen, gen);
		atomic_store(&s->tid, tid);
		atomic_store(&s->state, ACTIVE);
		return i;
	}
	return -1;
}

int corepin_worker_enter(void)
{
	pid_t tid = cp_gettid();
	cp_taskstat st;
	if (cp_read_taskstat(getpid(), tid, &st) != 0)
		return -1;
	pthread_mutex_lock(&reg_mu);
	int i = self_slot(tid) >= 0 ? -2 : register_slot(tid, st.start, st.comm);
	if (i >= 0)
		update(&slots[i]); /* its figures count from here */
	pthread_mutex_unlock(&reg_mu);
	return i >= 0 ? 0 : -1;
}

/* cp_worker_register_as records a thread under a given start time: what
 * the registry holds after the thread it named ended and the kernel gave
 * its TID to another. Tests use it to check that the new thread is left
 * alone. */
int cp_worker_register_as(pid_t tid, uint64_t start)
{
	pthread_mutex_lock(&reg_mu);
	int i = register_slot(tid, start, "registered");
	pthread_mutex_unlock(&reg_mu);
	return i;
}

void corepin_worker_leave(void)
{
	pid_t tid = cp_gettid();
	sigset_t set, old;
	int signo = sig_no;
	/* No new signal after this: the maintenance thread sends only to
	 * ACTIVE slots, and only with reg_mu held. */
	pthread_mutex_lock(&reg_mu);
	int i = self_slot(tid);
	if (i >= 0) {
		update(&slots[i]); /* its last figures */
		atomic_store(&slots[i].state, LEAVING);
	}
	pthread_mutex_unlock(&reg_mu);
	if (i < 0)
		return;
	/* Drain: take any maintenance signal still queued for this thread,
	 * so that none is delivered after the slot is gone. */
	if (signo > 0) {
		sigemptyset(&set);
		sigaddset(&set, signo);
		pthread_sigmask(SIG_BLOCK, &set, &old);
		struct timespec zero = {0, 0};
		while (sigtimedwait(&set, NULL, &zero) == signo)
			atomic_fetch_add(&slots[i].handled, 1);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	atomic_store(&slots[i].state, LEFT);
}

/* ---- the signal handler: system calls and atomics only ---- */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	int saved = errno;
	/* Identity: queued by this process, for this slot and generation, to
	 * the thread the slot names. */
	if (si->si_code != SI_QUEUE || si->si_pid != getpid())
		goto out;
	unsigned v = (unsigned)si->si_value.sival_int;
	unsigned idx = v >> 16, gen = v & 0xffff;
	if (idx >= MAX_WORKERS)
		goto out;
	slot *s = &slots[idx];
	if ((atomic_load(&s->gen) & 0xffff) != gen || atomic_load(&s->tid) != (int)syscall(SYS_gettid) ||
	    atomic_load(&s->state) != ACTIVE)
		goto out;
	int req = atomic_exchange(&s->req, 0);
	if (req & REQ_AFFINITY) {
		if (syscall(SYS_sched_setaffinity, 0, sizeof sig_target.w, sig_target.w) == 0)
			atomic_fetch_add(&s->sig_reasserts, 1);
	}
	if (req & REQ_ATTR) {
		struct cp_sched_attr a = sig_attr;
		if (syscall(SYS_sched_setattr, 0, &a, 0) == 0)
			atomic_fetch_add(&s->sig_reasserts, 1);
	}
	if ((req & REQ_QOS) && sig_qos >= 0) {
		int have = -1;
		if (cp_qos_node_get_raw(&have) == 0 && have != sig_qos && cp_qos_node_apply_raw(sig_qos) == 0)
			atomic_fetch_add(&s->sig_reasserts, 1);
	}
	atomic_fetch_add(&s->handled, 1);
out:
	errno = saved;
}

/* ---- the maintenance thread ---- */

static struct {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int running, stop;
	corepin_maintenance_options o;
	corepin_cpuset cpus;
	int samples, reasserts, migrations, nerrors;
	char errors[20][200];
	double own_cpu_s;
	struct sigaction old_action;
	int sent_total, drained;
} m = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void maint_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void maint_error(const char *fmt, ...)
{
	char e[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e, sizeof e, fmt, ap);
	va_end(ap);
	for (int i = 0; i < m.nerrors; i++)
		if (!strcmp(m.errors[i], e))
			return;
	if (m.nerrors < 20)
		cp_snprintf(m.errors[m.nerrors++], sizeof m.errors[0], "%s", e);
}

void corepin_maintenance_options_init(corepin_maintenance_options *o, const corepin_cpuset *target)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->period_ms = 100;
	o->qos = COREPIN_QOS_NONE;
	if (target) {
		o->target = *target;
		o->avoid = *target;
	}
}

/* keep_off moves the calling thread off the avoided CPUs and their SMT
 * siblings, onto what the process may use: a thread started from a pinned
 * worker would otherwise inherit the worker's one CPU. */
static void keep_off(void)
{
	corepin_cpuset avoid = m.o.avoid, mine, main_mask, sib;
	char path[96], list[256];
	for (int c = 0; c < COREPIN_MAX_CPUS; c++) {
		if (!corepin_cpuset_has(&m.o.avoid, c))
			continue;
		cp_snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
		if (cp_read_file(path, list, sizeof list) > 0 && corepin_cpuset_parse(&sib, list) == 0)
			for (int i = 0; i < COREPIN_CPU_WORDS; i++)
				avoid.w[i] |= sib.w[i];
	}
	cp_getaffinity(0, &mine);
	if (cp_getaffinity(getpid(), &main_mask) == 0)
		for (int i = 0; i < COREPIN_CPU_WORDS; i++)
			mine.w[i] |= main_mask.w[i];
	corepin_cpuset off = mine;
	for (int i = 0; i < COREPIN_CPU_WORDS; i++)
		off.w[i] &= ~avoid.w[i];
	if (cp_cpuset_empty(&off) || cp_setaffinity(0, &off) != 0) {
		maint_error("the maintenance thread shares the measured CPUs: no allowed CPU lies off the target and its SMT siblings");
		cp_getaffinity(0, &m.cpus);
		return;
	}
	cp_getaffinity(0, &m.cpus);
}

static int same_thread(pid_t tid, uint64_t start)
{
	cp_taskstat st;
	return cp_read_taskstat(getpid(), tid, &st) == 0 && st.start == start;
}

static void send_signal(int idx, slot *s, int req)
{
	atomic_fetch_or(&s->req, req);
	union sigval v;
	v.sival_int = (int)(((unsigned)idx << 16) | (atomic_load(&s->gen) & 0xffff));
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = m.o.signo;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value = v;
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), atomic_load(&s->tid), m.o.signo, &si) == 0) {
		atomic_fetch_add(&s->sent, 1);
		m.sent_total++;
	} else {
		maint_error("queueing the maintenance signal to thread %d: %s", atomic_load(&s->tid), cp_errno_text(errno));
	}
}

/* maintain puts back what drifted; reg_mu held. */
static void maintain(int idx, slot *s)
{
	pid_t tid = atomic_load(&s->tid);
	int req = 0, err;
	corepin_cpuset mask;
	if (!cp_cpuset_empty(&m.o.target) && cp_getaffinity(tid, &mask) == 0 && !cp_cpuset_subset(&mask, &m.o.target)) {
		if (!same_thread(tid, s->start))
			return;
		if (m.o.signal_only)
			req |= REQ_AFFINITY;
		else if ((err = cp_setaffinity(tid, &m.o.target)) == 0) {
			s->reasserts++;
			m.reasserts++;
		} else if (m.o.use_signal) {
			req |= REQ_AFFINITY;
		} else {
			maint_error("re-asserting affinity on thread %d: sched_setaffinity: %s", tid, cp_errno_text(err));
		}
	}
	cp_attr a;
	if (m.o.keep_attr && cp_getattr(tid, &a) == 0 &&
	    !(a.policy == m.o.policy && a.priority == m.o.priority && (cp_policy_realtime(a.policy) || a.nice == m.o.nice))) {
		if (!same_thread(tid, s->start))
			return;
		cp_attr want;
		memset(&want, 0, sizeof want);
		want.policy = m.o.policy;
		want.priority = m.o.priority;
		want.nice = m.o.nice;
		if (m.o.signal_only)
			req |= REQ_ATTR;
		else if ((err = cp_setattr(tid, &want)) == 0) {
			s->reasserts++;
			m.reasserts++;
		} else if (m.o.use_signal) {
			req |= REQ_ATTR;
		} else {
			maint_error("re-asserting attributes on thread %d: sched_setattr: %s", tid, cp_errno_text(err));
		}
	}
	if (m.o.use_signal && m.o.qos >= 0)
		req |= REQ_QOS; /* only the thread can read and set its own level */
	if (req && m.o.use_signal)
		send_signal(idx, s, req);
}

/* update reads one thread's figures; reg_mu held. 0 when it is still the
 * thread that registered. */
static int update(slot *s)
{
	pid_t tid = atomic_load(&s->tid);
	cp_taskstat st;
	if (cp_read_taskstat(getpid(), tid, &st) != 0 || st.start != s->start) {
		/* ended without leaving, or its TID now names another thread */
		cp_snprintf(s->identity, sizeof s->identity, "%s", cp_read_taskstat(getpid(), tid, &st) == 0 ? "tid-reused" : "ended");
		s->seen = 1;
		atomic_store(&s->state, GONE);
		return -1;
	}
	uint64_t ticks = st.utime + st.stime, ns = 0, run, wait, slices;
	cp_thread_cputime_ns(tid, &ns);
	int have_sched = cp_read_schedstat(getpid(), tid, &run, &wait, &slices) == 0;
	if (!s->seen) {
		s->seen = 1;
		s->base_ticks = s->last_ticks = ticks;
		s->base_cpu_ns = s->last_cpu_ns = ns;
		s->last_cpu = st.processor;
		if ((s->have_sched = have_sched)) {
			s->base_wait = s->last_wait = wait;
			s->base_slices = s->last_slices = slices;
		}
	} else {
		if (ticks > s->last_ticks) {
			s->running++;
			s->compute = 1;
			if (corepin_cpuset_has(&m.o.target, st.processor))
				s->on_target++;
			if (st.processor != s->last_cpu) {
				s->migrations++;
				m.migrations++;
			}
			s->last_ticks = ticks;
		}
		s->last_cpu_ns = ns;
		if (s->have_sched && have_sched) {
			s->last_wait = wait;
			s->last_slices = slices;
		}
	}
	s->last_cpu = st.processor;
	cp_snprintf(s->name, sizeof s->name, "%s", st.comm);
	return 0;
}

static void sample_one(int idx, slot *s)
{
	if (update(s) == 0)
		maintain(idx, s);
}

static void sample(void)
{
	pthread_mutex_lock(&reg_mu);
	m.samples++;
	for (int i = 0; i < MAX_WORKERS; i++)
		if (atomic_load(&slots[i].state) == ACTIVE)
			sample_one(i, &slots[i]);
	pthread_mutex_unlock(&reg_mu);
}

static void *maintenance_main(void *arg)
{
	(void)arg;
	keep_off();
	sample();
	pthread_mutex_lock(&m.mu);
	while (!m.stop) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += (long)(m.o.period_ms % 1000) * 1000000L;
		t.tv_sec += m.o.period_ms / 1000 + t.tv_nsec / 1000000000L;
		t.tv_nsec %= 1000000000L;
		while (!m.stop && pthread_cond_timedwait(&m.cond, &m.mu, &t) != ETIMEDOUT)
			;
		if (m.stop)
			break;
		pthread_mutex_unlock(&m.mu);
		sample();
		pthread_mutex_lock(&m.mu);
	}
	pthread_mutex_unlock(&m.mu);
	sample(); /* a last look */
	uint64_t ns;
	if (cp_thread_cputime_ns(0, &ns) == 0)
		m.own_cpu_s = (double)ns / 1e9;
	return NULL;
}

int corepin_maintenance_start(const corepin_maintenance_options *o, char *msg, size_t msglen)
{
	char dummy[8];
	if (!msg) {
		msg = dummy;
		msglen = sizeof dummy;
	}
	if (!o) {
		cp_snprintf(msg, msglen, "the options are NULL");
		return COREPIN_ERR_INVALID;
	}
	pthread_mutex_lock(&m.mu);
	if (m.running) {
		pthread_mutex_unlock(&m.mu);
		cp_snprintf(msg, msglen, "the maintenance thread is already running");
		return COREPIN_ERR_INVALID;
	}
	m.o = *o;
	if (m.o.period_ms <= 0)
		m.o.period_ms = 100;
	if (m.o.signo == 0)
		m.o.signo = SIGRTMIN + 4;
	m.stop = 0;
	m.samples = m.reasserts = m.migrations = m.nerrors = m.sent_total = 0;
	m.drained = 1;
	m.own_cpu_s = 0;
	pthread_mutex_unlock(&m.mu);
	/* A run's figures start now: threads that left before are dropped. */
	pthread_mutex_lock(&reg_mu);
	for (int i = 0; i < MAX_WORKERS; i++) {
		int st = atomic_load(&slots[i].state);
		if (st == LEFT || st == GONE)
			atomic_store(&slots[i].state, FREE);
		slots[i].seen = slots[i].running = slots[i].on_target = slots[i].migrations = slots[i].reasserts = slots[i].compute = 0;
		atomic_store(&slots[i].sig_reasserts, 0);
	}
	pthread_mutex_unlock(&reg_mu);
	if (m.o.use_signal) {
		sig_target = m.o.target;
		memset(&sig_attr, 0, sizeof sig_attr);
		sig_attr.size = sizeof sig_attr;
		sig_attr.sched_policy = (uint32_t)m.o.policy;
		sig_attr.sched_priority = (uint32_t)m.o.priority;
		sig_attr.sched_nice = m.o.nice;
		sig_qos = m.o.qos;
		if (!atomic_load(&sig_installed)) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_sigaction = on_signal;
			sa.sa_flags = SA_SIGINFO | SA_RESTART;
			sigemptyset(&sa.sa_mask);
			if (sigaction(m.o.signo, &sa, &m.old_action) != 0) {
				cp_snprintf(msg, msglen, "installing the maintenance signal handler: %s", cp_errno_text(errno));
				return COREPIN_ERR_SYSTEM;
			}
			sig_no = m.o.signo;
			atomic_store(&sig_installed, 1);
		}
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m.cond, &ca);
	pthread_condattr_destroy(&ca);
	int err = pthread_create(&m.thread, NULL, maintenance_main, NULL);
	if (err) {
		cp_snprintf(msg, msglen, "starting the maintenance thread: %s", cp_errno_text(err));
		return COREPIN_ERR_SYSTEM;
	}
	pthread_mutex_lock(&m.mu);
	m.running = 1;
	pthread_mutex_unlock(&m.mu);
	return COREPIN_OK;
}

/* drain waits until every signal sent was handled (or its thread is no
 * longer there to take it), then removes the handler. A handler with a
 * signal still queued stays installed: it does nothing for a slot that is
 * gone, while the default action of a real-time signal ends the process. */
static void drain(void)
{
	if (!atomic_load(&sig_installed))
		return;
	struct timespec ms = {0, 1000000};
	for (int tries = 0; tries < 1000; tries++) {
		int outstanding = 0;
		pthread_mutex_lock(&reg_mu);
		for (int i = 0; i < MAX_WORKERS; i++) {
			slot *s = &slots[i];
			int st = atomic_load(&s->state);
			if (st == FREE || atomic_load(&s->handled) >= atomic_load(&s->sent))
				continue;
			if (st == ACTIVE && same_thread(atomic_load(&s->tid), s->start))
				outstanding++;
		}
		pthread_mutex_unlock(&reg_mu);
		if (!outstanding) {
			sigaction(sig_no, &m.old_action, NULL);
			atomic_store(&sig_installed, 0);
			m.drained = 1;
			return;
		}
		nanosleep(&ms, NULL);
	}
	m.drained = 0;
	maint_error("a maintenance signal was still queued after 1 s; its handler stays installed");
}

int cp_maintenance_samples(void)
{
	pthread_mutex_lock(&reg_mu);
	int n = m.samples;
	pthread_mutex_unlock(&reg_mu);
	return n;
}

char *corepin_maintenance_stop(void)
{
	pthread_mutex_lock(&m.mu);
	if (!m.running) {
		pthread_mutex_unlock(&m.mu);
		return NULL;
	}
	m.stop = 1;
	pthread_cond_signal(&m.cond);
	pthread_mutex_unlock(&m.mu);
	pthread_join(m.thread, NULL);
	pthread_cond_destroy(&m.cond);
	drain();
	m.running = 0;

	cp_buf b;
	cp_buf_init(&b);
	int running = 0, on_target = 0, reasserts = m.reasserts;
	double wait_s = 0;
	pthread_mutex_lock(&reg_mu);
	for (int i = 0; i < MAX_WORKERS; i++)
		if (atomic_load(&slots[i].state) != FREE && slots[i].seen)
			reasserts += atomic_load(&slots[i].sig_reasserts);
	cp_buf_printf(&b, "{\"period_ms\":%d,\"samples\":%d,\"reasserts\":%d,\"migrations\":%d,\"on_target_ratio\":", m.o.period_ms, m.samples, reasserts,
		      m.migrations);
	cp_buf threads;
	cp_buf_init(&threads);
	int first = 1;
	for (int i = 0; i < MAX_WORKERS; i++) {
		slot *s = &slots[i];
		if (atomic_load(&s->state) == FREE || !s->seen)
			continue;
		running += s->running;
		on_target += s->on_target;
		cp_buf_printf(&threads, "%s{\"pid\":%d,\"tid\":%d,\"start_ticks\":%llu,\"name\":", first ? "" : ",", (int)getpid(),
			      atomic_load(&s->tid), (unsigned long long)s->start);
		first = 0;
		cp_json_str(&threads, s->name);
		cp_buf_put(&threads, ",\"cpu_s\":");
		cp_json_float(&threads, (double)(s->last_cpu_ns - s->base_cpu_ns) / 1e9);
		cp_buf_printf(&threads, ",\"running_samples\":%d,\"on_target_samples\":%d,\"on_target_ratio\":", s->running, s->on_target);
		if (s->running)
			cp_json_float(&threads, (double)s->on_target / s->running);
		else
			cp_buf_put(&threads, "null");
		cp_buf_printf(&threads, ",\"migrations\":%d,\"reasserts\":%d,\"last_cpu\":%d,\"compute\":%s", s->migrations,
			      s->reasserts + atomic_load(&s->sig_reasserts), s->last_cpu, s->compute ? "true" : "false");
		cp_buf_put(&threads, ",\"wait_s\":");
		if (s->have_sched) {
			double w = (double)(s->last_wait - s->base_wait) / 1e9;
			wait_s += w;
			cp_json_float(&threads, w);
			cp_buf_printf(&threads, ",\"timeslices\":%llu", (unsigned long long)(s->last_slices - s->base_slices));
		} else {
			cp_buf_put(&threads, "null");
		}
		cp_buf_printf(&threads, ",\"signal_sent\":%u,\"signal_handled\":%u", atomic_load(&s->sent), atomic_load(&s->handled));
		if (s->identity[0]) {
			cp_buf_put(&threads, ",\"identity\":");
			cp_json_str(&threads, s->identity);
		}
		cp_buf_put(&threads, "}");
	}
	pthread_mutex_unlock(&reg_mu);
	if (running)
		cp_json_float(&b, (double)on_target / running);
	else
		cp_buf_put(&b, "null");
	char *t = cp_buf_take(&threads);
	cp_buf_printf(&b, ",\"threads\":[%s],\"watcher_cpus\":", t ? t : "");
	free(t);
	cp_json_cpus(&b, &m.cpus);
	cp_buf_put(&b, ",\"watcher_cpu_s\":");
	cp_json_float(&b, m.own_cpu_s);
	cp_buf_put(&b, ",\"wait_s\":");
	cp_json_float(&b, wait_s);
	if (m.o.use_signal)
		cp_buf_printf(&b, ",\"signal\":{\"signo\":%d,\"sent\":%d,\"drained\":%s}", m.o.signo, m.sent_total, m.drained ? "true" : "false");
	if (m.nerrors) {
		cp_buf_put(&b, ",\"errors\":[");
		for (int i = 0; i < m.nerrors; i++) {
			if (i)
				cp_buf_put(&b, ",");
			cp_json_str(&b, m.errors[i]);
		}
		cp_buf_put(&b, "]");
	}
	cp_buf_put(&b, "}");
	return cp_buf_take(&b);
}
