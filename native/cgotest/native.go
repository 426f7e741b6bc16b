//go:build linux && cgo

package cgotest

/*
#cgo CFLAGS: -std=c11 -I${SRCDIR}/../include -I${SRCDIR}/../src
#cgo LDFLAGS: -lpthread -ldl -lm
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../src/sys.c"
#include "../src/rule.c"
#include "../src/qos.c"
#include "../src/session.c"
#include "../src/worker.c"
#include "../src/topology.c"
#include "../src/results.c"

// spin_cpu burns the calling thread's CPU time up to ms, widening its own
// mask to every CPU each time a third of it has gone by. After a widening
// it goes on computing at least until its mask is narrow again, so that
// the maintenance thread has the chance to put it back however slowly the
// machine runs it.
static void spin_cpu(int ms, int widen, const corepin_cpuset *target)
{
	int widened = 0;
	uint64_t start = 0, now = 0, next;
	cp_thread_cputime_ns(0, &start);
	next = start + (uint64_t)ms * 1000000ULL / 3;
	volatile uint64_t x = 0;
	while (now < start + (uint64_t)ms * 1000000ULL || widened) {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		cp_thread_cputime_ns(0, &now);
		if (widened) {
			corepin_cpuset mask;
			if (cp_getaffinity(0, &mask) == 0 && cp_cpuset_equal(&mask, target))
				widened = 0;
			if (now > start + 60000000000ULL)
				break; // a minute of CPU: the maintenance thread is not working
		} else if (widen && now >= next && now < start + (uint64_t)ms * 1000000ULL) {
			corepin_cpuset all;
			memset(&all, 0xff, sizeof all);
			cp_setaffinity(0, &all);
			widened = 1;
			next += (uint64_t)ms * 1000000ULL / 3;
		}
	}
}

struct widen_args {
	corepin_cpuset target;
	int ms;
	int entered;
};

static void *widen_worker(void *p)
{
	struct widen_args *a = p;
	cp_setaffinity(0, &a->target);
	a->entered = corepin_worker_enter() == 0;
	spin_cpu(a->ms, 1, &a->target);
	corepin_worker_leave();
	return NULL;
}

// run_widen runs a worker that widens its own mask under the maintenance
// thread and returns the maintenance result.
static char *run_widen(int cpu, int ms, int period_ms, int signal_only, char *msg, size_t len)
{
	struct widen_args a;
	memset(&a, 0, sizeof a);
	corepin_cpuset_add(&a.target, cpu);
	a.ms = ms;
	corepin_maintenance_options o;
	corepin_maintenance_options_init(&o, &a.target);
	o.period_ms = period_ms;
	o.use_signal = signal_only;
	o.signal_only = signal_only;
	if (corepin_maintenance_start(&o, msg, len) != COREPIN_OK)
		return NULL;
	pthread_t t;
	if (pthread_create(&t, NULL, widen_worker, &a) != 0) {
		free(corepin_maintenance_stop());
		return NULL;
	}
	pthread_join(t, NULL);
	return corepin_maintenance_stop();
}

struct idle_args {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int tid, done;
	uint64_t start;
};

static void *idle_thread(void *p)
{
	struct idle_args *a = p;
	cp_taskstat st;
	pthread_mutex_lock(&a->mu);
	a->tid = cp_gettid();
	if (cp_read_taskstat(getpid(), a->tid, &st) == 0)
		a->start = st.start;
	pthread_cond_broadcast(&a->cond);
	while (!a->done)
		pthread_cond_wait(&a->cond, &a->mu);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

// idle_start starts an idle thread and waits until it knows its TID.
static int idle_start(struct idle_args *a, pthread_t *t)
{
	memset(a, 0, sizeof *a);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cond, NULL);
	if (pthread_create(t, NULL, idle_thread, a) != 0)
		return -1;
	pthread_mutex_lock(&a->mu);
	while (!a->tid)
		pthread_cond_wait(&a->cond, &a->mu);
	pthread_mutex_unlock(&a->mu);
	return 0;
}

// idle_end lets the idle thread go and joins it.
static void idle_end(struct idle_args *a, pthread_t t)
{
	pthread_mutex_lock(&a->mu);
	a->done = 1;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->mu);
	pthread_join(t, NULL);
}

// maintain_briefly runs the maintenance thread toward cpu, at a 5 ms
// period with nice 7 asked, for five samples, and returns its result.
static char *maintain_briefly(int cpu)
{
	corepin_cpuset target;
	corepin_cpuset_zero(&target);
	corepin_cpuset_add(&target, cpu);
	corepin_maintenance_options o;
	corepin_maintenance_options_init(&o, &target);
	o.period_ms = 5;
	o.keep_attr = 1;
	o.nice = 7;
	if (corepin_maintenance_start(&o, NULL, 0) != COREPIN_OK)
		return NULL;
	struct timespec ms = {0, 1000000};
	while (cp_maintenance_samples() < 5)
		nanosleep(&ms, NULL);
	return corepin_maintenance_stop();
}

// run_reused registers a live thread under another start time - what the
// registry holds once the thread it named ended and the TID went to this
// one - and lets the maintenance thread look at it for a few periods.
// *tid receives the thread's TID, *mask_after its mask at the end.
static char *run_reused(int cpu, int *tid, corepin_cpuset *mask_before, corepin_cpuset *mask_after)
{
	struct idle_args a;
	pthread_t t;
	if (idle_start(&a, &t) != 0)
		return NULL;
	*tid = a.tid;
	cp_getaffinity(a.tid, mask_before);
	cp_worker_register_as(a.tid, a.start + 1);
	char *res = maintain_briefly(cpu);
	cp_getaffinity(a.tid, mask_after);
	idle_end(&a, t);
	return res;
}

struct gone_args {
	int tid;
	uint64_t start;
};

// gone_worker registers itself and ends without leaving.
static void *gone_worker(void *p)
{
	struct gone_args *a = p;
	cp_taskstat st;
	a->tid = cp_gettid();
	if (cp_read_taskstat(getpid(), a->tid, &st) == 0)
		a->start = st.start;
	corepin_worker_enter();
	return NULL;
}

static uint64_t boot_ticks(void)
{
	struct timespec t;
	clock_gettime(CLOCK_BOOTTIME, &t);
	return (uint64_t)t.tv_sec * 100 + (uint64_t)t.tv_nsec / 10000000;
}

// run_real_reuse needs its own pid namespace: a registered worker ends
// without leaving, the namespace's next pid is set to its TID (the
// namespace's own ns_last_pid), and a new thread is given that TID. The
// maintenance thread then looks at the stale registration for a few
// periods. Returns NULL when the kernel gave the new thread another TID.
static char *run_real_reuse(int cpu, int *old_tid, int *new_tid, corepin_cpuset *before, corepin_cpuset *after)
{
	struct gone_args g;
	memset(&g, 0, sizeof g);
	pthread_t t;
	if (pthread_create(&t, NULL, gone_worker, &g) != 0)
		return NULL;
	pthread_join(t, NULL);
	*old_tid = g.tid;
	// (TID, start time) names a thread only if the start times differ:
	// wait for the clock-tick counter to move on.
	while (boot_ticks() <= g.start + 2) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	if (fd < 0)
		return NULL;
	char buf[16];
	int n = snprintf(buf, sizeof buf, "%d", g.tid - 1);
	int w = (int)write(fd, buf, (size_t)n);
	close(fd);
	struct idle_args a;
	if (w != n || idle_start(&a, &t) != 0)
		return NULL;
	*new_tid = a.tid;
	char *res = NULL;
	cp_getaffinity(a.tid, before);
	if (a.tid == g.tid)
		res = maintain_briefly(cpu);
	cp_getaffinity(a.tid, after);
	idle_end(&a, t);
	return res;
}

// null_calls calls every entry point that takes a pointer with NULL where
// one is needed, and writes the names of those that did not refuse it as
// documented into out. A crash ends the test binary: that is the failure
// the calls are for.
static int null_calls(char *out, size_t len)
{
	int bad = 0;
	corepin_session *s = (corepin_session *)1;
	corepin_options o;
	char msg[128];
	out[0] = 0;
#define EXPECT(name, cond)                                                                          \
	do {                                                                                        \
		if (!(cond)) {                                                                      \
			bad++;                                                                      \
			strncat(out, name " ", len - strlen(out) - 1);                             \
		}                                                                                   \
	} while (0)
	corepin_options_init(&o, 0);
	corepin_cpuset_zero(NULL);
	corepin_cpuset_add(NULL, 1);
	EXPECT("corepin_cpuset_has", corepin_cpuset_has(NULL, 1) == 0);
	EXPECT("corepin_cpuset_count", corepin_cpuset_count(NULL) == 0);
	EXPECT("corepin_cpuset_parse", corepin_cpuset_parse(NULL, "0") == -1);
	corepin_cpuset set;
	EXPECT("corepin_cpuset_parse(list)", corepin_cpuset_parse(&set, NULL) == -1);
	EXPECT("corepin_cpuset_format", corepin_cpuset_format(NULL, msg, sizeof msg) == msg && msg[0] == 0);
	corepin_options_init(NULL, 0);
	EXPECT("corepin_session_begin(o)", corepin_session_begin(NULL, &s, msg, sizeof msg) == COREPIN_ERR_INVALID);
	EXPECT("corepin_session_begin(out)", corepin_session_begin(&o, NULL, msg, sizeof msg) == COREPIN_ERR_INVALID);
	EXPECT("corepin_session_accepted", corepin_session_accepted(NULL) == 0);
	EXPECT("corepin_session_tid", corepin_session_tid(NULL) == 0);
	EXPECT("corepin_session_accepted_step", corepin_session_accepted_step(NULL) == 0);
	EXPECT("corepin_session_observe", corepin_session_observe(NULL) == COREPIN_ERR_INVALID);
	EXPECT("corepin_session_refresh", corepin_session_refresh(NULL, NULL) == COREPIN_ERR_INVALID);
	EXPECT("corepin_session_finish", corepin_session_finish(NULL) == COREPIN_ERR_INVALID);
	EXPECT("corepin_session_report_json", corepin_session_report_json(NULL) == NULL);
	corepin_session_free(NULL);
	EXPECT("corepin_session_run(o)", corepin_session_run(NULL, NULL, NULL, NULL, msg, sizeof msg) == COREPIN_ERR_INVALID);
	EXPECT("corepin_session_run(fn)", corepin_session_run(&o, NULL, NULL, NULL, msg, sizeof msg) == COREPIN_ERR_INVALID);
	corepin_maintenance_options_init(NULL, NULL);
	EXPECT("corepin_maintenance_start", corepin_maintenance_start(NULL, msg, sizeof msg) == COREPIN_ERR_INVALID);
	EXPECT("corepin_sampler_start", corepin_sampler_start(NULL, NULL, NULL, 0) == NULL);
	char *stats = (char *)1;
	EXPECT("corepin_sampler_stop", corepin_sampler_stop(NULL, &stats) == COREPIN_ERR_INVALID && stats == NULL);
	EXPECT("corepin_results_create", corepin_results_create(NULL, 0, NULL, NULL, 0) == NULL);
	EXPECT("corepin_results_path", corepin_results_path(NULL) == NULL);
	EXPECT("corepin_results_set_app", corepin_results_set_app(NULL, "x") == COREPIN_ERR_INVALID);
	EXPECT("corepin_results_add_run", corepin_results_add_run(NULL, "x", 1, 1, NULL, NULL, 1, NULL, NULL, NULL, NULL) == COREPIN_ERR_INVALID);
	EXPECT("corepin_results_save", corepin_results_save(NULL) == COREPIN_ERR_INVALID);
	corepin_results_close(NULL);
#undef EXPECT
	return bad;
}

// begin_rc begins a session at cpu with the default options and returns
// the library's result; *out is the session when it began.
static int begin_rc(int cpu, corepin_session **out, char *msg, size_t len)
{
	corepin_options o;
	corepin_options_init(&o, cpu);
	return corepin_session_begin(&o, out, msg, len);
}

static int add_run_rc(corepin_results *r, const char *name, double wall, const char *sched, const char *watch, const char *tel)
{
	return corepin_results_add_run(r, name, wall, 1, "summary", "check", 1, sched, watch, NULL, tel);
}

static int rule_ok(const char *text, char *out, size_t len)
{
	cp_rule r;
	char msg[256];
	if (cp_rule_parse(text, &r, msg, sizeof msg) != 0)
		return 0;
	cp_rule_string(&r, out, len);
	return 1;
}
*/
import "C"

import (
	"errors"
	"io/fs"
	"unsafe"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/native"
)

// librarySources names the library's C sources (src/*.c), every one of
// which the preamble above must include. Reading them through package
// native is also what makes the go command rebuild this package when they
// change.
func librarySources() ([]string, error) { return fs.Glob(native.Sources(), "src/*.c") }

// step is a ladder step for the C library.
type step struct {
	Policy   *int
	Priority int
	Nice     *int
	Uclamp   *[2]uint32
}

// options are a request for the C library.
type options struct {
	CPU           int
	CPUs          cpuset.Set // soft group
	Soft          bool
	Ladder        string // a named ladder, or the name of Steps
	Steps         []step // a custom ladder when not nil
	AllowRealtime bool
	QoS           int // -1 for none
	Accept        string
}

// cSession is a session of the C library on the calling thread.
type cSession struct{ s *C.corepin_session }

func toCSet(s cpuset.Set) C.corepin_cpuset {
	var c C.corepin_cpuset
	for _, cpu := range s.CPUs() {
		C.corepin_cpuset_add(&c, C.int(cpu))
	}
	return c
}

func fromCSet(c *C.corepin_cpuset) cpuset.Set {
	var cpus []int
	for i := 0; i < int(C.COREPIN_MAX_CPUS); i++ {
		if C.corepin_cpuset_has(c, C.int(i)) != 0 {
			cpus = append(cpus, i)
		}
	}
	return cpuset.Of(cpus...)
}

// begin starts a C session on the calling thread, which must be locked.
func begin(o options) (*cSession, error) {
	var co C.corepin_options
	C.corepin_options_init(&co, C.int(o.CPU))
	free := []unsafe.Pointer{}
	defer func() {
		for _, p := range free {
			C.free(p)
		}
	}()
	cstr := func(s string) *C.char {
		p := C.CString(s)
		free = append(free, unsafe.Pointer(p))
		return p
	}
	if o.Soft {
		co.mode = C.COREPIN_SOFT
		set := (*C.corepin_cpuset)(C.malloc(C.size_t(unsafe.Sizeof(C.corepin_cpuset{}))))
		free = append(free, unsafe.Pointer(set))
		*set = toCSet(o.CPUs)
		co.cpus = set
	}
	if o.Ladder != "" {
		co.ladder = cstr(o.Ladder)
	}
	if o.Steps != nil {
		n := len(o.Steps)
		steps := (*[8]C.corepin_step)(C.calloc(8, C.size_t(unsafe.Sizeof(C.corepin_step{}))))
		free = append(free, unsafe.Pointer(steps))
		for i, st := range o.Steps {
			c := &steps[i]
			if st.Policy != nil {
				c.has_policy, c.policy = 1, C.int(*st.Policy)
			}
			c.priority = C.int(st.Priority)
			if st.Nice != nil {
				c.has_nice, c.nice = 1, C.int(*st.Nice)
			}
			if st.Uclamp != nil {
				c.has_uclamp, c.uclamp_min, c.uclamp_max = 1, C.uint32_t(st.Uclamp[0]), C.uint32_t(st.Uclamp[1])
			}
		}
		co.steps, co.nsteps = &steps[0], C.int(n)
	}
	if o.AllowRealtime {
		co.allow_realtime = 1
	}
	co.qos = C.int(o.QoS)
	if o.Accept != "" {
		co.accept = cstr(o.Accept)
	}
	var s *C.corepin_session
	msg := (*C.char)(C.calloc(512, 1))
	defer C.free(unsafe.Pointer(msg))
	if rc := C.corepin_session_begin(&co, &s, msg, 512); rc != C.COREPIN_OK {
		return nil, errors.New(C.GoString(msg))
	}
	return &cSession{s}, nil
}

func (s *cSession) accepted() bool { return C.corepin_session_accepted(s.s) != 0 }
func (s *cSession) tid() int       { return int(C.corepin_session_tid(s.s)) }
func (s *cSession) observe() int   { return int(C.corepin_session_observe(s.s)) }
func (s *cSession) finish() bool   { return C.corepin_session_finish(s.s) == C.COREPIN_OK }
func (s *cSession) free()          { C.corepin_session_free(s.s) }

func (s *cSession) refresh() int {
	var n C.int
	C.corepin_session_refresh(s.s, &n)
	return int(n)
}

func (s *cSession) reportJSON() []byte {
	p := C.corepin_session_report_json(s.s)
	defer C.free(unsafe.Pointer(p))
	return []byte(C.GoString(p))
}

func taken(p *C.char) []byte {
	if p == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(p))
	return []byte(C.GoString(p))
}

// nullCalls reports the entry points that did not refuse a NULL.
func nullCalls() (int, string) {
	out := (*C.char)(C.calloc(2048, 1))
	defer C.free(unsafe.Pointer(out))
	n := C.null_calls(out, 2048)
	return int(n), C.GoString(out)
}

// Library results the tests compare with.
const (
	rcOK          = int(C.COREPIN_OK)
	rcInvalid     = int(C.COREPIN_ERR_INVALID)
	rcWrongThread = int(C.COREPIN_ERR_WRONG_THREAD)
	rcNested      = int(C.COREPIN_ERR_NESTED)
	rcTainted     = int(C.COREPIN_ERR_TAINTED)
)

// beginRC begins a session with the default options at cpu on the calling
// (locked) thread and returns the library's result and message.
func beginRC(cpu int) (*cSession, int, string) {
	var s *C.corepin_session
	msg := (*C.char)(C.calloc(512, 1))
	defer C.free(unsafe.Pointer(msg))
	rc := int(C.begin_rc(C.int(cpu), &s, msg, 512))
	if rc != rcOK {
		return nil, rc, C.GoString(msg)
	}
	return &cSession{s}, rc, C.GoString(msg)
}

func (s *cSession) finishRC() int { return int(C.corepin_session_finish(s.s)) }

// libraryVersion is corepin_version() and the header's COREPIN_VERSION.
func libraryVersion() (built, header string) {
	return C.GoString(C.corepin_version()), C.COREPIN_VERSION
}

// cResults is a results writer of the C library.
type cResults struct{ r *C.corepin_results }

func createResults(base string, cpu int) *cResults {
	b := C.CString(base)
	defer C.free(unsafe.Pointer(b))
	r := C.corepin_results_create(b, C.int(cpu), nil, nil, 0)
	if r == nil {
		return nil
	}
	return &cResults{r}
}

func (r *cResults) path() string { return C.GoString(C.corepin_results_path(r.r)) }
func (r *cResults) save() int    { return int(C.corepin_results_save(r.r)) }
func (r *cResults) close()       { C.corepin_results_close(r.r) }

func (r *cResults) setApp(name string) int {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	return int(C.corepin_results_set_app(r.r, n))
}

// addRun adds a run of "fib"; a JSON argument given as "" is NULL.
func (r *cResults) addRun(wall float64, sched, watch, tel string) int {
	return r.addNamedRun("fib", wall, sched, watch, tel)
}

// addNamedRun adds a run of the benchmark name.
func (r *cResults) addNamedRun(name string, wall float64, sched, watch, tel string) int {
	arg := func(s string) *C.char {
		if s == "" {
			return nil
		}
		return C.CString(s)
	}
	a, b, c := arg(sched), arg(watch), arg(tel)
	defer C.free(unsafe.Pointer(a))
	defer C.free(unsafe.Pointer(b))
	defer C.free(unsafe.Pointer(c))
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	return int(C.add_run_rc(r.r, n, C.double(wall), a, b, c))
}

// tainted reports the C library's taint.
func tainted() bool { return C.corepin_tainted(nil, 0) != 0 }

// taintWhy is the taint's reason, "" when the library is not tainted.
func taintWhy() string {
	why := (*C.char)(C.calloc(512, 1))
	defer C.free(unsafe.Pointer(why))
	if C.corepin_tainted(why, 512) == 0 {
		return ""
	}
	return C.GoString(why)
}
func clearTaint() { C.corepin_clear_taint() }

// pickTarget is corepin_pick_target on the real /sys.
func pickTarget() int { return int(C.corepin_pick_target(nil)) }

// pickTargetIn is corepin_pick_target on the sysfs root dir.
func pickTargetIn(dir string) int {
	d := C.CString(dir)
	defer C.free(unsafe.Pointer(d))
	return int(C.corepin_pick_target(d))
}

// runWiden runs a worker that widens its own mask ms milliseconds of CPU
// time long under the maintenance thread; signalOnly re-asserts through
// the directed signal alone.
func runWiden(cpu, ms, periodMs int, signalOnly bool) ([]byte, error) {
	msg := (*C.char)(C.calloc(256, 1))
	defer C.free(unsafe.Pointer(msg))
	sig := C.int(0)
	if signalOnly {
		sig = 1
	}
	out := taken(C.run_widen(C.int(cpu), C.int(ms), C.int(periodMs), sig, msg, 256))
	if out == nil {
		return nil, errors.New(C.GoString(msg))
	}
	return out, nil
}

// runReused registers a live thread under the wrong start time and runs
// the maintenance thread over it.
func runReused(cpu int) (result []byte, tid int, before, after cpuset.Set) {
	var ctid C.int
	var b, a C.corepin_cpuset
	result = taken(C.run_reused(C.int(cpu), &ctid, &b, &a))
	return result, int(ctid), fromCSet(&b), fromCSet(&a)
}

// runRealReuse runs run_real_reuse; see there.
func runRealReuse(cpu int) (result []byte, oldTID, newTID int, before, after cpuset.Set) {
	var o, n C.int
	var b, a C.corepin_cpuset
	result = taken(C.run_real_reuse(C.int(cpu), &o, &n, &b, &a))
	return result, int(o), int(n), fromCSet(&b), fromCSet(&a)
}

// parseTaskStat is the C library's reading of a /proc stat line.
func parseTaskStat(line []byte) (comm string, state byte, utime, stime, start uint64, processor int, ok bool) {
	c := C.CBytes(append(append([]byte(nil), line...), 0))
	defer C.free(c)
	var st C.cp_taskstat
	if C.cp_parse_taskstat((*C.char)(c), &st) != 0 {
		return "", 0, 0, 0, 0, 0, false
	}
	return C.GoString(&st.comm[0]), byte(st.state), uint64(st.utime), uint64(st.stime), uint64(st.start), int(st.processor), true
}

// parseCPUList is the C library's reading of a CPU list.
func parseCPUList(list string) (cpuset.Set, bool) {
	c := C.CString(list)
	defer C.free(unsafe.Pointer(c))
	var s C.corepin_cpuset
	if C.corepin_cpuset_parse(&s, c) != 0 {
		return cpuset.Set{}, false
	}
	return fromCSet(&s), true
}

// parseRule is the C library's reading of an acceptance rule.
func parseRule(text string) (string, bool) {
	c := C.CString(text)
	defer C.free(unsafe.Pointer(c))
	buf := (*C.char)(C.calloc(256, 1))
	defer C.free(unsafe.Pointer(buf))
	if C.rule_ok(c, buf, 256) == 0 {
		return "", false
	}
	return C.GoString(buf), true
}
