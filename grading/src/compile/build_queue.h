// The class's builds, made beside its grading: a pool of compile threads works through the
// submissions in build order, and the grading lanes take each submission as its build ends, so
// the GPUs start on the first ones while the rest still compile. No student code runs in a build;
// the compile threads run at a lower CPU priority (nice), so that they take what the lanes leave,
// and a performance test waits for the builds to end (wait) before it times anything. A build may
// be put off to the end of the class (a compile that timed out, to be made again with a longer
// limit): it is made again once every submission handed out so far is graded, so that no timed
// test waits for it. Host-only: unit-tested.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace grading {

// The nice value the compile threads take at least (their compilers inherit it).
constexpr int kBuildNice = 10;

class BuildQueue {
public:
    // build(i, last_try) makes the build of index i and returns true when it has ended, false
    // to be made again later (ignored where last_try is true: a build is put off once).
    using Build = std::function<bool(size_t index, bool last_try)>;
    // Starts `jobs` threads (at least one) calling build(i, false) for each index of `order`, in
    // that order, and build(i, true) for each index put off, once every index that take() handed
    // out is graded() and no other build is left. An exception out of build() stops the run: no
    // further build starts, and take() and finish() rethrow the first from then on (no lane is
    // handed another submission).
    BuildQueue(std::vector<size_t> order, int jobs, Build build);
    ~BuildQueue();  // stops handing out builds and waits for those under way
    BuildQueue(const BuildQueue&) = delete;
    BuildQueue& operator=(const BuildQueue&) = delete;

    // The index whose build was the k-th to end (k from 0), waiting for it.
    size_t take(size_t k);
    // A submission that take() handed out is graded (or given up): called once for each.
    void graded();
    // The grading stopped: no build starts any more, and take() throws from now on.
    void cancel();
    // Waits until no build runs or is left to start: every one ended, was put off, or the run
    // stopped. A build put off counts again once it is started (after the class before it).
    void wait();
    // Waits for every build; rethrows the exception that stopped them.
    void finish();

private:
    void work();
    bool all_done() const;  // under m_: nothing runs, is left, or is put off
    void start_put_off();   // under m_: the builds put off, once the class before them is graded
    std::vector<std::pair<size_t, bool>> order_;  // index, last try
    Build build_;
    std::mutex m_;
    std::condition_variable changed_;
    size_t next_ = 0;             // the next place in order_ to build
    size_t running_ = 0;          // builds under way
    std::vector<size_t> ended_;   // indices, in the order their builds ended
    std::vector<size_t> put_off_; // indices to build again once the class before them is graded
    size_t graded_ = 0;           // graded() calls
    bool cancelled_ = false;
    std::exception_ptr failure_;  // the first exception out of build()
    std::vector<std::thread> pool_;
};

}  // namespace grading
