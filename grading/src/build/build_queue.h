// The class's builds, made beside its grading: a pool of compile threads works through the
// submissions in build order, and the grading lanes take each submission as its build ends, so
// the GPUs start on the first ones while the rest still compile. No student code runs in a build;
// the compile threads run at a lower CPU priority (nice), so that they take what the lanes leave,
// and a performance test waits for the builds to end (wait) before it times anything.
// Host-only: unit-tested.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace grading {

// The nice value the compile threads take at least (their compilers inherit it).
constexpr int kBuildNice = 10;

class BuildQueue {
public:
    // Starts `jobs` threads (at least one) calling build(i) for each index of `order`, in that
    // order. An exception out of build() stops the run: no further build starts, and take() and
    // finish() rethrow the first from then on (no lane is handed another submission).
    BuildQueue(std::vector<size_t> order, int jobs, std::function<void(size_t)> build);
    ~BuildQueue();  // stops handing out builds and waits for those under way
    BuildQueue(const BuildQueue&) = delete;
    BuildQueue& operator=(const BuildQueue&) = delete;

    // The index whose build was the k-th to end (k from 0), waiting for it.
    size_t take(size_t k);
    // Waits until no build runs or is left to start (every one ended, or the run stopped).
    void wait();
    // Waits for every build; rethrows the exception that stopped them.
    void finish();

private:
    void work();
    std::vector<size_t> order_;
    std::function<void(size_t)> build_;
    std::mutex m_;
    std::condition_variable changed_;
    size_t next_ = 0;             // the next place in order_ to build
    size_t running_ = 0;          // builds under way
    std::vector<size_t> ended_;   // indices, in the order their builds ended
    std::exception_ptr failure_;  // the first exception out of build()
    std::vector<std::thread> pool_;
};

}  // namespace grading
