// Runs alike (grading/src/runs/runs.h, Launch): what a submission's program can read of itself --
// its command line and its environment -- is the same in every run the grader makes of it, as
// each kind of test asks for it (judge/test_kinds.h). What differs between runs reaches it only
// as options on a pipe.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "grading/src/judge/test_kinds.h"
#include "grading/src/runs/runs.h"
#include "run_options.h"

using namespace grading;

namespace {

struct Runs {
    GradingSetup setup;
    WorkerSetup worker;
    SubmissionState submission;
    TestSpec correctness, sanitizer, timed;
    GradedProgram program{"student", "/work/student/program", "/work/student/run", "", "vector_add.cu", {}};
    Runs() {
        setup.trace_ok = true;
        setup.info.trace_lib = "/trusted/libkernel_trace.so";
        setup.info.cuda_home = "/usr/local/cuda";
        setup.rubric.run_timeout_s = 30;
        worker.cuda_visible_devices = "1";
        correctness.variants = {"simple"};
        sanitizer.kind = TestKind::Sanitizer;
        sanitizer.tool = "memcheck";
        timed.kind = TestKind::Performance;
        timed.reps = 10;
    }
    GradingContext ctx() { return {setup, worker, submission}; }
};

// The program's own part of a command line: what follows the tool in front of it.
std::vector<std::string> programs_words(const Launch& l, const std::string& program) {
    return {std::find(l.argv.begin(), l.argv.end(), program), l.argv.end()};
}

}  // namespace

TEST_CASE("every run of a program has the same command line and environment; the options differ") {
    Runs r;
    GradingContext ctx = r.ctx();
    const Launch correct = launch_of(ctx, correctness_request(ctx, r.program, r.correctness, "simple", "1,1000", 11), 5);
    const Launch timed = launch_of(ctx, timed_request(ctx, r.program, r.timed, run_args("fast", "1000000", 12, 10)), 6);
    const Launch memcheck = launch_of(ctx, sanitizer_request(ctx, r.program, r.sanitizer, "host,simple", "1,7", 13), 7);

    const std::vector<std::string> expected_words = {r.program.program, cudalabs::run_options::kFlag,
                                                     std::to_string(cudalabs::run_options::kFd)};
    CHECK(correct.argv == expected_words);
    CHECK(timed.argv == expected_words);
    CHECK(programs_words(memcheck, r.program.program) == expected_words);
    CHECK(memcheck.argv.front().find("compute-sanitizer") != std::string::npos);  // the tool in front

    CHECK(correct.env == timed.env);
    CHECK(correct.env == memcheck.env);
    // The kernel trace in every run but the sanitizer's, which injects a tool of its own.
    CHECK_FALSE(correct.trace_env.empty());
    CHECK(correct.trace_env == timed.trace_env);
    CHECK(memcheck.trace_env.empty());
    // Nothing of a run's own -- seed, sizes, key -- is on the command line or in the environment.
    for (const Launch* l : {&correct, &timed, &memcheck})
        for (const std::vector<std::string>* words : {&l->argv, &l->env})
            for (const std::string& w : *words) {
                CHECK(w.find("--seed") == std::string::npos);
                CHECK(w.find("1000") == std::string::npos);
                CHECK(w.find("--fresh-inputs") == std::string::npos);
            }

    // The options: guard zones everywhere but under the sanitizer, a fresh-inputs key each.
    auto has = [](const Launch& l, const std::string& w) { return std::count(l.options.begin(), l.options.end(), w) == 1; };
    CHECK(has(correct, "--guard-buffers"));
    CHECK(has(timed, "--guard-buffers"));
    CHECK_FALSE(has(memcheck, "--guard-buffers"));
    CHECK(has(correct, "11"));
    CHECK(has(timed, "12"));
    CHECK(has(memcheck, "13"));
    // Under the sanitizer each case is launched once and not timed: the tool watches one launch.
    auto after = [](const Launch& l, const std::string& w) {
        auto it = std::find(l.options.begin(), l.options.end(), w);
        return it == l.options.end() || ++it == l.options.end() ? std::string() : *it;
    };
    CHECK(after(memcheck, "--reps") == "0");
    CHECK(after(correct, "--reps") == "1");
    for (const Launch* l : {&correct, &timed, &memcheck}) {
        CHECK(has(*l, "--channel"));
        CHECK(has(*l, "--fresh-inputs"));
    }
}
