/* session.c - one thread's scheduling, from capture to restore: the C form
 * of corepin's Go package session, step for step, so that the two write
 * the same report for the same request. */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_STEPS 8
#define MSG 320

typedef struct step_result {
	int step;
	char asked[96], errno_name[16], error[MSG], skipped[64], mismatch[128];
	int accepted;
} step_result;

typedef struct restore_step {
	char what[16], errno_name[16], error[MSG], mismatch[160];
	int ok;
} restore_step;

typedef struct snapshot {
	corepin_cpuset cpus;
	cp_attr attr;
	int attr_ok, nice, qos, qos_known, complete, nmissing;
	char missing[4][MSG];
} snapshot;

typedef struct readback {
	corepin_cpuset cpus;
	int cpu, policy, priority, nice, qos, exact, in_group, nerrors;
	uint64_t slice;
	uint32_t umin, umax;
	char errors[4][MSG];
} readback;

struct corepin_session {
	pid_t tid;
	uint64_t start; /* the thread's start time: a TID is reused, (tid, start) is not */
	int abandoned;  /* freed from another thread before it finished (active_mu) */
	int cpu;
	corepin_mode mode;
	corepin_cpuset target, mask;
	char ladder[32];
	corepin_step steps[MAX_STEPS];
	int nsteps, allow_rt, qos_req, accepted_idx, last_cpu;
	cp_rule rule;
	struct {
		int affinity, attr, uclamp, qos;
	} changed;
	snapshot cap;
	struct {
		int ok;
		char errno_name[16], error[MSG];
	} aff;
	step_result ladder_res[MAX_STEPS];
	int nladder, accepted_step;
	struct {
		int on, effective, effects_changed, has_latency, latency_nice, nice, policy;
		char backend[24], errno_name[16], error[MSG], note[MSG];
	} qos;
	readback rb;
	struct {
		int ok;
		char rule[160], why[MSG];
	} accept;
	int observations, reasserts, migrations;
	struct {
		int done, ok, n;
		restore_step steps[4];
	} restore;
};

/* ---- the taint ---- */

static pthread_mutex_t taint_mu = PTHREAD_MUTEX_INITIALIZER;
static char taint_why[MSG];
/* taint_abandoned: the taint says a session was abandoned (see abandon),
 * and lasts while one is, not until corepin_clear_taint. */
static int taint_abandoned;

static void retaint(void);

int corepin_tainted(char *why, size_t len)
{
	retaint();
	pthread_mutex_lock(&taint_mu);
	int t = taint_why[0] != 0;
	if (t && why)
		cp_snprintf(why, len, "%s", taint_why);
	pthread_mutex_unlock(&taint_mu);
	return t;
}

void corepin_clear_taint(void)
{
	pthread_mutex_lock(&taint_mu);
	taint_why[0] = 0;
	taint_abandoned = 0;
	pthread_mutex_unlock(&taint_mu);
}

static void set_taint(const char *why)
{
	pthread_mutex_lock(&taint_mu);
	cp_snprintf(taint_why, sizeof taint_why, "%s", why);
	taint_abandoned = 0;
	pthread_mutex_unlock(&taint_mu);
}

/* ---- one session per thread ----
 *
 * Two sessions on one thread would each capture what the other set, and
 * finished out of order the second restores the first's request: the
 * thread stays changed while both report OK. So a thread has at most one
 * unfinished session; begin refuses a second with COREPIN_ERR_NESTED. */

#define MAX_ACTIVE 256
static pthread_mutex_t active_mu = PTHREAD_MUTEX_INITIALIZER;
static corepin_session *active[MAX_ACTIVE];
static pid_t active_tid[MAX_ACTIVE];

/* thread_has_session says whether tid has an unfinished session. */
static int thread_has_session(pid_t tid)
{
	int has = 0;
	pthread_mutex_lock(&active_mu);
	for (int i = 0; i < MAX_ACTIVE && !has; i++)
		has = active[i] && active_tid[i] == tid;
	pthread_mutex_unlock(&active_mu);
	return has;
}

/* claim_thread records s as tid's session; it fails when tid has one. */
static int claim_thread(corepin_session *s, pid_t tid)
{
	int rc = COREPIN_ERR_NOMEM, free_slot = -1;
	pthread_mutex_lock(&active_mu);
	for (int i = 0; i < MAX_ACTIVE; i++) {
		if (active[i] && active_tid[i] == tid) {
			rc = COREPIN_ERR_NESTED;
			goto out;
		}
		if (!active[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0) {
		active[free_slot] = s;
		active_tid[free_slot] = tid;
		rc = COREPIN_OK;
	}
out:
	pthread_mutex_unlock(&active_mu);
	return rc;
}

static void release_thread(const corepin_session *s)
{
	pthread_mutex_lock(&active_mu);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (active[i] == s)
			active[i] = NULL;
	pthread_mutex_unlock(&active_mu);
}

/* ---- sessions freed unfinished ----
 *
 * A session restores only on its own thread. Freed from another thread
 * before it finished (a C++ ThreadSession destroyed there), it is not
 * forgotten: its thread would stay on the target at the session's
 * priority, silently, and its next begin would capture that as the state
 * to restore. The session is kept, abandoned, for its thread: the
 * process is tainted while it is, and the thread's next begin puts back
 * what it captured, on the thread itself, before it captures anew. */

/* thread_start reads tid's start time; 0 when the thread is gone. */
static uint64_t thread_start(pid_t tid)
{
	cp_taskstat st;
	return cp_read_taskstat(getpid(), tid, &st) == 0 ? st.start : 0;
}

/* is_owner says whether the calling thread is the one that began s, not
 * another that was given its TID after it ended. */
static int is_owner(const corepin_session *s) { return cp_gettid() == s->tid && thread_start(s->tid) == s->start; }

/* retaint forgets the abandoned sessions whose threads have ended (what
 * they changed ended with them), sets the taint to name one that is left,
 * and clears a taint that named one once none is. A taint of a failed
 * restore is left as it is. */
static void retaint(void)
{
	char why[MSG] = "";
	pthread_mutex_lock(&active_mu);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (active[i] && active[i]->abandoned && thread_start(active_tid[i]) != active[i]->start) {
			free(active[i]);
			active[i] = NULL;
		}
	for (int i = 0; i < MAX_ACTIVE && !why[0]; i++)
		if (active[i] && active[i]->abandoned)
			cp_snprintf(why, sizeof why,
				    "thread %d's session was freed from another thread before it finished: the thread keeps the session's scheduling until "
				    "it begins a session again, which puts back what the session found, or ends",
				    (int)active_tid[i]);
	pthread_mutex_unlock(&active_mu);
	pthread_mutex_lock(&taint_mu);
	if (why[0] && (!taint_why[0] || taint_abandoned)) {
		cp_snprintf(taint_why, sizeof taint_why, "%s", why);
		taint_abandoned = 1;
	} else if (!why[0] && taint_abandoned) {
		taint_why[0] = 0;
		taint_abandoned = 0;
	}
	pthread_mutex_unlock(&taint_mu);
}

/* abandon keeps s, freed unfinished from another thread, for its thread;
 * a session whose thread has ended changed nothing that lives, and goes. */
static void abandon(corepin_session *s)
{
	if (thread_start(s->tid) != s->start) {
		release_thread(s);
		free(s);
		return;
	}
	pthread_mutex_lock(&active_mu);
	s->abandoned = 1;
	pthread_mutex_unlock(&active_mu);
	retaint();
}

/* take_abandoned takes tid's abandoned session out of the registry, for
 * the caller to free; NULL when it has none. */
static corepin_session *take_abandoned(pid_t tid)
{
	corepin_session *s = NULL;
	pthread_mutex_lock(&active_mu);
	for (int i = 0; i < MAX_ACTIVE && !s; i++)
		if (active[i] && active_tid[i] == tid && active[i]->abandoned) {
			s = active[i];
			active[i] = NULL;
		}
	pthread_mutex_unlock(&active_mu);
	return s;
}

const char *corepin_strerror(int code)
{
	switch (code) {
	case COREPIN_OK: return "ok";
	case COREPIN_ERR_INVALID: return "invalid options";
	case COREPIN_ERR_TAINTED: return "a previous session could not restore its thread; call corepin_clear_taint once that is dealt with";
	case COREPIN_ERR_WRONG_THREAD: return "session used from another thread than its own";
	case COREPIN_ERR_NOMEM: return "out of memory";
	case COREPIN_ERR_NOT_ACCEPTED: return "scheduling not accepted";
	case COREPIN_ERR_RESTORE_FAILED: return "restoring the thread's scheduling failed; end the thread";
	case COREPIN_ERR_SYSTEM: return "a system call failed";
	case COREPIN_ERR_NESTED: return "this thread already has an unfinished session";
	}
	return "unknown result";
}

/* ---- ladders ---- */

static const corepin_step geekbench[] = {
    {1, COREPIN_SCHED_FIFO, 1, 0, 0, 1, CP_UCLAMP_MAX, CP_UCLAMP_MAX},
    {1, COREPIN_SCHED_OTHER, 0, 1, -20, 1, CP_UCLAMP_MAX, CP_UCLAMP_MAX},
    {0, 0, 0, 0, 0, 1, CP_UCLAMP_MAX, CP_UCLAMP_MAX},
    {0, 0, 0, 1, -20, 0, 0, 0},
};
static const corepin_step spec[] = {
    {1, COREPIN_SCHED_FIFO, 1, 0, 0, 1, CP_UCLAMP_MAX, CP_UCLAMP_MAX},
    {1, COREPIN_SCHED_OTHER, 0, 1, -20, 1, CP_UCLAMP_MAX, CP_UCLAMP_MAX},
    {1, COREPIN_SCHED_FIFO, 1, 0, 0, 0, 0, 0},
};

static void step_string(const corepin_step *s, char *buf, size_t len)
{
	char pol[16], part[48];
	buf[0] = 0;
#define ADD(...)                                                                                   \
	do {                                                                                       \
		cp_snprintf(part, sizeof part, __VA_ARGS__);                                       \
		if (buf[0])                                                                        \
			strncat(buf, " + ", len - strlen(buf) - 1);                                \
		strncat(buf, part, len - strlen(buf) - 1);                                         \
	} while (0)
	if (s->has_policy && cp_policy_realtime(s->policy))
		ADD("%s:%d", cp_policy_name(s->policy, pol, sizeof pol), s->priority);
	else if (s->has_policy)
		ADD("%s", cp_policy_name(s->policy, pol, sizeof pol));
	if (s->has_nice)
		ADD("nice %d", s->nice);
	if (!s->has_policy && !s->has_nice && s->has_uclamp)
		ADD("keep policy");
	if (s->has_uclamp)
		ADD("uclamp %u/%u", s->uclamp_min, s->uclamp_max);
	if (!buf[0])
		cp_snprintf(buf, len, "nothing");
#undef ADD
}

static int validate(const char *name, const corepin_step *steps, int n, char *msg, size_t len)
{
	char pol[16];
	for (int i = 0; i < n; i++) {
		const corepin_step *s = &steps[i];
		int rt = s->has_policy && cp_policy_realtime(s->policy);
		if (rt && (s->priority < 1 || s->priority > 99)) {
			cp_snprintf(msg, len, "ladder %s step %d: %s needs a priority from 1 to 99", name, i + 1, cp_policy_name(s->policy, pol, sizeof pol));
			return -1;
		}
		if (s->has_policy && !rt && s->priority != 0) {
			cp_snprintf(msg, len, "ladder %s step %d: a priority can only be given with fifo or rr", name, i + 1);
			return -1;
		}
		if (s->has_policy && s->policy == COREPIN_SCHED_DEADLINE) {
			cp_snprintf(msg, len, "ladder %s step %d: deadline needs the full affinity mask and cannot pin", name, i + 1);
			return -1;
		}
		if (s->has_nice && (s->nice < -20 || s->nice > 19)) {
			cp_snprintf(msg, len, "ladder %s step %d: nice %d is outside -20..19", name, i + 1, s->nice);
			return -1;
		}
		if (s->has_uclamp && (s->uclamp_min > s->uclamp_max || s->uclamp_max > CP_UCLAMP_MAX)) {
			cp_snprintf(msg, len, "ladder %s step %d: uclamp %u:%u must satisfy min <= max <= 1024", name, i + 1, s->uclamp_min, s->uclamp_max);
			return -1;
		}
	}
	return 0;
}

const char *corepin_version(void) { return COREPIN_VERSION; }

void corepin_options_init(corepin_options *o, int cpu)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	o->cpu = cpu;
	o->mode = COREPIN_EXACT;
	o->ladder = "geekbench";
	o->qos = COREPIN_QOS_NONE;
	o->accept = NULL; /* the mode's own rule: exact, or soft */
}

/* ---- capture ---- */

static void add_missing(snapshot *c, const char *what, const char *err)
{
	if (c->nmissing < 4)
		cp_snprintf(c->missing[c->nmissing++], MSG, "%s: %s", what, err);
}

static void capture(snapshot *c)
{
	char e[MSG];
	int err;
	memset(c, 0, sizeof *c);
	c->qos = -1;
	if ((err = cp_getaffinity(0, &c->cpus)) != 0) {
		cp_syserr(e, sizeof e, "sched_getaffinity", err);
		add_missing(c, "affinity", e);
	}
	if ((err = cp_getattr(0, &c->attr)) != 0) {
		cp_syserr(e, sizeof e, "sched_getattr", err);
		add_missing(c, "attributes", e);
	} else {
		c->attr_ok = 1;
	}
	if ((err = cp_getnice(0, &c->nice)) != 0) {
		cp_syserr(e, sizeof e, "getpriority", err);
		add_missing(c, "nice", e);
	}
	if (cp_qos_available()) {
		cp_qos_get g;
		cp_qos_get_level(&g);
		if (!g.ok) {
			add_missing(c, "qos", g.msg);
		} else {
			c->qos_known = 1; /* a level, or known to be unset */
			if (g.known)
				c->qos = g.level;
		}
	}
	c->complete = c->nmissing == 0;
}

/* ---- requests ---- */

static void request_affinity(corepin_session *s)
{
	int err = cp_setaffinity(0, &s->target);
	if (err) {
		cp_snprintf(s->aff.errno_name, sizeof s->aff.errno_name, "%s", cp_errno_name(err));
		cp_syserr(s->aff.error, sizeof s->aff.error, "sched_setaffinity", err);
		return;
	}
	s->changed.affinity = 1;
	s->aff.ok = 1;
}

static int fair_policy(int p) { return p == COREPIN_SCHED_BATCH ? p : COREPIN_SCHED_OTHER; }

/* apply sends a step: policy and nice in one call, uclamp in a call of its
 * own, because a kernel without uclamp refuses a combined request whole.
 * It returns the errno and names the failing call in *call. */
static int apply(corepin_session *s, const corepin_step *st, const char **call)
{
	uint64_t keep = s->cap.attr.flags & CP_FLAG_RESET_ON_FORK;
	*call = "sched_setattr";
	if (st->has_policy || st->has_nice) {
		cp_attr a;
		memset(&a, 0, sizeof a);
		a.flags = keep;
		if (st->has_policy) {
			a.policy = st->policy;
			a.priority = st->priority;
		} else {
			a.policy = fair_policy(s->cap.attr.policy);
		}
		if (st->has_nice && !cp_policy_realtime(a.policy))
			a.nice = st->nice;
		int err = cp_setattr(0, &a);
		if (err)
			return err;
		s->changed.attr = 1;
	}
	if (st->has_uclamp) {
		int err = cp_setuclamp(0, st->uclamp_min, st->uclamp_max, keep != 0);
		if (err)
			return err;
		s->changed.uclamp = 1;
	}
	return 0;
}

/* matches reads the attributes back and says what differs from the step. */
static void matches(const corepin_step *st, char *out, size_t len)
{
	cp_attr a;
	char pol[16];
	int err = cp_getattr(0, &a);
	out[0] = 0;
	if (err) {
		cp_snprintf(out, len, "read-back failed: sched_getattr: %s", cp_errno_text(err));
	} else if (st->has_policy && (a.policy != st->policy || a.priority != st->priority)) {
		cp_snprintf(out, len, "policy reads back as %s:%d", cp_policy_name(a.policy, pol, sizeof pol), a.priority);
	} else if (st->has_nice && !cp_policy_realtime(a.policy) && a.nice != st->nice) {
		cp_snprintf(out, len, "nice reads back as %d", a.nice);
	} else if (st->has_uclamp) {
		if (!cp_uclamp_supported())
			cp_snprintf(out, len, "uclamp cannot be read back on this kernel");
		else if (a.util_min != st->uclamp_min || a.util_max != st->uclamp_max)
			cp_snprintf(out, len, "uclamp reads back as %u/%u", a.util_min, a.util_max);
	}
}

static int restore_attributes(corepin_session *s, char *msg, size_t len, const char **errname);

static void try_step(corepin_session *s, const corepin_step *st, step_result *r)
{
	step_string(st, r->asked, sizeof r->asked);
	if (st->has_policy && cp_policy_realtime(st->policy) && !s->allow_rt) {
		cp_snprintf(r->skipped, sizeof r->skipped, "realtime is not allowed (enable it explicitly)");
		return;
	}
	const char *call;
	int err = apply(s, st, &call);
	if (err) {
		cp_snprintf(r->errno_name, sizeof r->errno_name, "%s", cp_errno_name(err));
		cp_syserr(r->error, sizeof r->error, call, err);
	} else {
		matches(st, r->mismatch, sizeof r->mismatch);
		if (!r->mismatch[0]) {
			r->accepted = 1;
			return;
		}
	}
	/* A step the kernel took only in part is undone, so that "keep the
	 * current policy" in a later step means the policy the thread came
	 * with. */
	if (s->changed.attr || s->changed.uclamp) {
		char m[MSG];
		const char *name;
		if (restore_attributes(s, m, sizeof m, &name) != 0) {
			size_t used = strlen(r->error);
			cp_snprintf(r->error + used, sizeof r->error - used, "; undoing the step failed: %s", m);
		}
	}
}

static void request_ladder(corepin_session *s)
{
	for (int i = 0; i < s->nsteps; i++) {
		step_result *r = &s->ladder_res[s->nladder++];
		memset(r, 0, sizeof *r);
		try_step(s, &s->steps[i], r);
		r->step = i + 1;
		if (r->accepted) {
			s->accepted_step = i + 1;
			s->accepted_idx = i;
			return;
		}
	}
}

/* effects reads what a QoS level did to the thread: the level itself is
 * not proof (the getter may not report it, the setter may be a no-op). */
static void qos_effects(corepin_session *s)
{
	cp_attr a;
	if (cp_getnice(0, &s->qos.nice) != 0)
		s->qos.nice = s->cap.nice;
	s->qos.policy = cp_getattr(0, &a) == 0 ? a.policy : s->cap.attr.policy;
	s->qos.has_latency = cp_latency_nice(&s->qos.latency_nice);
	s->qos.effects_changed = s->qos.nice != s->cap.nice || s->qos.policy != s->cap.attr.policy;
	if (!s->qos.effects_changed)
		cp_snprintf(s->qos.note, sizeof s->qos.note,
			    "the level left nice and policy as they were: the service's policy table may map it to the default (levels above default without QOS_EXT_ENABLE), the setter may be off (persist.qosmanager.setQos.on), or the app's uid may have no QoS authority");
}

static void request_qos(corepin_session *s)
{
	if (s->qos_req < 0)
		return;
	s->qos.on = 1;
	s->qos.effective = -1;
	cp_snprintf(s->qos.backend, sizeof s->qos.backend, "%s", cp_qos_available() ? cp_qos_backend() : "linux-sched");
	if (!cp_qos_available()) {
		cp_snprintf(s->qos.error, sizeof s->qos.error, "no QoS node on this kernel; the level is expressed by its ladder of attributes");
		return;
	}
	if (!s->cap.qos_known) {
		/* without the old level there is nothing to restore to */
		cp_snprintf(s->qos.error, sizeof s->qos.error, "the thread's current QoS could not be read; not changed");
		return;
	}
	int err = cp_qos_set(s->qos_req, s->qos.error, sizeof s->qos.error);
	if (err) {
		cp_snprintf(s->qos.errno_name, sizeof s->qos.errno_name, "%s", err > 0 ? cp_errno_name(err) : "");
		return;
	}
	s->changed.qos = 1;
	qos_effects(s);
}

/* ---- read back ---- */

static void add_error(readback *rb, const char *call, int err)
{
	if (rb->nerrors < 4)
		cp_syserr(rb->errors[rb->nerrors++], MSG, call, err);
}

static void read_back(corepin_session *s, readback *rb)
{
	memset(rb, 0, sizeof *rb);
	rb->cpu = -1;
	rb->qos = -1;
	int err;
	if ((err = cp_getaffinity(0, &rb->cpus)) != 0)
		add_error(rb, "sched_getaffinity", err);
	if ((err = cp_getcpu(&rb->cpu)) != 0) {
		rb->cpu = -1;
		add_error(rb, "getcpu", err);
	}
	cp_attr a;
	if ((err = cp_getattr(0, &a)) != 0) {
		add_error(rb, "sched_getattr", err);
	} else {
		rb->policy = a.policy;
		rb->priority = a.priority;
		rb->nice = a.nice;
		rb->slice = cp_policy_realtime(a.policy) ? 0 : a.runtime;
		rb->umin = a.util_min;
		rb->umax = a.util_max;
	}
	if (cp_qos_available()) {
		cp_qos_get g;
		cp_qos_get_level(&g);
		if (!g.ok) {
			if (rb->nerrors < 4)
				cp_snprintf(rb->errors[rb->nerrors++], MSG, "%s", g.msg);
		} else if (g.known) {
			rb->qos = g.level;
			if (s->qos.on)
				s->qos.effective = g.level;
		}
	}
	corepin_cpuset exact;
	corepin_cpuset_zero(&exact);
	corepin_cpuset_add(&exact, s->cpu);
	rb->exact = cp_cpuset_equal(&rb->cpus, &exact) && rb->cpu == s->cpu;
	rb->in_group = !cp_cpuset_empty(&rb->cpus) && cp_cpuset_subset(&rb->cpus, &s->target) && corepin_cpuset_has(&s->target, rb->cpu);
}

/* ---- acceptance ---- */

static int req_check(const corepin_session *s, int i, char *why, size_t len)
{
	const readback *rb = &s->rb;
	const char *key = s->rule.reqs[i].key, *op = s->rule.reqs[i].op, *value = s->rule.reqs[i].value;
	char have[96] = "", pol[16];
	long want = strtol(value, NULL, 10);
#define CMP(v) (!strcmp(op, "<=") ? (v) <= want : !strcmp(op, ">=") ? (v) >= want : (v) == want)
	int ok = 1;
	if (!strcmp(key, "uclamp-min") || !strcmp(key, "uclamp-max")) {
		if (!cp_uclamp_supported()) {
			ok = 0;
			cp_snprintf(have, sizeof have, "this kernel has no uclamp");
		} else {
			long v = !strcmp(key, "uclamp-max") ? (long)rb->umax : (long)rb->umin;
			if (!CMP(v)) {
				ok = 0;
				cp_snprintf(have, sizeof have, "reads back as %ld", v);
			}
		}
	} else if (!strcmp(key, "step")) {
		if (s->accepted_step == 0 || !CMP(s->accepted_step)) {
			ok = 0;
			cp_snprintf(have, sizeof have, "accepted step is %d", s->accepted_step);
		}
	} else if (!strcmp(key, "nice")) {
		if (!CMP(rb->nice)) {
			ok = 0;
			cp_snprintf(have, sizeof have, "nice reads back as %d", rb->nice);
		}
	} else if (!strcmp(key, "qos")) {
		int level = -1;
		cp_qos_parse(value, &level);
		if (rb->qos < 0) {
			ok = 0;
			cp_snprintf(have, sizeof have, "QoS reads back as unknown");
		} else if (rb->qos != level) {
			ok = 0;
			cp_snprintf(have, sizeof have, "QoS reads back as %s", cp_qos_name(rb->qos));
		}
	} else if (!strcmp(key, "policy")) {
		if (strcmp(cp_policy_name(rb->policy, pol, sizeof pol), value) != 0) {
			ok = 0;
			cp_snprintf(have, sizeof have, "policy reads back as %s", cp_policy_name(rb->policy, pol, sizeof pol));
		}
	}
#undef CMP
	if (!ok)
		cp_snprintf(why, len, "requirement %s%s%s not met: %s", key, op, value, have);
	return ok;
}

static void check_rule(corepin_session *s)
{
	const readback *rb = &s->rb;
	char m1[128], m2[128], pol[16];
	s->accept.ok = 0;
	cp_rule_string(&s->rule, s->accept.rule, sizeof s->accept.rule);
	if (!strcmp(s->rule.base, "exact")) {
		if (!s->cap.complete) {
			char joined[MSG] = "";
			for (int i = 0; i < s->cap.nmissing; i++) {
				if (i)
					strncat(joined, "; ", sizeof joined - strlen(joined) - 1);
				strncat(joined, s->cap.missing[i], sizeof joined - strlen(joined) - 1);
			}
			cp_snprintf(s->accept.why, MSG, "the capture is incomplete: %s", joined);
			return;
		}
		if (!rb->exact) {
			cp_snprintf(s->accept.why, MSG, "not exact: the mask reads back as %s and the thread is on CPU %d, target CPU %d",
				    corepin_cpuset_format(&rb->cpus, m1, sizeof m1), rb->cpu, s->cpu);
			return;
		}
	} else if (!strcmp(s->rule.base, "soft")) {
		if (!rb->in_group) {
			cp_snprintf(s->accept.why, MSG, "not on the target group %s: mask %s, CPU %d", corepin_cpuset_format(&s->target, m1, sizeof m1),
				    corepin_cpuset_format(&rb->cpus, m2, sizeof m2), rb->cpu);
			return;
		}
		if (s->nladder > 0 && s->accepted_step == 0) {
			cp_snprintf(s->accept.why, MSG, "no step of ladder %s held", s->ladder);
			return;
		}
	}
	for (int i = 0; i < s->rule.nreqs; i++)
		if (!req_check(s, i, s->accept.why, MSG))
			return;
	s->accept.ok = 1;
	int n = snprintf(s->accept.why, MSG, "%s: on CPU %d with mask %s, %s", s->rule.base, rb->cpu, corepin_cpuset_format(&rb->cpus, m1, sizeof m1),
			 cp_policy_name(rb->policy, pol, sizeof pol));
	if (n < 0 || n >= MSG)
		return;
	if (cp_policy_realtime(rb->policy))
		n += snprintf(s->accept.why + n, MSG - (size_t)n, ":%d", rb->priority);
	else
		n += snprintf(s->accept.why + n, MSG - (size_t)n, " nice %d", rb->nice);
	if (n > 0 && n < MSG && s->accepted_step > 0)
		snprintf(s->accept.why + n, MSG - (size_t)n, ", ladder %s step %d", s->ladder, s->accepted_step);
}

/* check_target refuses, before any change, a target the thread could not
 * be given: a CPU that is not online, or one outside the CPUs the thread
 * may use now. corepin never widens past the mask it inherited (a
 * taskset, a cpuset, a batch system's binding): that mask is the user's. */
static int check_target(const corepin_options *o, char *msg, size_t len)
{
	corepin_cpuset allowed, online, want;
	char m1[128], m2[128], list[1024];
	int err = cp_getaffinity(0, &allowed);
	if (err) {
		cp_syserr(msg, len, "reading the thread's allowed CPUs: sched_getaffinity", err);
		return COREPIN_ERR_SYSTEM;
	}
	corepin_cpuset_zero(&want);
	corepin_cpuset_add(&want, o->cpu);
	if (o->mode == COREPIN_SOFT && o->cpus && !cp_cpuset_empty(o->cpus))
		want = *o->cpus;
	int have_online = cp_read_file("/sys/devices/system/cpu/online", list, sizeof list) > 0 && corepin_cpuset_parse(&online, list) == 0;
	for (int cpu = 0; cpu < COREPIN_MAX_CPUS; cpu++) {
		if (!corepin_cpuset_has(&want, cpu) || corepin_cpuset_has(&allowed, cpu))
			continue;
		if (have_online && !corepin_cpuset_has(&online, cpu))
			cp_snprintf(msg, len, "CPU %d is not an online CPU of this machine (online: %s)", cpu,
				    corepin_cpuset_format(&online, m1, sizeof m1));
		else
			cp_snprintf(msg, len, "CPU %d is outside the CPUs this thread may use (%s); a session does not widen past the mask it inherited",
				    cpu, corepin_cpuset_format(&allowed, m2, sizeof m2));
		return COREPIN_ERR_INVALID;
	}
	return COREPIN_OK;
}

static void failure(const corepin_session *s, char *out, size_t len);

/* reclaim puts back, on the calling thread, what an abandoned session of
 * it captured, and forgets the session; one whose thread ended, and whose
 * TID this thread was given, changed nothing here and is forgotten. */
static int reclaim(char *msg, size_t msglen)
{
	corepin_session *s = take_abandoned(cp_gettid());
	if (!s)
		return COREPIN_OK;
	int rc = COREPIN_OK;
	if (is_owner(s) && corepin_session_finish(s) != COREPIN_OK) {
		char f[MSG];
		failure(s, f, sizeof f);
		cp_snprintf(msg, msglen, "putting back what the session freed unfinished from another thread found failed (%s): end the thread", f);
		rc = COREPIN_ERR_RESTORE_FAILED;
	}
	free(s);
	retaint();
	return rc;
}

/* ---- begin ---- */

int corepin_session_begin(const corepin_options *o, corepin_session **out, char *msg, size_t msglen)
{
	char dummy[8], why[MSG];
	if (!msg) {
		msg = dummy;
		msglen = sizeof dummy;
	}
	msg[0] = 0;
	if (!out || !o) {
		cp_snprintf(msg, msglen, "%s is NULL", !out ? "out" : "the options");
		return COREPIN_ERR_INVALID;
	}
	*out = NULL;
	int rc = reclaim(msg, msglen);
	if (rc != COREPIN_OK)
		return rc;
	if (corepin_tainted(why, sizeof why)) {
		cp_snprintf(msg, msglen, "%s (%s)", corepin_strerror(COREPIN_ERR_TAINTED), why);
		return COREPIN_ERR_TAINTED;
	}
	if (o->mode != COREPIN_EXACT && o->mode != COREPIN_SOFT) {
		cp_snprintf(msg, msglen, "unknown mode %d (want exact or soft)", (int)o->mode);
		return COREPIN_ERR_INVALID;
	}
	if (o->cpu < 0 || o->cpu >= COREPIN_MAX_CPUS) {
		cp_snprintf(msg, msglen, "target CPU %d is not a CPU", o->cpu);
		return COREPIN_ERR_INVALID;
	}
	if (o->steps == NULL && o->nsteps != 0) {
		cp_snprintf(msg, msglen, "nsteps is %d but steps is NULL", o->nsteps);
		return COREPIN_ERR_INVALID;
	}
	/* Nesting is said before the target is checked: the first session's
	 * mask is what makes another CPU look outside the thread's. */
	if (thread_has_session(cp_gettid())) {
		cp_snprintf(msg, msglen, "thread %d already has an unfinished session: finish it before beginning another", (int)cp_gettid());
		return COREPIN_ERR_NESTED;
	}
	if ((rc = check_target(o, msg, msglen)) != COREPIN_OK)
		return rc;
	corepin_session *s = calloc(1, sizeof *s);
	if (!s)
		return COREPIN_ERR_NOMEM;
	if (o->steps) {
		if (o->nsteps < 0 || o->nsteps > MAX_STEPS) {
			cp_snprintf(msg, msglen, "a ladder has at most %d steps", MAX_STEPS);
			free(s);
			return COREPIN_ERR_INVALID;
		}
		cp_snprintf(s->ladder, sizeof s->ladder, "%s", o->ladder ? o->ladder : "custom");
		memcpy(s->steps, o->steps, sizeof *o->steps * (size_t)o->nsteps);
		s->nsteps = o->nsteps;
	} else if (!o->ladder || !strcmp(o->ladder, "geekbench") || !*o->ladder) {
		cp_snprintf(s->ladder, sizeof s->ladder, "geekbench");
		memcpy(s->steps, geekbench, sizeof geekbench);
		s->nsteps = 4;
	} else if (!strcmp(o->ladder, "spec")) {
		cp_snprintf(s->ladder, sizeof s->ladder, "spec");
		memcpy(s->steps, spec, sizeof spec);
		s->nsteps = 3;
	} else if (!strcmp(o->ladder, "none")) {
		cp_snprintf(s->ladder, sizeof s->ladder, "none");
	} else {
		cp_snprintf(msg, msglen, "unknown ladder \"%s\" (want geekbench, spec or none)", o->ladder);
		free(s);
		return COREPIN_ERR_INVALID;
	}
	if (validate(s->ladder, s->steps, s->nsteps, msg, msglen) != 0 ||
	    cp_rule_parse(o->accept && *o->accept ? o->accept : o->mode == COREPIN_SOFT ? "soft" : "exact", &s->rule, msg, msglen) != 0) {
		free(s);
		return COREPIN_ERR_INVALID;
	}
	if (o->qos != COREPIN_QOS_NONE && (o->qos < 0 || o->qos > 5)) {
		cp_snprintf(msg, msglen, "QoS level %d is not a level", o->qos);
		free(s);
		return COREPIN_ERR_INVALID;
	}
	s->tid = cp_gettid();
	s->start = thread_start(s->tid);
	if ((rc = claim_thread(s, s->tid)) != COREPIN_OK) {
		if (rc == COREPIN_ERR_NESTED)
			cp_snprintf(msg, msglen, "thread %d already has an unfinished session: finish it before beginning another", (int)s->tid);
		else
			cp_snprintf(msg, msglen, "more than %d threads have unfinished sessions", MAX_ACTIVE);
		free(s);
		return rc;
	}
	s->cpu = o->cpu;
	s->mode = o->mode;
	s->allow_rt = o->allow_realtime;
	s->qos_req = o->qos;
	s->accepted_idx = -1;
	s->last_cpu = -1;
	corepin_cpuset_add(&s->target, o->cpu);
	if (o->mode == COREPIN_SOFT && o->cpus && !cp_cpuset_empty(o->cpus))
		s->target = *o->cpus;
	capture(&s->cap);
	request_affinity(s);
	request_ladder(s);
	request_qos(s);
	read_back(s, &s->rb);
	s->last_cpu = s->rb.cpu;
	s->mask = s->rb.cpus;
	check_rule(s);
	*out = s;
	return COREPIN_OK;
}

int corepin_session_accepted(const corepin_session *s) { return s && s->accept.ok; }
pid_t corepin_session_tid(const corepin_session *s) { return s ? s->tid : 0; }
int corepin_session_accepted_step(const corepin_session *s) { return s ? s->accepted_step : 0; }

void corepin_session_free(corepin_session *s)
{
	if (!s)
		return;
	if (!s->restore.done) {
		if (!is_owner(s)) {
			abandon(s);
			return;
		}
		corepin_session_finish(s); /* a failed restore taints, as finish does */
	}
	release_thread(s);
	free(s);
}

static int on_own_thread(const corepin_session *s) { return cp_gettid() == s->tid; }

/* ---- observe and refresh ---- */

int corepin_session_observe(corepin_session *s)
{
	if (!s)
		return COREPIN_ERR_INVALID;
	if (!on_own_thread(s))
		return COREPIN_ERR_WRONG_THREAD;
	readback rb;
	read_back(s, &rb);
	s->observations++;
	if (s->last_cpu >= 0 && rb.cpu >= 0 && rb.cpu != s->last_cpu)
		s->migrations++;
	s->last_cpu = rb.cpu;
	s->rb = rb;
	return COREPIN_OK;
}

int corepin_session_refresh(corepin_session *s, int *reasserted)
{
	int n = 0, rc = corepin_session_observe(s);
	if (reasserted)
		*reasserted = 0;
	if (rc != COREPIN_OK || s->restore.done)
		return rc;
	if (s->changed.affinity && !cp_cpuset_equal(&s->rb.cpus, &s->mask)) {
		if (cp_setaffinity(0, &s->target) != 0)
			return COREPIN_ERR_SYSTEM;
		n++;
	}
	if (s->accepted_idx >= 0) {
		char m[128];
		matches(&s->steps[s->accepted_idx], m, sizeof m);
		if (m[0]) {
			const char *call;
			if (apply(s, &s->steps[s->accepted_idx], &call) != 0)
				return COREPIN_ERR_SYSTEM;
			n++;
		}
	}
	if (n > 0) {
		s->reasserts += n;
		read_back(s, &s->rb);
	}
	if (reasserted)
		*reasserted = n;
	return COREPIN_OK;
}

/* ---- finish ---- */

/* restore_attributes writes the captured attributes back. Two traps: a
 * captured fair thread reports its current EEVDF slice, and writing that
 * back would pin it as a custom slice, so the slice is written as 0 and set
 * again only when the capture shows one that was asked for; and uclamp goes
 * in a call of its own, reset to the system default where the capture had
 * the default. */
static int restore_attributes(corepin_session *s, char *msg, size_t len, const char **errname)
{
	const snapshot *c = &s->cap;
	*errname = "";
	if (!c->attr_ok) {
		cp_snprintf(msg, len, "the original attributes were never read; nothing to restore to");
		return -1;
	}
	cp_attr a;
	memset(&a, 0, sizeof a);
	a.policy = c->attr.policy;
	a.flags = c->attr.flags & CP_FLAG_RESET_ON_FORK;
	if (cp_policy_realtime(c->attr.policy)) {
		a.priority = c->attr.priority;
	} else if (c->attr.policy == COREPIN_SCHED_DEADLINE) {
		a.runtime = c->attr.runtime;
		a.deadline = c->attr.deadline;
		a.period = c->attr.period;
	} else {
		a.nice = c->attr.nice;
	}
	int err = cp_setattr(0, &a);
	if (err) {
		*errname = cp_errno_name(err);
		cp_syserr(msg, len, "sched_setattr", err);
		return -1;
	}
	/* Written as 0, a fair thread's slice is the default; the captured one
	 * is written back only when it differs from what that reads back as (a
	 * slice that was asked for), read here on the thread itself. */
	cp_attr now;
	if (!cp_policy_realtime(c->attr.policy) && c->attr.policy != COREPIN_SCHED_DEADLINE && c->attr.runtime != 0 &&
	    cp_getattr(0, &now) == 0 && now.runtime != c->attr.runtime) {
		a.runtime = c->attr.runtime;
		if ((err = cp_setattr(0, &a)) != 0) {
			*errname = cp_errno_name(err);
			cp_syserr(msg, len, "sched_setattr", err);
			return -1;
		}
	}
	if (cp_policy_realtime(c->attr.policy) && c->nice != 0 && (err = cp_setnice(0, c->nice)) != 0) {
		*errname = cp_errno_name(err);
		cp_syserr(msg, len, "setpriority", err);
		return -1;
	}
	if (s->changed.uclamp && cp_uclamp_supported()) {
		uint32_t min = c->attr.util_min, max = c->attr.util_max;
		if (min == 0 && max == CP_UCLAMP_MAX)
			min = max = CP_UCLAMP_RESET;
		if ((err = cp_setuclamp(0, min, max, a.flags != 0)) != 0) {
			*errname = cp_errno_name(err);
			cp_syserr(msg, len, "sched_setattr", err);
			return -1;
		}
	}
	return 0;
}

static void attributes_mismatch(const corepin_session *s, char *out, size_t len)
{
	const snapshot *c = &s->cap;
	cp_attr a;
	char p1[16], p2[16];
	int n, err = cp_getattr(0, &a);
	out[0] = 0;
	if (err)
		cp_snprintf(out, len, "reading back: sched_getattr: %s", cp_errno_text(err));
	else if (a.policy != c->attr.policy || a.priority != c->attr.priority)
		cp_snprintf(out, len, "policy reads back as %s:%d, was %s:%d", cp_policy_name(a.policy, p1, sizeof p1), a.priority,
			    cp_policy_name(c->attr.policy, p2, sizeof p2), c->attr.priority);
	else if (a.nice != c->attr.nice)
		cp_snprintf(out, len, "nice reads back as %d, was %d", a.nice, c->attr.nice);
	else if ((a.flags & CP_FLAG_RESET_ON_FORK) != (c->attr.flags & CP_FLAG_RESET_ON_FORK))
		cp_snprintf(out, len, "reset-on-fork differs");
	else if (!cp_policy_realtime(a.policy) && a.runtime != c->attr.runtime)
		cp_snprintf(out, len, "slice reads back as %llu ns, was %llu ns", (unsigned long long)a.runtime, (unsigned long long)c->attr.runtime);
	else if (cp_uclamp_supported() && (a.util_min != c->attr.util_min || a.util_max != c->attr.util_max))
		cp_snprintf(out, len, "uclamp reads back as %u/%u, was %u/%u", a.util_min, a.util_max, c->attr.util_min, c->attr.util_max);
	else if (cp_getnice(0, &n) == 0 && n != c->nice)
		cp_snprintf(out, len, "nice (getpriority) reads back as %d, was %d", n, c->nice);
}

static restore_step *new_step(corepin_session *s, const char *what)
{
	restore_step *st = &s->restore.steps[s->restore.n++];
	memset(st, 0, sizeof *st);
	cp_snprintf(st->what, sizeof st->what, "%s", what);
	return st;
}

static void finish_qos(corepin_session *s)
{
	restore_step *st = new_step(s, "qos");
	int err = s->cap.qos >= 0 ? cp_qos_set(s->cap.qos, st->error, sizeof st->error) /* Set, not Leave: a registered thread stays registered */
				  : cp_qos_leave(st->error, sizeof st->error);
	if (err) {
		cp_snprintf(st->errno_name, sizeof st->errno_name, "%s", err > 0 ? cp_errno_name(err) : "");
		return;
	}
	cp_qos_get g;
	cp_qos_get_level(&g);
	if (!g.ok)
		cp_snprintf(st->error, sizeof st->error, "reading back: %s", g.msg);
	else if (g.known != (s->cap.qos >= 0) || (g.known && g.level != s->cap.qos))
		cp_snprintf(st->mismatch, sizeof st->mismatch, "QoS reads back as %s", cp_qos_name(g.level));
	else
		st->ok = 1;
}

static void finish_affinity(corepin_session *s)
{
	restore_step *st = new_step(s, "affinity");
	int err = cp_setaffinity(0, &s->cap.cpus);
	if (err) {
		cp_snprintf(st->errno_name, sizeof st->errno_name, "%s", cp_errno_name(err));
		cp_syserr(st->error, sizeof st->error, "sched_setaffinity", err);
		return;
	}
	corepin_cpuset got;
	char m1[128], m2[128];
	if ((err = cp_getaffinity(0, &got)) != 0)
		cp_snprintf(st->error, sizeof st->error, "reading back: sched_getaffinity: %s", cp_errno_text(err));
	else if (!cp_cpuset_equal(&got, &s->cap.cpus))
		cp_snprintf(st->mismatch, sizeof st->mismatch, "mask reads back as %s, was %s", corepin_cpuset_format(&got, m1, sizeof m1),
			    corepin_cpuset_format(&s->cap.cpus, m2, sizeof m2));
	else
		st->ok = 1;
}

/* failure names the first restore step that failed and why. */
static void failure(const corepin_session *s, char *out, size_t len)
{
	for (int i = 0; i < s->restore.n; i++) {
		const restore_step *st = &s->restore.steps[i];
		if (!st->ok) {
			cp_snprintf(out, len, "%s: %s", st->what, st->error[0] ? st->error : st->mismatch);
			return;
		}
	}
	cp_snprintf(out, len, "unknown failure");
}

int corepin_session_finish(corepin_session *s)
{
	if (!s)
		return COREPIN_ERR_INVALID;
	if (s->restore.done)
		return s->restore.ok ? COREPIN_OK : COREPIN_ERR_RESTORE_FAILED;
	/* Only the thread itself can restore what only it can set (its QoS),
	 * and a request by TID could reach a thread that reused the number:
	 * another thread's finish is refused and changes nothing, so that the
	 * owner can still finish. */
	if (!on_own_thread(s))
		return COREPIN_ERR_WRONG_THREAD;
	s->restore.done = 1;
	if (s->changed.qos)
		finish_qos(s);
	if (s->changed.attr || s->changed.uclamp) {
		restore_step *st = new_step(s, "attributes");
		const char *name;
		if (restore_attributes(s, st->error, sizeof st->error, &name) != 0)
			cp_snprintf(st->errno_name, sizeof st->errno_name, "%s", name);
		else
			attributes_mismatch(s, st->mismatch, sizeof st->mismatch);
		st->ok = !st->error[0] && !st->mismatch[0];
	}
	if (s->changed.affinity)
		finish_affinity(s);
	release_thread(s);
	s->restore.ok = 1;
	for (int i = 0; i < s->restore.n; i++)
		s->restore.ok = s->restore.ok && s->restore.steps[i].ok;
	if (!s->restore.ok) {
		char why[MSG], f[MSG];
		failure(s, f, sizeof f);
		cp_snprintf(why, sizeof why, "thread %d: %s", (int)s->tid, f);
		set_taint(why);
		return COREPIN_ERR_RESTORE_FAILED;
	}
	return COREPIN_OK;
}

int corepin_session_run(const corepin_options *o, int (*fn)(corepin_session *, void *), void *arg, char **report_json, char *msg,
			size_t msglen)
{
	corepin_session *s;
	if (report_json)
		*report_json = NULL;
	if (!fn) {
		if (msg)
			cp_snprintf(msg, msglen, "fn is NULL");
		return COREPIN_ERR_INVALID;
	}
	int rc = corepin_session_begin(o, &s, msg, msglen);
	if (rc != COREPIN_OK)
		return rc;
	rc = s->accept.ok ? fn(s, arg) : COREPIN_ERR_NOT_ACCEPTED;
	if (rc == COREPIN_ERR_NOT_ACCEPTED && msg)
		cp_snprintf(msg, msglen, "%s: %s", corepin_strerror(rc), s->accept.why);
	if (corepin_session_finish(s) != COREPIN_OK) {
		rc = COREPIN_ERR_RESTORE_FAILED;
		if (msg)
			failure(s, msg, msglen);
	}
	if (report_json)
		*report_json = corepin_session_report_json(s);
	corepin_session_free(s);
	return rc;
}

/* ---- the report ---- */

static void json_opt(cp_buf *b, const char *key, const char *v)
{
	if (v[0]) {
		cp_buf_printf(b, ",\"%s\":", key);
		cp_json_str(b, v);
	}
}

static void json_uclamp(cp_buf *b, uint32_t min, uint32_t max)
{
	if (cp_uclamp_supported())
		cp_buf_printf(b, "{\"supported\":true,\"min\":%u,\"max\":%u}", min, max);
	else
		cp_buf_put(b, "{\"supported\":false}");
}

static void json_qos(cp_buf *b, int level)
{
	if (level < 0)
		cp_buf_put(b, "null");
	else
		cp_json_str(b, cp_qos_name(level));
}

static const char *tf(int v) { return v ? "true" : "false"; }

/* The keys and their order are session.Report's (docs/schema.md). */
char *corepin_session_report_json(const corepin_session *s)
{
	if (!s)
		return NULL;
	cp_buf b;
	char pol[16];
	cp_buf_init(&b);
	cp_buf_printf(&b, "{\"tid\":%d,\"target\":{\"mode\":\"%s\",\"cpu\":%d,\"cpus\":", (int)s->tid, s->mode == COREPIN_SOFT ? "soft" : "exact", s->cpu);
	cp_json_cpus(&b, &s->target);
	const snapshot *c = &s->cap;
	cp_buf_put(&b, "},\"capture\":{\"cpus\":");
	cp_json_cpus(&b, &c->cpus);
	cp_buf_printf(&b, ",\"policy\":\"%s\",\"priority\":%d,\"flags\":%llu", cp_policy_name(c->attr.policy, pol, sizeof pol), c->attr.priority,
		      (unsigned long long)c->attr.flags);
	if (c->attr.runtime)
		cp_buf_printf(&b, ",\"slice_ns\":%llu", (unsigned long long)c->attr.runtime);
	cp_buf_put(&b, ",\"uclamp\":");
	if (c->attr_ok)
		json_uclamp(&b, c->attr.util_min, c->attr.util_max);
	else
		cp_buf_put(&b, "{\"supported\":false}");
	cp_buf_printf(&b, ",\"nice\":%d,\"qos\":", c->nice);
	json_qos(&b, c->qos);
	cp_buf_printf(&b, ",\"qos_known\":%s,\"complete\":%s", tf(c->qos_known), tf(c->complete));
	if (c->nmissing) {
		cp_buf_put(&b, ",\"missing\":[");
		for (int i = 0; i < c->nmissing; i++) {
			if (i)
				cp_buf_put(&b, ",");
			cp_json_str(&b, c->missing[i]);
		}
		cp_buf_put(&b, "]");
	}
	cp_buf_put(&b, "},\"affinity\":{\"asked\":");
	cp_json_cpus(&b, &s->target);
	cp_buf_printf(&b, ",\"ok\":%s", tf(s->aff.ok));
	json_opt(&b, "errno", s->aff.errno_name);
	json_opt(&b, "error", s->aff.error);
	cp_buf_put(&b, "},\"ladder\":{\"name\":");
	cp_json_str(&b, s->ladder);
	/* an empty list is null, as the Go report writes it */
	cp_buf_put(&b, s->nladder ? ",\"steps\":[" : ",\"steps\":null");
	for (int i = 0; i < s->nladder; i++) {
		const step_result *r = &s->ladder_res[i];
		cp_buf_printf(&b, "%s{\"step\":%d,\"asked\":", i ? "," : "", r->step);
		cp_json_str(&b, r->asked);
		json_opt(&b, "errno", r->errno_name);
		json_opt(&b, "error", r->error);
		json_opt(&b, "skipped", r->skipped);
		cp_buf_printf(&b, ",\"accepted\":%s", tf(r->accepted));
		json_opt(&b, "mismatch", r->mismatch);
		cp_buf_put(&b, "}");
	}
	cp_buf_printf(&b, "%s,\"accepted_step\":%d}", s->nladder ? "]" : "", s->accepted_step);
	if (s->qos.on) {
		cp_buf_put(&b, ",\"qos_request\":{\"requested\":");
		cp_json_str(&b, cp_qos_name(s->qos_req));
		cp_buf_put(&b, ",\"backend\":");
		cp_json_str(&b, s->qos.backend);
		cp_buf_put(&b, ",\"effective\":");
		json_qos(&b, s->qos.effective);
		json_opt(&b, "errno", s->qos.errno_name);
		json_opt(&b, "error", s->qos.error);
		if (s->changed.qos) {
			cp_buf_printf(&b, ",\"effects\":{\"nice\":%d,\"policy\":\"%s\",\"latency_nice\":", s->qos.nice,
				      cp_policy_name(s->qos.policy, pol, sizeof pol));
			if (s->qos.has_latency)
				cp_buf_printf(&b, "%d", s->qos.latency_nice);
			else
				cp_buf_put(&b, "null");
			cp_buf_printf(&b, ",\"changed\":%s}", tf(s->qos.effects_changed));
			json_opt(&b, "note", s->qos.note);
		}
		cp_buf_put(&b, "}");
	}
	const readback *rb = &s->rb;
	cp_buf_put(&b, ",\"readback\":{\"cpus\":");
	cp_json_cpus(&b, &rb->cpus);
	cp_buf_printf(&b, ",\"cpu\":%d,\"policy\":\"%s\",\"priority\":%d,\"nice\":%d", rb->cpu, cp_policy_name(rb->policy, pol, sizeof pol), rb->priority,
		      rb->nice);
	if (rb->slice)
		cp_buf_printf(&b, ",\"slice_ns\":%llu", (unsigned long long)rb->slice);
	cp_buf_put(&b, ",\"uclamp\":");
	json_uclamp(&b, rb->umin, rb->umax);
	cp_buf_put(&b, ",\"qos\":");
	json_qos(&b, rb->qos);
	cp_buf_printf(&b, ",\"exact_at_readback\":%s,\"in_target_group\":%s", tf(rb->exact), tf(rb->in_group));
	if (rb->nerrors) {
		cp_buf_put(&b, ",\"errors\":[");
		for (int i = 0; i < rb->nerrors; i++) {
			if (i)
				cp_buf_put(&b, ",");
			cp_json_str(&b, rb->errors[i]);
		}
		cp_buf_put(&b, "]");
	}
	cp_buf_put(&b, "},\"accept\":{\"rule\":");
	cp_json_str(&b, s->accept.rule);
	cp_buf_printf(&b, ",\"ok\":%s,\"why\":", tf(s->accept.ok));
	cp_json_str(&b, s->accept.why);
	cp_buf_printf(&b, "},\"observations\":%d,\"reasserts\":%d,\"migrations\":%d,\"restore\":{\"done\":%s,\"ok\":%s,\"steps\":%s", s->observations,
		      s->reasserts, s->migrations, tf(s->restore.done), tf(s->restore.ok), s->restore.n ? "[" : "null");
	for (int i = 0; i < s->restore.n; i++) {
		const restore_step *st = &s->restore.steps[i];
		cp_buf_printf(&b, "%s{\"what\":", i ? "," : "");
		cp_json_str(&b, st->what);
		cp_buf_printf(&b, ",\"ok\":%s", tf(st->ok));
		json_opt(&b, "errno", st->errno_name);
		json_opt(&b, "error", st->error);
		json_opt(&b, "mismatch", st->mismatch);
		cp_buf_put(&b, "}");
	}
	cp_buf_put(&b, s->restore.n ? "]}}" : "}}");
	return cp_buf_take(&b);
}
