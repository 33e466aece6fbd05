// The builds beside the grading (grading/src/compile/build_queue.h): every submission built once and
// taken once, in the order the builds end; a lane takes a submission while others still build; a
// build that stops the run ends every wait; a timed test waits for the builds to end; the compile
// threads at a lower CPU priority; a build put off is made again once the class before it is
// graded, and no timed test waits for it.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "grading/src/compile/build_queue.h"

using namespace grading;

namespace {
int thread_nice() { return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))); }
}  // namespace

TEST_CASE("build queue: every submission built once and taken once, lanes taking them as their builds end") {
    const size_t n = 40;
    std::vector<size_t> order;
    for (size_t i = 0; i < n; ++i) order.push_back((i * 7) % n);  // a build order other than the class's
    std::vector<std::atomic<int>> built(n);
    BuildQueue builds(order, 6, [&](size_t i, bool) {
        std::this_thread::sleep_for(std::chrono::microseconds(200 * (i % 5)));
        ++built[i];
        return true;
    });
    std::mutex m;
    std::vector<size_t> taken;
    std::atomic<size_t> next{0};
    std::vector<std::thread> lanes;
    for (int l = 0; l < 4; ++l)
        lanes.emplace_back([&] {
            for (size_t k; (k = next++) < n;) {
                const size_t i = builds.take(k);
                CHECK(built[i].load() == 1);  // its build has ended before it is graded
                std::lock_guard<std::mutex> lock(m);
                taken.push_back(i);
            }
        });
    for (std::thread& t : lanes) t.join();
    builds.finish();
    CHECK(std::set<size_t>(taken.begin(), taken.end()).size() == n);
    for (size_t i = 0; i < n; ++i) CHECK(built[i].load() == 1);
    CHECK_THROWS_AS(builds.take(n), std::out_of_range);  // no more than the class
}

TEST_CASE("build queue: one compile thread builds in the given order, and a lane starts before the last build ends") {
    std::mutex m;
    std::condition_variable cv;
    bool release_last = false;
    std::vector<size_t> started;
    BuildQueue builds({2, 0, 1}, 1, [&](size_t i, bool) {
        std::unique_lock<std::mutex> lock(m);
        started.push_back(i);
        if (i == 1) cv.wait(lock, [&] { return release_last; });  // the last build hangs on
        return true;
    });
    CHECK(builds.take(0) == 2);
    CHECK(builds.take(1) == 0);  // graded while index 1 still builds
    {
        std::lock_guard<std::mutex> lock(m);
        release_last = true;
    }
    cv.notify_all();
    CHECK(builds.take(2) == 1);
    builds.finish();
    CHECK(started == std::vector<size_t>{2, 0, 1});
}

TEST_CASE("build queue: a build that stops the run ends every wait, and no build starts after it") {
    std::atomic<int> builds_made{0};
    BuildQueue builds({0, 1, 2, 3}, 1, [&](size_t i, bool) {
        if (i == 1) throw std::runtime_error("the disk is full");
        ++builds_made;
        return true;
    });
    CHECK_THROWS_WITH(builds.take(1), "the disk is full");  // a lane waiting for more is told
    CHECK_THROWS_WITH(builds.take(0), "the disk is full");  // and so is every lane that asks after it
    CHECK_THROWS_WITH(builds.finish(), "the disk is full");
    CHECK(builds_made.load() == 1);  // 2 and 3 were never built
}

TEST_CASE("build queue: the compile threads run at a lower CPU priority, the grader's own threads unchanged") {
    const int before = thread_nice();
    std::atomic<int> seen{-100};
    {
        BuildQueue builds({0}, 1, [&](size_t, bool) {
            seen = thread_nice();
            return true;
        });
        builds.finish();
    }
    CHECK(seen.load() >= kBuildNice);
    CHECK(seen.load() >= before);  // never raised
    CHECK(thread_nice() == before);
}

TEST_CASE("build queue: stopped early (the grading failed), it waits for the builds under way and starts no other") {
    std::atomic<int> started{0};
    {
        BuildQueue builds({0, 1, 2, 3, 4, 5, 6, 7}, 2, [&](size_t, bool) {
            ++started;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return true;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }  // (destroyed while the first two build)
    CHECK(started.load() <= 4);
}

TEST_CASE("build queue: wait() returns once no build runs or is left, without the failure that stopped them") {
    std::mutex m;
    std::condition_variable cv;
    bool release = false;
    std::atomic<bool> waited{false};
    BuildQueue builds({0, 1}, 2, [&](size_t i, bool) {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return release; });
        if (i == 1) throw std::runtime_error("the disk is full");
        return true;
    });
    std::thread timed_test([&] {
        builds.wait();  // a performance test, before it times anything
        waited = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK_FALSE(waited.load());  // the builds still run
    {
        std::lock_guard<std::mutex> lock(m);
        release = true;
    }
    cv.notify_all();
    timed_test.join();
    CHECK(waited.load());
    CHECK_THROWS_WITH(builds.finish(), "the disk is full");
}

TEST_CASE("build queue: a build put off is made again, as its last try, once every submission handed out before it is graded") {
    std::mutex m;
    std::vector<std::pair<size_t, bool>> made;  // index, last try
    BuildQueue builds({0, 1, 2}, 2, [&](size_t i, bool last_try) {
        std::lock_guard<std::mutex> lock(m);
        made.emplace_back(i, last_try);
        return i != 1 || last_try;  // 1's compile timed out: put off
    });
    const size_t a = builds.take(0), b = builds.take(1);
    CHECK(std::set<size_t>{a, b} == std::set<size_t>{0, 2});
    builds.wait();  // a timed test of 0 or 2 does not wait for 1's second try
    std::atomic<bool> taken{false};
    std::atomic<size_t> last{99};
    std::thread lane([&] {
        last = builds.take(2);  // a lane waiting for the class's last build
        taken = true;
    });
    builds.graded();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    CHECK_FALSE(taken.load());  // one submission handed out is still being graded
    {
        std::lock_guard<std::mutex> lock(m);
        CHECK(made.size() == 3);
    }
    builds.graded();  // now every one is
    lane.join();
    CHECK(last.load() == 1);
    builds.graded();
    builds.finish();
    const std::vector<std::pair<size_t, bool>> once_more = {{1, true}};
    CHECK(std::vector<std::pair<size_t, bool>>(made.begin() + 3, made.end()) == once_more);
    CHECK(std::count(made.begin(), made.end(), std::make_pair(size_t{1}, false)) == 1);
    CHECK_THROWS_AS(builds.take(3), std::out_of_range);
}

TEST_CASE("build queue: a build is put off once at the most, and a cancelled run ends the waits for one") {
    SUBCASE("put off again on its last try: it has ended") {
        std::atomic<int> tries{0};
        BuildQueue builds({0}, 1, [&](size_t, bool) {
            ++tries;
            return false;
        });
        CHECK(builds.take(0) == 0);  // (made again at once: nothing was handed out before it)
        builds.graded();
        builds.finish();
        CHECK(tries.load() == 2);
    }
    SUBCASE("cancelled while a lane waits for a build put off: the lane is told, and the build is not made again") {
        std::atomic<int> tries{0};
        BuildQueue builds({0, 1}, 1, [&](size_t i, bool) {
            ++tries;
            return i == 0;
        });
        CHECK(builds.take(0) == 0);  // handed out, not yet graded
        std::thread lane([&] { CHECK_THROWS_WITH(builds.take(1), doctest::Contains("the grading stopped")); });
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        builds.cancel();  // the lane grading 0 failed
        lane.join();
        builds.graded();
        CHECK(tries.load() == 2);
    }
}
