/* qos.c - HarmonyOS/OpenHarmony QoS for the calling thread.
 *
 * Two ways in. An app calls the NDK's libqos.so (OH_QoS_SetThreadQoS and
 * friends, API 12), loaded here with dlopen so that the library builds and
 * runs on any Linux. Where the kernel's per-thread node exists
 * (/proc/thread-self/sched_qos_ctrl, kernel_linux_common_modules
 * qos_auth/auth_ctl/qos_ctrl.c) it is also read directly, because the NDK
 * getter proves little: OH_QoS_GetThreadQoS returns 0 without filling the
 * level unless the build defines QOS_EXT_ENABLE, and -1 for a thread never
 * given a level. A level's effect is therefore read back from the thread
 * itself (nice, policy, latency nice), never assumed from the setter. */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *names[] = {"background", "utility", "default", "user-initiated", "deadline-request", "user-interactive"};

const char *cp_qos_name(int level)
{
	static _Thread_local char buf[16];
	if (level >= 0 && level <= 5)
		return names[level];
	cp_snprintf(buf, sizeof buf, "qos%d", level);
	return buf;
}

/* cp_qos_parse reads a level as qos.Parse does: a name, OpenHarmony's
 * constant (QOS_USER_INTERACTIVE) or a number (5, qos5). */
int cp_qos_parse(const char *s, int *level)
{
	char t[40];
	size_t n = 0;
	while (*s == ' ')
		s++;
	for (; *s && n + 1 < sizeof t; s++)
		t[n++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s == '_' ? '-' : *s);
	while (n > 0 && t[n - 1] == ' ')
		n--;
	t[n] = 0;
	char *p = t;
	if (!strncmp(p, "qos-", 4))
		p += 4;
	for (int i = 0; i < 6; i++)
		if (!strcmp(p, names[i])) {
			*level = i;
			return 0;
		}
	if (!strncmp(p, "qos", 3))
		p += 3;
	if (p[0] >= '0' && p[0] <= '5' && p[1] == 0) {
		*level = p[0] - '0';
		return 0;
	}
	return -1;
}

/* ---- the kernel node ---- */

#define NODE_PATH "/proc/thread-self/sched_qos_ctrl"
/* QOS_CTRL_BASIC_OPERATION = _IOWR(0xCC, 1, struct QosCtrlData{int pid;
 * unsigned type, level; int qos;}) = 0xC010CC01. The kernel ignores the
 * size bits and copies its own struct (28 bytes with QOS_EXT_ENABLE), so
 * a 32-byte zeroed buffer is passed. */
#define QOS_REQUEST 0xC010CC01UL
enum { QOS_APPLY = 1, QOS_LEAVE = 2, QOS_GET = 3 };

static int node_exists(void)
{
	struct stat st;
	return stat(NODE_PATH, &st) == 0;
}

/* node_call is made of system calls only: the signal handler uses it. */
static int node_call(unsigned op, int level, int *out)
{
	int32_t buf[8] = {0};
	buf[0] = (int32_t)syscall(SYS_gettid);
	buf[1] = (int32_t)op;
	buf[2] = level;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, NODE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int rc = (int)syscall(SYS_ioctl, fd, QOS_REQUEST, buf);
	int err = rc < 0 ? errno : 0;
	syscall(SYS_close, fd);
	if (out)
		*out = buf[3];
	return err;
}

int cp_qos_node_apply_raw(int level) { return node_call(QOS_APPLY, level, NULL); }
int cp_qos_node_get_raw(int *level) { return node_call(QOS_GET, 0, level); }

/* ---- libqos.so ---- */

static struct {
	void *handle;
	int (*set)(int);
	int (*reset)(void);
	int (*get)(int *);
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void load_lib(void)
{
	/* COREPIN_LIBQOS names a stand-in library for tests. */
	const char *path = getenv("COREPIN_LIBQOS");
	void *h = dlopen(path && *path ? path : "libqos.so", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	*(void **)&lib.set = dlsym(h, "OH_QoS_SetThreadQoS");
	*(void **)&lib.reset = dlsym(h, "OH_QoS_ResetThreadQoS");
	*(void **)&lib.get = dlsym(h, "OH_QoS_GetThreadQoS");
	if (!lib.set || !lib.reset || !lib.get) {
		dlclose(h);
		memset(&lib, 0, sizeof lib);
		return;
	}
	lib.handle = h;
}

static int have_lib(void)
{
	pthread_once(&lib_once, load_lib);
	return lib.handle != NULL;
}

int cp_qos_available(void) { return have_lib() || node_exists(); }

const char *cp_qos_backend(void) { return have_lib() ? "harmonyos-libqos" : "harmonyos-node"; }

void cp_qos_get_level(cp_qos_get *g)
{
	memset(g, 0, sizeof *g);
	if (node_exists()) {
		int q = -1;
		int err = node_call(QOS_GET, 0, &q);
		if (err == 0) {
			g->ok = 1;
			g->known = q >= 0 && q <= 5;
			g->level = q;
			return;
		}
		if (!have_lib()) {
			g->err = err;
			cp_syserr(g->msg, sizeof g->msg, "ioctl sched_qos_ctrl", err);
			return;
		}
		/* an older kernel without QOS_GET: ask the library */
	}
	if (!have_lib()) {
		cp_snprintf(g->msg, sizeof g->msg, "no HarmonyOS QoS node (" NODE_PATH ")");
		return;
	}
	/* A sentinel shows whether the getter filled the level at all. */
	int level = 0x7f;
	int rc = lib.get(&level);
	if (rc != 0) {
		/* -1: the thread was never given a level (OpenHarmony's own
		 * test expects exactly this after a reset) */
		g->ok = 1;
		return;
	}
	if (level == 0x7f) {
		cp_snprintf(g->msg, sizeof g->msg,
			    "OH_QoS_GetThreadQoS returned 0 without filling the level (a build without QOS_EXT_ENABLE): the level cannot be read back");
		return;
	}
	g->ok = 1;
	g->known = level >= 0 && level <= 5;
	g->level = level;
}

int cp_qos_set(int level, char *msg, size_t len)
{
	if (have_lib()) {
		errno = 0;
		if (lib.set(level) != 0) {
			int err = errno ? errno : -1;
			cp_snprintf(msg, len,
				    "OH_QoS_SetThreadQoS(%d) failed%s%s (the app's uid may have no QoS authority, or the level is out of range)",
				    level, err > 0 ? ": " : "", err > 0 ? cp_errno_text(err) : "");
			return err;
		}
		return 0;
	}
	int err = node_call(QOS_APPLY, level, NULL);
	if (err)
		cp_syserr(msg, len, "ioctl sched_qos_ctrl", err);
	return err;
}

int cp_qos_leave(char *msg, size_t len)
{
	if (have_lib()) {
		if (lib.reset() != 0) {
			cp_snprintf(msg, len, "OH_QoS_ResetThreadQoS failed");
			return -1;
		}
		return 0;
	}
	int err = node_call(QOS_LEAVE, 0, NULL);
	if (err)
		cp_syserr(msg, len, "ioctl sched_qos_ctrl", err);
	return err;
}

int cp_latency_nice(int *v)
{
	char buf[8192];
	if (cp_read_file("/proc/thread-self/sched", buf, sizeof buf) <= 0)
		return 0;
	char *p = strstr(buf, "latency_nice");
	if (!p)
		return 0;
	p = strchr(p, ':');
	if (!p)
		return 0;
	*v = (int)strtol(p + 1, NULL, 10);
	return 1;
}
