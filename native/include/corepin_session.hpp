// corepin_session.hpp - header-only C++17 wrapper of corepin_session.h.
//
//   corepin::ThreadSession session(options);   // capture, request, read back
//   if (session.accepted()) { corepin::WorkerThreadScope worker; run(); }
//   if (!session.finish()) return;             // restore failed: end the thread
//
// The destructor finishes a session that was not finished; a failed
// restore cannot throw from there, so call finish() and end the thread
// (return from its entry) when it reports false. A session restores only
// on its own thread: destroyed on another one, the destructor cannot put
// the owner back, so the owner keeps the session's scheduling and the
// process is tainted (corepin_tainted says which thread) until the owner
// begins its next session, which first puts back what this one found, or
// ends. Finish on the owner before handing the object to another thread.
#ifndef COREPIN_SESSION_HPP
#define COREPIN_SESSION_HPP

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "corepin_session.h"

namespace corepin {

namespace detail {
inline std::string take(char *s)
{
	std::string out = s ? s : "";
	std::free(s);
	return out;
}
} // namespace detail

// Options are corepin_options with the library's defaults.
struct Options : corepin_options {
	explicit Options(int cpu) { corepin_options_init(this, cpu); }
};

// ThreadSession is a session on the calling thread, from capture to
// restore.
class ThreadSession {
public:
	explicit ThreadSession(const corepin_options &o)
	{
		char msg[512] = "";
		code_ = corepin_session_begin(&o, &s_, msg, sizeof msg);
		error_ = msg;
	}
	ThreadSession(const ThreadSession &) = delete;
	ThreadSession &operator=(const ThreadSession &) = delete;
	ThreadSession(ThreadSession &&o) noexcept
	    : s_(std::exchange(o.s_, nullptr)), code_(o.code_), finish_code_(o.finish_code_), error_(std::move(o.error_))
	{
	}
	~ThreadSession()
	{
		if (s_) {
			corepin_session_finish(s_);
			corepin_session_free(s_);
		}
	}

	// began is false when the session did not begin (error() says why).
	bool began() const { return s_ != nullptr; }
	int code() const { return code_; }
	const std::string &error() const { return error_; }
	bool accepted() const { return s_ && corepin_session_accepted(s_); }
	int accepted_step() const { return s_ ? corepin_session_accepted_step(s_) : 0; }
	pid_t tid() const { return s_ ? corepin_session_tid(s_) : 0; }
	bool observe() { return s_ && corepin_session_observe(s_) == COREPIN_OK; }
	int refresh()
	{
		int n = 0;
		if (s_)
			corepin_session_refresh(s_, &n);
		return n;
	}
	// finish restores and verifies. false with finish_code()
	// COREPIN_ERR_RESTORE_FAILED means the thread must end; with
	// COREPIN_ERR_WRONG_THREAD nothing was done (call it on the owner).
	bool finish()
	{
		finish_code_ = s_ ? corepin_session_finish(s_) : COREPIN_OK;
		return finish_code_ == COREPIN_OK;
	}
	int finish_code() const { return finish_code_; }
	std::string report_json() const { return s_ ? detail::take(corepin_session_report_json(s_)) : std::string(); }

private:
	corepin_session *s_ = nullptr;
	int code_ = COREPIN_OK, finish_code_ = COREPIN_OK;
	std::string error_;
};

// WorkerThreadScope registers the calling thread as a compute thread for
// as long as it lives.
class WorkerThreadScope {
public:
	WorkerThreadScope() : ok_(corepin_worker_enter() == 0) {}
	WorkerThreadScope(const WorkerThreadScope &) = delete;
	WorkerThreadScope &operator=(const WorkerThreadScope &) = delete;
	~WorkerThreadScope()
	{
		if (ok_)
			corepin_worker_leave();
	}
	bool registered() const { return ok_; }

private:
	bool ok_;
};

// Maintenance runs the maintenance thread for as long as it lives; stop()
// returns its result (the "watch" object of docs/schema.md).
class Maintenance {
public:
	explicit Maintenance(const corepin_maintenance_options &o)
	{
		char msg[256] = "";
		running_ = corepin_maintenance_start(&o, msg, sizeof msg) == COREPIN_OK;
		error_ = msg;
	}
	Maintenance(const Maintenance &) = delete;
	Maintenance &operator=(const Maintenance &) = delete;
	~Maintenance() { stop(); }
	bool running() const { return running_; }
	const std::string &error() const { return error_; }
	std::string stop()
	{
		if (!running_)
			return result_;
		running_ = false;
		result_ = detail::take(corepin_maintenance_stop());
		return result_;
	}

private:
	bool running_ = false;
	std::string error_, result_;
};

} // namespace corepin

#endif
