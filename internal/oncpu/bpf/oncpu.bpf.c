// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
//
// oncpu: who ran on which CPU, from the scheduler's switch events.
//
// On the CPUs user space marks as watched, every switch charges the time
// since the previous switch to the task that is leaving (the idle task to
// the CPU's idle time), and a task that leaves while still runnable (it was
// preempted, or yielded) starts a wait that ends when it next runs, on any
// CPU. Each slice of a task on a watched CPU is also logged, when it ran and
// for how long, in that CPU's own ring of the slices map, which keeps the
// last LOG_SIZE. Regenerate the Go bindings with go generate (needs clang).

// The few kernel UAPI types and values used here, instead of vmlinux.h.
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
};

#include "headers/bpf_helpers.h"

// Only the fields read here; CO-RE relocates them to this kernel's layout.
struct sched_entity {
	__u64 sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
	struct sched_entity se;
	int pid;
	int tgid;
	char comm[16];
	unsigned int __state;
} __attribute__((preserve_access_index));

// Before Linux 5.14 the state field was a long called state.
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

#define TASK_COMM_LEN 16
#define MAX_TASKS 16384 // user space sets the bound it reports (MaxTasks)
#define LOG_SIZE 4096   // slices logged per watched CPU (SlicesPerCPU), a power of two

// cpu_state is per CPU. User space sets watched (and since, the start) on
// each CPU before the program is attached; only this CPU's program writes
// it afterwards, with preemption off, so plain stores are enough.
struct cpu_state {
	__u64 since;        // when the current task came on (CLOCK_MONOTONIC ns)
	__u64 curr_runtime; // its sum_exec_runtime then
	__u64 busy_ns;      // run time of every task but idle
	__u64 idle_ns;      // wall time of the idle task (pid 0)
	__u32 curr_tgid;
	__u32 curr_pid;
	char curr_comm[TASK_COMM_LEN];
	__u32 watched;
	__u32 log_base; // this CPU's ring in slices: [log_base, log_base+LOG_SIZE)
	__u64 log_seq;  // slices logged so far; the next goes to log_seq % LOG_SIZE
};

// slice is one task's time on a watched CPU, from its switch-in to its
// switch-out.
struct slice {
	__u64 start;  // CLOCK_MONOTONIC ns
	__u64 end;
	__u64 run_ns; // its run time in between, as charged to it in tasks
	__u32 tgid;
	__u32 pid;
	char comm[TASK_COMM_LEN];
};

struct task_key {
	__u32 tgid;
	__u32 pid;
	__u32 cpu;
};

struct task_val {
	__u64 on_ns;   // run time on this CPU
	__u64 wait_ns; // time runnable after a preemption here, until it ran again
	char comm[TASK_COMM_LEN];
};

struct wait_val {
	__u64 since; // 0 when the thread is not waiting
	__u32 tgid;
	__u32 cpu;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_state);
} cpus SEC(".maps");

// Preallocated: tracing programs may not allocate on older kernels, and
// the bound is what user space reports as an overflow.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TASKS);
	__type(key, struct task_key);
	__type(value, struct task_val);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TASKS);
	__type(key, __u32); // pid (thread id)
	__type(value, struct wait_val);
} waits SEC(".maps");

// One ring of LOG_SIZE slices per watched CPU, written only by that CPU's
// program; user space sizes it (LOG_SIZE × watched CPUs) before load.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LOG_SIZE);
	__type(key, __u32);
	__type(value, struct slice);
} slices SEC(".maps");

// What did not fit in the maps: switches whose time found no room in
// tasks, that time, and waits that found no room in waits.
__u64 lost_slices = 0;
__u64 lost_ns = 0;
__u64 lost_waits = 0;

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (__builtin_preserve_field_info(t->__state, 2 /* BPF_FIELD_EXISTS */))
		return t->__state;
	return (unsigned int)((struct task_struct___pre514 *)t)->state;
}

static __always_inline void charge(struct task_struct *prev, __u32 tgid, __u32 pid, __u32 cpu, __u64 delta)
{
	struct task_key key = {.tgid = tgid, .pid = pid, .cpu = cpu};
	struct task_val *val = bpf_map_lookup_elem(&tasks, &key);
	if (val) {
		// Only this CPU charges on_ns under this key; wait_ns may be
		// added from another CPU, hence the atomic there and here.
		__sync_fetch_and_add(&val->on_ns, delta);
		__builtin_memcpy(val->comm, prev->comm, TASK_COMM_LEN);
		return;
	}
	struct task_val fresh = {.on_ns = delta};
	__builtin_memcpy(fresh.comm, prev->comm, TASK_COMM_LEN);
	if (bpf_map_update_elem(&tasks, &key, &fresh, BPF_NOEXIST) != 0) {
		__sync_fetch_and_add(&lost_slices, 1);
		__sync_fetch_and_add(&lost_ns, delta);
	}
}

// log_slice writes the slice that just ended over the oldest of the CPU's
// ring. User space reads the slices below log_seq; one it reads while it is
// overwritten is counted lost there, as log_seq tells.
static __always_inline void log_slice(struct cpu_state *st, struct task_struct *prev, __u32 tgid, __u32 pid, __u64 now, __u64 run)
{
	__u32 idx = st->log_base + (__u32)(st->log_seq & (LOG_SIZE - 1));
	struct slice *s = bpf_map_lookup_elem(&slices, &idx);
	if (!s)
		return;
	s->start = st->since;
	s->end = now;
	s->run_ns = run;
	s->tgid = tgid;
	s->pid = pid;
	__builtin_memcpy(s->comm, prev->comm, TASK_COMM_LEN);
	st->log_seq++;
}

// waiting counts the waits under way (entries of waits whose since is
// set), so that the switches of a CPU skip the lookup while there is none.
// A wait is started before the task's switch-out completes, and the
// scheduler's own ordering makes that visible to the CPU that runs the
// task next. Entries are kept with since 0 once their wait ends instead of
// deleted: a lookup takes no lock, an insert and a delete do, and the same
// few threads wait again and again.
__u64 waiting = 0;

static __always_inline void start_wait(__u32 pid, __u32 tgid, __u32 cpu, __u64 now)
{
	struct wait_val *w = bpf_map_lookup_elem(&waits, &pid);
	if (w) {
		if (!w->since)
			__sync_fetch_and_add(&waiting, 1);
		w->since = now;
		w->tgid = tgid;
		w->cpu = cpu;
		return;
	}
	struct wait_val fresh = {.since = now, .tgid = tgid, .cpu = cpu};
	if (bpf_map_update_elem(&waits, &pid, &fresh, BPF_NOEXIST) == 0)
		__sync_fetch_and_add(&waiting, 1);
	else
		__sync_fetch_and_add(&lost_waits, 1);
}

static __always_inline void end_wait(__u32 pid, __u64 now)
{
	if (!waiting)
		return;
	struct wait_val *w = bpf_map_lookup_elem(&waits, &pid);
	if (!w || !w->since)
		return;
	struct task_key key = {.tgid = w->tgid, .pid = pid, .cpu = w->cpu};
	struct task_val *val = bpf_map_lookup_elem(&tasks, &key);
	if (val && now > w->since)
		__sync_fetch_and_add(&val->wait_ns, now - w->since);
	w->since = 0;
	__sync_fetch_and_add(&waiting, -1);
}

SEC("tp_btf/sched_switch")
int on_switch(__u64 *ctx)
{
	bool preempt = (bool)ctx[0];
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0;

	// A wait ends wherever the task runs again, watched CPU or not.
	__u32 npid = next->pid;
	if (npid)
		end_wait(npid, now);

	struct cpu_state *st = bpf_map_lookup_elem(&cpus, &zero);
	if (!st || !st->watched)
		return 0;

	__u32 cpu = bpf_get_smp_processor_id();
	__u32 ppid = prev->pid;
	__u32 ptgid = prev->tgid;
	if (st->since && now > st->since) {
		__u64 delta = now - st->since;
		if (ppid == 0) {
			st->idle_ns += delta;
		} else {
			// A task's time is the kernel's own account of it, the
			// sum_exec_runtime that cpuacct and schedstat report: the
			// wall time since the switch also holds interrupts (with
			// IRQ time accounting) and what a hypervisor stole. Only
			// the first slice after attach, whose start the program did
			// not see, is wall time.
			if (st->curr_pid == ppid) {
				__u64 rt = prev->se.sum_exec_runtime;
				if (rt >= st->curr_runtime)
					delta = rt - st->curr_runtime;
			}
			st->busy_ns += delta;
			charge(prev, ptgid, ppid, cpu, delta);
			log_slice(st, prev, ptgid, ppid, now, delta);
		}
	}
	if (ppid && (preempt || task_state(prev) == 0 /* TASK_RUNNING */))
		start_wait(ppid, ptgid, cpu, now);
	st->since = now;
	st->curr_tgid = next->tgid;
	st->curr_pid = npid;
	st->curr_runtime = next->se.sum_exec_runtime;
	__builtin_memcpy(st->curr_comm, next->comm, TASK_COMM_LEN);
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
