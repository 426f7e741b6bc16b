// bench_module.cpp - corepin inside an app's native module.
//
// An app's benchmark runs on its own worker thread (a NAPI async-work
// callback on HarmonyOS, a JNI worker on Android). This program has the
// same shape: run_benchmark() is what the module exports; the worker
// thread adds the three calls of corepin (a session, a worker scope, the
// maintenance thread around them) and the results folder comes back to
// the host with `hdc file recv` or `adb pull`, where `corepin report`
// renders it.
//
//   bench_module [--out DIR] [--runs N] [--cpu N] [--ladder NAME] [--work N] [--widen]
//
// --widen makes the worker widen its own mask in the middle of each run,
// to show the maintenance thread putting it back. With COREPIN_EXAMPLE_HOLD
// set, the worker prints "ready TID" once its session holds and waits for
// a line on stdin before it computes (for tests that witness the pinning).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include <sched.h>
#include <time.h>

#include "corepin_session.hpp"

namespace {

// The benchmark itself: a function the app already has.
std::uint64_t fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// The output check: the same number computed another way.
std::uint64_t fib_loop(unsigned n)
{
	std::uint64_t a = 0, b = 1;
	for (unsigned i = 0; i < n; i++) {
		std::uint64_t c = a + b;
		a = b;
		b = c;
	}
	return a;
}

// mask_size is how many CPUs the calling thread may run on.
int mask_size()
{
	cpu_set_t s;
	CPU_ZERO(&s);
	if (sched_getaffinity(0, sizeof s, &s) != 0)
		return -1;
	return CPU_COUNT(&s);
}

struct RunResult {
	bool ran = false, check_ok = false;
	double wall_s = 0;
	std::string report;
};

struct Config {
	std::string out = "corepin-results", ladder = "geekbench";
	int runs = 3, cpu = -1;
	unsigned work = 34; // fib(work), 12 times a run
	bool widen = false, hold = false;
};

// worker is the app's worker thread: it runs the benchmark once under a
// session. Everything corepin asks of the app is in this function.
void worker(const Config &cfg, RunResult *res)
{
	corepin::Options o(cfg.cpu);
	o.ladder = cfg.ladder.c_str();
	o.accept = "exact";
	corepin::ThreadSession session(o); // 1. capture, pin, ladder, read back
	if (!session.began()) {
		std::cerr << "session: " << session.error() << "\n";
		return;
	}
	if (session.accepted()) {
		corepin::WorkerThreadScope scope; // 2. the maintenance thread follows this thread
		if (cfg.hold) {
			std::cout << "ready " << session.tid() << std::endl;
			std::string line;
			std::getline(std::cin, line);
		}
		auto start = std::chrono::steady_clock::now();
		std::uint64_t v = 0;
		bool widened = false;
		for (unsigned i = 0; i < 12 || (widened && i < 100000); i++) {
			if (cfg.widen && i == 4) {
				// A library the benchmark calls resets the thread's mask.
				cpu_set_t all;
				CPU_ZERO(&all);
				for (int c = 0; c < CPU_SETSIZE; c++)
					CPU_SET(c, &all);
				widened = sched_setaffinity(0, sizeof all, &all) == 0;
			}
			v = fib(cfg.work);
			session.observe(); // a non-timed boundary: read back only
			// --widen goes on until the maintenance thread has put the
			// mask back, however slowly the machine runs it
			if (widened && mask_size() == 1)
				widened = false;
		}
		res->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
		res->check_ok = v == fib_loop(cfg.work);
		res->ran = true;
	}
	bool restored = session.finish();
	res->report = session.report_json();
	if (!restored) {
		std::cerr << "restore failed; this thread ends here\n";
		return; // the thread ends: its changed state goes with it
	}
}

} // namespace

// run_benchmark is what the module exports to the app: it runs the
// benchmark cfg.runs times and writes a results folder.
int run_benchmark(const Config &cfg_in)
{
	Config cfg = cfg_in;
	if (cfg.cpu < 0)
		cfg.cpu = corepin_pick_target(nullptr);
	if (cfg.cpu < 0) {
		std::cerr << "no target CPU\n";
		return 1;
	}
	corepin_cpuset target;
	corepin_cpuset_zero(&target);
	corepin_cpuset_add(&target, cfg.cpu);
	corepin_results *results = corepin_results_create(cfg.out.c_str(), cfg.cpu, &target, cfg.ladder.c_str(), 0);
	if (!results) {
		std::cerr << "cannot create a results folder under " << cfg.out << "\n";
		return 1;
	}
	corepin_results_set_app(results, "bench_module");
	int failed = 0;
	for (int i = 0; i < cfg.runs; i++) {
		std::string csv = "telemetry/fib-" + std::to_string(i) + ".csv";
		std::string csv_path = std::string(corepin_results_path(results)) + "/" + csv;
		corepin_sampler *sampler = corepin_sampler_start(csv_path.c_str(), &target, &target, 1000);
		corepin_maintenance_options mo;
		corepin_maintenance_options_init(&mo, &target);
		mo.period_ms = 20;
		corepin::Maintenance maintenance(mo); // 3. keeps the worker on target
		RunResult res;
		std::thread t(worker, std::cref(cfg), &res);
		t.join();
		std::string watch = maintenance.stop();
		char *stats = nullptr;
		if (sampler)
			corepin_sampler_stop(sampler, &stats);
		std::string summary = "fib(" + std::to_string(cfg.work) + ") x 12", check = "fib(" + std::to_string(cfg.work) + ") = " + std::to_string(fib_loop(cfg.work));
		int added = corepin_results_add_run(results, "fib", res.wall_s, res.ran, summary.c_str(), check.c_str(), res.check_ok,
						    res.report.empty() ? nullptr : res.report.c_str(), watch.empty() ? nullptr : watch.c_str(),
						    sampler ? csv.c_str() : nullptr, stats);
		std::free(stats);
		if (added != COREPIN_OK)
			std::cerr << "run " << i << " not recorded: " << corepin_strerror(added) << "\n";
		failed += !res.ran || added != COREPIN_OK;
	}
	int rc = corepin_results_save(results);
	std::cout << "results " << corepin_results_path(results) << std::endl;
	corepin_results_close(results);
	return rc != 0 || failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	Config cfg;
	cfg.hold = std::getenv("COREPIN_EXAMPLE_HOLD") != nullptr;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto next = [&]() -> std::string {
			if (i + 1 >= argc) {
				std::cerr << a << " needs a value\n";
				std::exit(2);
			}
			return argv[++i];
		};
		if (a == "--out")
			cfg.out = next();
		else if (a == "--runs")
			cfg.runs = std::atoi(next().c_str());
		else if (a == "--cpu")
			cfg.cpu = std::atoi(next().c_str());
		else if (a == "--ladder")
			cfg.ladder = next();
		else if (a == "--work")
			cfg.work = unsigned(std::atoi(next().c_str()));
		else if (a == "--widen")
			cfg.widen = true;
		else {
			std::cerr << "usage: bench_module [--out DIR] [--runs N] [--cpu N] [--ladder NAME] [--work N] [--widen]\n";
			return 2;
		}
	}
	return run_benchmark(cfg);
}
