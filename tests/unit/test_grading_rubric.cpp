// The grader's rubric parser and scoring curves (grading/src/intake/rubric.h).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "grading/src/intake/rubric.h"
#include "grading_fixtures.h"

using namespace grading;

namespace {
const char* kGood = R"(# a comment
lab = 07
title = coalescing
forbid_symbols = cublas* dlopen
run_timeout = 12

[test correct]
name = Correctness
kind = correctness
points = 40
variants = simple, fast
sizes = 1 7 1000x700
random_sizes = 2 1x1..500x600
trials = 3

[test san]   # trailing comment
kind = sanitizer
tool = racecheck
points = 10
variants = fast
sizes = 33
requires = correct
visibility = hidden

[test speed]
kind = performance
points = 15
variant = fast
size = 4096x4096
curve = 1.2:1 2:0.5 4:0
rounds = 5
visibility = after_due_date
)";

std::string error_of(const std::string& text) {
    return grading_fixtures::error_from<RubricError>([&] { parse_rubric(text, "r.rubric"); });
}
}  // namespace

TEST_CASE("a rubric parses into tests with points, visibility and curves") {
    Rubric r = parse_rubric(kGood, "good.rubric");
    CHECK(r.lab == "07");
    CHECK(r.title == "coalescing");
    CHECK(r.run_timeout_s == 12);
    CHECK(r.forbid_symbols == std::vector<std::string>{"cublas*", "dlopen"});
    REQUIRE(r.tests.size() == 3);
    CHECK(r.total_points() == 65);
    const TestSpec& c = r.tests[0];
    CHECK(c.id == "correct");
    CHECK(c.kind == TestKind::Correctness);
    CHECK(c.variants == std::vector<std::string>{"simple", "fast"});
    CHECK(c.sizes == std::vector<std::string>{"1", "7", "1000x700"});
    CHECK(c.random_sizes.count == 2);
    CHECK(c.random_sizes.max == std::vector<long long>{500, 600});
    CHECK(c.trials == 3);
    CHECK(c.visibility == Visibility::Visible);
    CHECK(r.tests[1].tool == "racecheck");
    CHECK(r.tests[1].requires_tests == std::vector<std::string>{"correct"});
    CHECK(std::string(visibility_name(r.tests[1].visibility)) == "hidden");
    CHECK(std::string(visibility_name(r.tests[2].visibility)) == "after_due_date");
    CHECK(r.tests[2].rounds == 5);
    CHECK(r.find("speed") == &r.tests[2]);
    CHECK(r.find("nope") == nullptr);
}

TEST_CASE("rubric errors name the file, the line and the problem") {
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\npoints = 1\nvariants = x\nsizes = 1\nbogus = 3\n") ==
          "r.rubric:7: unknown test setting 'bogus'");
    CHECK(error_of("[test a]\nkind = correctness\nvariants = x\nsizes = 1\n").find("does not say which lab") != std::string::npos);
    CHECK(error_of("lab = 1\n").find("r.rubric:1: lab must be two digits") == 0);
    CHECK(error_of("lab = 01\n[test a]\nkind = speed\n") == "r.rubric:3: kind must be correctness, sanitizer or performance");
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\npoints = -2\n") == "r.rubric:4: points must not be negative");
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\npoints = ten\n").find("r.rubric:4: points: ") == 0);
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 0\n").find("r.rubric:5: sizes: ") == 0);
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 12y\n").find("bad size") != std::string::npos);
    // The same sizes as the lab programs' --size: "1x" is incomplete there, so it is here too.
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1x\n").find("bad size") != std::string::npos);
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1x2x3x4\n").find("bad size") != std::string::npos);
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1\n[test a]\n") ==
          "r.rubric:6: test 'a' is defined twice");
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\n") == "r.rubric:2: test 'a' has no sizes");
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1\nrequires = b\n").find("not an earlier test") != std::string::npos);
    CHECK(error_of("lab = 01\n[test p]\nkind = performance\nvariants = x y\nsizes = 1\ncurve = 1:1\n") ==
          "r.rubric:2: performance test 'p' needs exactly one variant");
    CHECK(error_of("lab = 01\n[test p]\nkind = performance\nvariants = x\nsizes = 1\n") == "r.rubric:2: performance test 'p' needs a curve");
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1\nvisibility = secret\n").find("visibility must be") != std::string::npos);
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1\ntrials = 0\n") == "r.rubric:6: trials must be 1 to 100");
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1\nrandom_sizes = 2 5..1\n").find("MIN is above MAX") != std::string::npos);
    CHECK(error_of("lab = 01\n[oops]\n") == "r.rubric:2: expected a section [test ID]");
    CHECK(error_of("lab = 01\nno equals sign\n") == "r.rubric:2: expected KEY = VALUE");
    CHECK(error_of("lab = 01\nlab = 02\n") == "r.rubric:2: 'lab' is given twice");
    CHECK(error_of("lab = 01\n").find("no [test ...] section") != std::string::npos);
    // Settings the audit of the compiled object replaced: an old rubric is told what to use.
    CHECK(error_of("lab = 01\nforbid_includes = cublas*.h\n").find("r.rubric:2: forbid_includes is no longer used") == 0);
    CHECK(error_of("lab = 01\nallow_symbols = foo\n") == "r.rubric:2: unknown setting 'allow_symbols'");
    CHECK(error_of("lab = 01\n[test a]\nkind = correctness\nvariants = x\nsizes = 1\nhost_transfers = some\n") ==
          "r.rubric:6: host_transfers must be allowed, to_device or none");
    CHECK(error_of("lab = 01\nplausible_bandwidth = 0.5\n") == "r.rubric:2: plausible_bandwidth must be at least 1");
    CHECK(error_of(kGood).empty());
}

TEST_CASE("host transfer rules, allowed imports and plausibility factors parse") {
    Rubric r = parse_rubric("lab = 01\nallow_imports = rand srand\nplausible_bandwidth = 1.5\nplausible_flop_rate = 8\n"
                            "[test a]\nkind = correctness\nvariants = x\nsizes = 1\nhost_transfers = to_device\n"
                            "[test b]\nkind = correctness\nvariants = x\nsizes = 1\n",
                            "r.rubric");
    CHECK(r.allow_imports == std::vector<std::string>{"rand", "srand"});
    CHECK(r.plausible_bandwidth == 1.5);
    CHECK(r.plausible_flop_rate == 8);
    CHECK(r.tests[0].host_transfers == HostTransfers::ToDevice);
    CHECK(r.tests[1].host_transfers == HostTransfers::Allowed);  // the default
    CHECK(std::string(host_transfers_name(HostTransfers::None)) == "none");
}

TEST_CASE("scoring curves: full marks within the first factor, linear between points, floor beyond") {
    Curve c = parse_curve("1.2:1 2:0.5 4:0");
    CHECK(c.fraction(0.5) == 1.0);  // faster than the reference
    CHECK(c.fraction(1.2) == 1.0);
    CHECK(c.fraction(1.6) == doctest::Approx(0.75));
    CHECK(c.fraction(2.0) == doctest::Approx(0.5));
    CHECK(c.fraction(3.0) == doctest::Approx(0.25));
    CHECK(c.fraction(100.0) == 0.0);
    CHECK(c.fraction(std::nan("")) == 0.0);  // nothing measured: nothing earned
    Curve floor = parse_curve("1.5:1 3:0.2");
    CHECK(floor.fraction(10) == doctest::Approx(0.2));
    CHECK_THROWS_AS(parse_curve(""), std::invalid_argument);
    CHECK_THROWS_AS(parse_curve("2:1 1.5:0.5"), std::invalid_argument);  // slowdowns must increase
    CHECK_THROWS_AS(parse_curve("1:0.5 2:1"), std::invalid_argument);    // fractions must not rise
    CHECK_THROWS_AS(parse_curve("1:1.5"), std::invalid_argument);
    CHECK_THROWS_AS(parse_curve("0.5:1"), std::invalid_argument);
    CHECK_THROWS_AS(parse_curve("1-1"), std::invalid_argument);
}

TEST_CASE("glob patterns match whole names") {
    CHECK(glob_match("cublas*", "cublasSgemm_v2"));
    CHECK(glob_match("cublas*", "cublas"));
    CHECK_FALSE(glob_match("cublas*", "my_cublas"));
    CHECK(glob_match("exec?", "execv"));
    CHECK_FALSE(glob_match("exec?", "execvp"));
    CHECK(glob_match("*.h", "cublas_v2.h"));
    CHECK(glob_match("a*b*c", "aXXbYYc"));
    CHECK_FALSE(glob_match("a*b*c", "aXXbYY"));
}

TEST_CASE("every committed rubric parses") {
    for (const char* lab : {"01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13"}) {
        std::string path = std::string("grading/rubrics/") + lab + ".rubric";
        if (!std::ifstream(path)) continue;
        CAPTURE(path);
        Rubric r;
        CHECK_NOTHROW(r = load_rubric(path));
        CHECK(r.lab == lab);
        CHECK(r.total_points() > 0);
    }
    CHECK_THROWS_AS(load_rubric("grading/rubrics/no-such.rubric"), RubricError);
}

TEST_CASE("a rubric must agree with what the lab declares (--describe)") {
    const char* text = R"(lab = 12
title = t
[test correct_a]
name = A
kind = correctness
points = 10
variants = a
sizes = 1 7x5x3 2048
[test correct_b]
name = B
kind = correctness
points = 10
variants = b
sizes = 1 2048 7x5x3 9
[test memcheck]
name = M
kind = sanitizer
tool = memcheck
points = 5
variants = a b
sizes = 1
)";
    LabDeclaration lab;
    lab.variants = {"ref", "a", "b"};
    lab.yardsticks = {"ref"};
    lab.check_sizes = {"1", "7x5x3", "2048"};
    // The order does not matter, and a rubric may add sizes (9).
    CHECK(rubric_disagreements(parse_rubric(text, "r"), lab).empty());

    // A check size the rubric dropped, named with the test.
    lab.check_sizes.push_back("384x256x48");
    auto found = rubric_disagreements(parse_rubric(text, "r"), lab);
    REQUIRE(found.size() == 2);
    CHECK(found[0].find("correct_a") != std::string::npos);
    CHECK(found[0].find("384x256x48") != std::string::npos);
    lab.check_sizes.pop_back();

    // A variant the lab does not have, a yardstick graded as the student's, a variant untested.
    LabDeclaration other = lab;
    other.variants = {"ref", "a", "c"};
    found = rubric_disagreements(parse_rubric(text, "r"), other);
    auto mentions = [&](const std::string& what) {
        for (const std::string& f : found)
            if (f.find(what) != std::string::npos) return true;
        return false;
    };
    CHECK(mentions("names variant 'b', which the lab does not have"));
    CHECK(mentions("no correctness test covers variant 'c'"));
    other = lab;
    other.yardsticks = {"ref", "a"};
    found = rubric_disagreements(parse_rubric(text, "r"), other);
    CHECK(mentions("'a', which is the lab's yardstick"));
}
