// thread_session.cpp: a corepin::ThreadSession destroyed on another thread
// than its own, then the owner's next session. It prints, as one JSON
// object, the owner's nice value and mask at each step and the taint.
//
//   thread_session CPU
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "corepin_session.hpp"

namespace {

pid_t tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// state is the calling thread's nice value and mask, as JSON.
std::string state()
{
	cpu_set_t set;
	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof set, &set);
	std::string cpus;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
	return "{\"nice\":" + std::to_string(getpriority(PRIO_PROCESS, static_cast<id_t>(tid()))) + ",\"cpus\":\"" + cpus + "\"}";
}

std::string taint()
{
	char why[512] = "";
	if (!corepin_tainted(why, sizeof why))
		return "\"\"";
	std::string out = "\"";
	for (const char *p = why; *p; p++)
		if (*p != '"' && *p != '\\')
			out += *p;
	return out + "\"";
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	corepin::Options o(std::atoi(argv[1]));
	std::string before = state();
	auto s = std::make_unique<corepin::ThreadSession>(o);
	if (!s->began()) {
		std::fprintf(stderr, "begin: %s\n", s->error().c_str());
		return 1;
	}
	std::string during = state();
	std::thread([&s] { s.reset(); }).join(); // destroyed on another thread
	std::string freed = state(), tainted = taint();
	int again_began = 0, again_finished = 0;
	{
		corepin::ThreadSession again(o);
		again_began = again.began();
		again_finished = again.finish();
	}
	std::printf("{\"tid\":%d,\"before\":%s,\"during\":%s,\"freed\":%s,\"taint\":%s,\"again_began\":%d,\"again_finished\":%d,\"after\":%s,\"taint_after\":%s}\n",
		    static_cast<int>(tid()), before.c_str(), during.c_str(), freed.c_str(), tainted.c_str(), again_began, again_finished,
		    state().c_str(), taint().c_str());
	return 0;
}
