#include "compile/build_queue.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <string>

namespace grading {

BuildQueue::BuildQueue(std::vector<size_t> order, int jobs, Build build) : build_(std::move(build)) {
    for (size_t i : order) order_.emplace_back(i, false);
    const size_t threads = std::min<size_t>(static_cast<size_t>(std::max(jobs, 1)), std::max<size_t>(order_.size(), 1));
    for (size_t j = 0; j < threads; ++j) pool_.emplace_back([this] { work(); });
}

BuildQueue::~BuildQueue() {
    cancel();
    for (std::thread& t : pool_)
        if (t.joinable()) t.join();
}

bool BuildQueue::all_done() const { return next_ >= order_.size() && running_ == 0 && put_off_.empty(); }

void BuildQueue::start_put_off() {
    // Every build ended has been handed out and graded: no timed test is under way or to come
    // but those of the builds put off.
    if (cancelled_ || put_off_.empty() || next_ < order_.size() || running_ > 0 || graded_ < ended_.size()) return;
    for (size_t i : put_off_) order_.emplace_back(i, true);
    put_off_.clear();
}

void BuildQueue::work() {
    // On Linux the nice value is the thread's, and the processes it starts inherit it. Only ever
    // lowered: a grader run under nice 15 keeps its builds at 15.
    const id_t self = static_cast<id_t>(syscall(SYS_gettid));
    errno = 0;
    const int nice_now = getpriority(PRIO_PROCESS, self);
    if (errno == 0 && nice_now < kBuildNice) setpriority(PRIO_PROCESS, self, kBuildNice);
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
        // A thread with nothing to build stays for the builds put off, until all is done.
        changed_.wait(lock, [&] { return next_ < order_.size() || all_done(); });
        if (next_ >= order_.size()) return;
        const std::pair<size_t, bool> job = order_[next_++];
        ++running_;
        lock.unlock();
        std::exception_ptr failed;
        bool ended = true;
        try {
            ended = build_(job.first, job.second) || job.second;  // put off once at the most
        } catch (...) {
            failed = std::current_exception();
        }
        lock.lock();
        --running_;
        if (failed) {
            if (!failure_) failure_ = failed;
            next_ = order_.size();
            put_off_.clear();
        } else if (ended) {
            ended_.push_back(job.first);
        } else if (!cancelled_) {
            put_off_.push_back(job.first);
        }
        start_put_off();
        changed_.notify_all();
    }
}

size_t BuildQueue::take(size_t k) {
    std::unique_lock<std::mutex> lock(m_);
    // A build that stopped the run ends the waits; with none, every index ends in time.
    changed_.wait(lock, [&] { return k < ended_.size() || failure_ || cancelled_ || all_done(); });
    if (failure_) std::rethrow_exception(failure_);
    if (cancelled_) throw std::runtime_error("BuildQueue::take: the grading stopped");
    if (k >= ended_.size()) throw std::out_of_range("BuildQueue::take: no build " + std::to_string(k));
    return ended_[k];
}

void BuildQueue::graded() {
    std::lock_guard<std::mutex> lock(m_);
    ++graded_;
    start_put_off();
    changed_.notify_all();
}

void BuildQueue::cancel() {
    std::lock_guard<std::mutex> lock(m_);
    cancelled_ = true;
    next_ = order_.size();
    put_off_.clear();
    changed_.notify_all();
}

void BuildQueue::wait() {
    std::unique_lock<std::mutex> lock(m_);
    changed_.wait(lock, [&] { return next_ >= order_.size() && running_ == 0; });
}

void BuildQueue::finish() {
    wait();
    std::lock_guard<std::mutex> lock(m_);
    if (failure_) std::rethrow_exception(failure_);
}

}  // namespace grading
