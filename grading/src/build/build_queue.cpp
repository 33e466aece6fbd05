#include "build/build_queue.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <string>

namespace grading {

BuildQueue::BuildQueue(std::vector<size_t> order, int jobs, std::function<void(size_t)> build)
    : order_(std::move(order)), build_(std::move(build)) {
    const size_t threads = std::min<size_t>(static_cast<size_t>(std::max(jobs, 1)), std::max<size_t>(order_.size(), 1));
    for (size_t j = 0; j < threads; ++j) pool_.emplace_back([this] { work(); });
}

BuildQueue::~BuildQueue() {
    {
        std::lock_guard<std::mutex> lock(m_);
        next_ = order_.size();
    }
    for (std::thread& t : pool_)
        if (t.joinable()) t.join();
}

void BuildQueue::work() {
    // On Linux the nice value is the thread's, and the processes it starts inherit it. Only ever
    // lowered: a grader run under nice 15 keeps its builds at 15.
    const id_t self = static_cast<id_t>(syscall(SYS_gettid));
    errno = 0;
    const int nice_now = getpriority(PRIO_PROCESS, self);
    if (errno == 0 && nice_now < kBuildNice) setpriority(PRIO_PROCESS, self, kBuildNice);
    for (;;) {
        size_t i;
        {
            std::lock_guard<std::mutex> lock(m_);
            if (next_ >= order_.size()) return;
            i = order_[next_++];
            ++running_;
        }
        std::exception_ptr failed;
        try {
            build_(i);
        } catch (...) {
            failed = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(m_);
        --running_;
        if (failed) {
            if (!failure_) failure_ = failed;
            next_ = order_.size();
        } else {
            ended_.push_back(i);
        }
        changed_.notify_all();
    }
}

size_t BuildQueue::take(size_t k) {
    std::unique_lock<std::mutex> lock(m_);
    // A build that stopped the run ends the waits; with none, every index ends in time.
    changed_.wait(lock, [&] { return k < ended_.size() || failure_ || (next_ >= order_.size() && running_ == 0); });
    if (failure_) std::rethrow_exception(failure_);
    if (k >= ended_.size()) throw std::out_of_range("BuildQueue::take: no build " + std::to_string(k));
    return ended_[k];
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
