// make bench-runner: how many runs a second the grader's process runner (grading/src/sandbox:
// run_process) starts, from several threads at once as the lanes and compile jobs do, while the
// grader holds more or less memory. Host-only: it starts /bin/true, no sandbox and no GPU.
//
// A run's start used to be a fork, which copies the grader's page tables, one start at a time:
// its cost grew with the memory the grader held, and every lane and compile job waited for the
// others' copies. The runner now starts a child as posix_spawn does (sandbox.cpp), whose cost
// does not depend on that memory. Each row is one batch: THREADS threads, RUNS runs each.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "isolation/isolation.h"
#include "util/files.h"
#include "util/text.h"

using namespace grading;

namespace {

// Runs a second with `threads` threads starting `runs` runs each; -1 when a run failed.
double runs_a_second(int threads, int runs, const std::string& scratch) {
    std::atomic<bool> failed{false};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            RunSpec spec;
            spec.argv = {"/bin/true"};
            spec.cwd = scratch + "/run-" + std::to_string(t);
            spec.env = scrubbed_env(spec.cwd, "/usr/bin");
            for (int i = 0; i < runs; ++i)
                if (!run_process(spec).ok()) failed = true;
        });
    for (std::thread& w : workers) w.join();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return failed ? -1 : threads * runs / wall;
}

}  // namespace

int main() {
    char tmpl[] = "/tmp/cudalabs-runner-XXXXXX";
    if (!mkdtemp(tmpl)) {
        std::perror("bench-runner: mkdtemp");
        return 1;
    }
    const int threads = 8, runs = 60;
    std::printf("The grader's process runner: runs of /bin/true a second, %d threads at once, %d runs each\n", threads, runs);
    std::printf("| memory the grader holds (MB) | runs a second |\n|---:|---:|\n");
    for (size_t mb : {size_t(0), size_t(100), size_t(1000)}) {
        std::vector<char> held(mb << 20);
        std::memset(held.data(), 1, held.size());  // touched: in the page tables
        const double rate = runs_a_second(threads, runs, tmpl);
        if (rate < 0) {
            std::fprintf(stderr, "bench-runner: a run of /bin/true failed\n");
            return 1;
        }
        std::printf("| %zu | %.0f |\n", mb, rate);
    }
    remove_tree(tmpl);
    return 0;
}
