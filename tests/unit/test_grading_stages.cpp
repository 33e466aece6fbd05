// The grader's stage logic that needs no GPU: trusted-build info, the inputs checked before a
// build, seeds and hidden sizes, regrade comparison (grading/src/intake/lab_info.h,
// submissions.h, seeds.h, regrade.h).
#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "args.h"
#include "exit_codes.h"
#include "grading/src/intake/command_line.h"
#include "grading/src/intake/lab_info.h"
#include "grading/src/class/regrade.h"
#include "grading/src/runs/runs.h"
#include "grading/src/intake/seeds.h"
#include "grading/src/intake/submissions.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"
#include "sealed_memory.h"

using namespace grading;

TEST_CASE("make grading-info output is read as KEY=VALUE lines") {
    auto kv = parse_grading_info("make[1]: entering\ngrading-info:LABDIR=labs/01-vector-add\n"
                                 "grading-info:NVCCFLAGS=-O3 -Icommon\nnoise=1\ngrading-info:EMPTY=\n");
    CHECK(kv.size() == 3);
    CHECK(kv["LABDIR"] == "labs/01-vector-add");
    CHECK(kv["NVCCFLAGS"] == "-O3 -Icommon");
    CHECK(kv.count("noise") == 0);
}

TEST_CASE("seeds and hidden sizes are fixed by the base seed, the test and the trial") {
    CHECK(derive_seed(42, "correct_fast", 0) == derive_seed(42, "correct_fast", 0));
    CHECK(derive_seed(42, "correct_fast", 0) != derive_seed(42, "correct_fast", 1));
    CHECK(derive_seed(42, "correct_fast", 0) != derive_seed(42, "correct_simple", 0));
    CHECK(derive_seed(42, "correct_fast", 0) != derive_seed(43, "correct_fast", 0));
    std::set<unsigned long long> seen;
    for (int t = 0; t < 100; ++t) {
        unsigned long long s = derive_seed(7, "t", t);
        CHECK(s >= 1);
        CHECK(s <= 2147483647ull);
        seen.insert(s);
    }
    CHECK(seen.size() == 100);

    TestSpec t;
    t.sizes = {"1", "7x5"};
    t.random_sizes = {3, {10, 20}, {100, 30}};
    auto a = sizes_for(t, 99), b = sizes_for(t, 99), c = sizes_for(t, 100);
    CHECK(a == b);
    CHECK(a != c);
    REQUIRE(a.size() == 5);
    CHECK(a[0] == "1");
    for (size_t i = 2; i < a.size(); ++i) {
        cudalabs::Dims d = cudalabs::parse_dims(a[i]);
        REQUIRE(d.size() == 2);
        CHECK(d[0] >= 10);
        CHECK(d[0] <= 100);
        CHECK(d[1] >= 20);
        CHECK(d[1] <= 30);
    }
}

TEST_CASE("submissions: a missing, empty or unreadable input is refused before anything is built") {
    char tmpl[] = "/tmp/grading-inputs-XXXXXX";
    const std::string root = mkdtemp(tmpl);
    make_dirs(root + "/empty");
    make_dirs(root + "/class");
    write_file(root + "/class/alice.cu", "x");
    auto refusal = [](const std::vector<std::string>& inputs) {
        try {
            check_submission_inputs(inputs);
        } catch (const cudalabs::UsageError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(refusal({root + "/class"}).empty());
    CHECK(refusal({root + "/class/alice.cu"}).empty());
    CHECK(refusal({root + "/missing"}).find("no such file or folder: " + root + "/missing") == 0);
    CHECK(refusal({root + "/class", root + "/empty"}).find("the folder " + root + "/empty is empty") == 0);
    if (geteuid() != 0) {  // root reads whatever the permissions say
        make_dirs(root + "/closed");
        write_file(root + "/closed/bob.cu", "x");
        chmod((root + "/closed").c_str(), 0);
        CHECK(refusal({root + "/closed"}).find("cannot read the folder " + root + "/closed") == 0);
        chmod((root + "/closed").c_str(), 0700);
    }
    remove_tree(root);
}

TEST_CASE("an unknown lab is refused with the labs there are") {
    char tmpl[] = "/tmp/grading-labs-XXXXXX";
    const std::string root = mkdtemp(tmpl);
    make_dirs(root + "/grading/rubrics");
    for (const char* f : {"01.rubric", "04.rubric", "13.rubric", "README.md"}) write_file(root + "/grading/rubrics/" + f, "x");
    CHECK(rubric_of_lab(root, "04") == root + "/grading/rubrics/04.rubric");
    const std::string why = grading_fixtures::error_from<cudalabs::UsageError>([&] { rubric_of_lab(root, "99"); });
    CHECK(why == "there is no lab 99 (--lab): the labs are 01, 04, 13");
    const std::string none = grading_fixtures::error_from<cudalabs::UsageError>([&] { rubric_of_lab(root + "/grading", "01"); });
    CHECK(none.find("there is no lab 01: " + root + "/grading/grading/rubrics holds no rubric") == 0);
    remove_tree(root);
}

TEST_CASE("regrade: same scores, changed scores, changed file, new student") {
    std::string log =
        "{\"event\":\"run\",\"seed\":1234}\n"
        "{\"event\":\"submission\",\"student\":\"alice\",\"sha256\":\"aa\",\"scores\":{\"t1\":10,\"t2\":5}}\n";
    RegradeBaseline b = parse_regrade_baseline(log, "audit.jsonl");
    CHECK(b.seed == 1234);
    StudentResult r;
    r.student = "alice";
    r.sha256 = "aa";
    r.tests = {{"t1", "T1", 10, 10, Visibility::Visible, ""}, {"t2", "T2", 5, 10, Visibility::Visible, ""}};
    CHECK(regrade_difference(r, b).empty());
    r.tests[1].score = 7.5;
    CHECK(regrade_difference(r, b) == "alice: results differ from the earlier run: t2 5 -> 7.5");
    r.sha256 = "bb";
    CHECK(regrade_difference(r, b).find("changed since the earlier run") != std::string::npos);
    r.student = "zoe";
    CHECK(regrade_difference(r, b).find("not in the earlier run") != std::string::npos);
    CHECK_THROWS_AS(parse_regrade_baseline("{\"event\":\"run\",\"seed\":1}\n", "x"), cudalabs::UsageError);
    CHECK_THROWS_AS(parse_regrade_baseline("not json\n", "x"), cudalabs::UsageError);
}

TEST_CASE("program_fate: what ended a student's run, in words that say what to do") {
    RunResult r;
    r.started = true;
    r.exit_code = 0;
    CHECK(program_fate(r).empty());
    r.exit_code = cudalabs::kExitFail;  // a check failed: the verdict says more
    CHECK(program_fate(r).empty());
    r.exit_code = -1;
    r.signal = SIGSEGV;
    CHECK(program_fate(r).find("crash in host code") != std::string::npos);
    // The harness said it stopped a CPU read of sealed memory: the feedback says so instead.
    r.err = std::string("progress...\nerror: ") + cudalabs::kSealedReadMessage + "\n";
    CHECK(program_fate(r).find("only the GPU may read") != std::string::npos);
    CHECK(program_fate(r).find("crash in host code") == std::string::npos);
    r.err.clear();
    r.signal = SIGXFSZ;  // its output passed the file size limit
    CHECK(program_fate(r).find("file size limit") != std::string::npos);
    CHECK(program_fate(r).find("crash") == std::string::npos);
    r.signal = 0;
    r.timed_out = true;
    CHECK(program_fate(r).find("endless loop") != std::string::npos);
}

TEST_CASE("parse_lab_declaration reads --describe's JSON and refuses anything else") {
    const LabDeclaration d = parse_lab_declaration(
        R"({"lab": "12", "variants": [{"name": "cublas", "yardstick": true}, {"name": "tiled", "yardstick": false}],
            "check_sizes": ["1", "7x5x3"], "bench_sizes": [], "quick_sizes": [], "targets": []})",
        "sol12 --describe");
    CHECK(d.variants == std::vector<std::string>{"cublas", "tiled"});
    CHECK(d.yardsticks == std::vector<std::string>{"cublas"});
    CHECK(d.check_sizes == std::vector<std::string>{"1", "7x5x3"});
    CHECK_THROWS_WITH_AS(parse_lab_declaration("cublas\ntiled\n", "sol12 --describe"),
                         doctest::Contains("sol12 --describe did not print the lab's description"), std::runtime_error);
    CHECK_THROWS_AS(parse_lab_declaration(R"({"variants": [], "check_sizes": []})", "x"), std::runtime_error);
}
