// The grader's rubric parser and scoring curves (grading/src/intake/rubric.h).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "grading/src/intake/rubric.h"
#include "grading_fixtures.h"
#include "util/files.h"
#include "util/text.h"

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
    CHECK(error_of("lab = 01\n[test a]\nkind = speed\n") == "r.rubric:3: kind must be correctness, sanitizer, performance or questions");
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

namespace {
// A ladder of three rungs and a yardstick, as --describe declares it.
LabDeclaration ladder_of(std::vector<std::string> rungs) {
    LabDeclaration lab;
    lab.variants = {"ref"};
    lab.variants.insert(lab.variants.end(), rungs.begin(), rungs.end());
    lab.yardsticks = {"ref"};
    lab.check_sizes = {"1"};
    return lab;
}

const char* kFamily = R"(lab = 12
[test correct_RUNG for each rung]
name = Correctness: RUNG
points = 11
variants = RUNG
sizes = 1 7
[test correct_top]
name = Correctness: top
points = 15
variants = top
sizes = 1 7
[test memcheck]
kind = sanitizer
points = 10
variants = RUNGS
sizes = 1
requires = correct_RUNGS
)";

// A test as the grader uses it, in one line: what a family must expand to.
std::string summary(const TestSpec& t) {
    std::string s = t.id + "|" + t.name + "|" + std::to_string(static_cast<int>(t.kind)) + "|" + std::to_string(t.points) + "|";
    for (const auto* list : {&t.variants, &t.sizes, &t.requires_tests}) s += join(*list, ",") + "|";
    return s + std::to_string(t.trials);
}
}  // namespace

TEST_CASE("a test for each rung expands from the lab's declared rungs, in the ladder's order") {
    const LabDeclaration lab = ladder_of({"low", "mid", "top"});
    const Rubric r = parse_rubric(kFamily, "r.rubric", &lab);
    std::vector<std::string> ids;
    for (const TestSpec& t : r.tests) ids.push_back(t.id);
    // `top` has a test of its own: the family leaves it out.
    CHECK(ids == std::vector<std::string>{"correct_low", "correct_mid", "correct_top", "memcheck"});
    CHECK(r.tests[1].name == "Correctness: mid");
    CHECK(r.tests[1].variants == std::vector<std::string>{"mid"});
    CHECK(r.tests[1].points == 11);
    CHECK(r.total_points() == 11 + 11 + 15 + 10);
    CHECK(r.tests[3].variants == std::vector<std::string>{"low", "mid", "top"});
    CHECK(r.tests[3].requires_tests == std::vector<std::string>{"correct_low", "correct_mid", "correct_top"});
    CHECK(rubric_disagreements(r, lab).empty());

    // The same rubric with each rung written out reads the same: a family changes no score.
    std::string text = "lab = 12\n";
    for (const auto& [rung, points] : std::vector<std::pair<std::string, std::string>>{{"low", "11"}, {"mid", "11"}, {"top", "15"}})
        text += "[test correct_" + rung + "]\nname = Correctness: " + rung + "\npoints = " + points + "\nvariants = " + rung +
                "\nsizes = 1 7\n";
    text += "[test memcheck]\nkind = sanitizer\npoints = 10\nvariants = low mid top\nsizes = 1\n"
            "requires = correct_low correct_mid correct_top\n";
    const Rubric written = parse_rubric(text, "written.rubric");
    REQUIRE(written.tests.size() == r.tests.size());
    for (size_t i = 0; i < r.tests.size(); ++i) CHECK(summary(r.tests[i]) == summary(written.tests[i]));

    // A rung added to the declaration alone is graded and sanitized.
    const LabDeclaration more = ladder_of({"low", "mid", "new", "top"});
    const Rubric grown = parse_rubric(kFamily, "r.rubric", &more);
    REQUIRE(grown.tests.size() == 5);
    CHECK(grown.tests[2].id == "correct_new");
    CHECK(grown.tests[4].variants == std::vector<std::string>{"low", "mid", "new", "top"});
    CHECK(rubric_disagreements(grown, more).empty());
}

TEST_CASE("without the lab, a test for each rung reads as one test of a stand-in rung, RUNG") {
    const Rubric r = parse_rubric(kFamily, "r.rubric");
    REQUIRE(r.tests.size() == 3);
    CHECK(r.tests[0].id == "correct_RUNG");
    CHECK(r.tests[0].variants == std::vector<std::string>{"RUNG"});
    CHECK(r.tests[2].requires_tests == std::vector<std::string>{"correct_RUNG"});
    // A rubric that names no rung reads the same with the lab or without.
    const LabDeclaration lab = ladder_of({"simple", "fast"});
    CHECK(parse_rubric(kGood, "good.rubric", &lab).total_points() == parse_rubric(kGood, "good.rubric").total_points());
}

TEST_CASE("a test for each rung: errors name the family's own lines") {
    CHECK(error_of("lab = 01\n[test correct for each rung]\npoints = 1\nvariants = RUNG\nsizes = 1\n") ==
          "r.rubric:2: the id of a test for each rung must hold RUNG, which each rung's name replaces (correct_RUNG)");
    // Each rung's test is checked at the family's lines.
    const LabDeclaration lab = ladder_of({"a", "b"});
    const std::string bad = "lab = 01\n[test c_RUNG for each rung]\npoints = 1\nvariants = RUNG\nsizes = 1\ntrials = 0\n";
    CHECK(grading_fixtures::error_from<RubricError>([&] { parse_rubric(bad, "r.rubric", &lab); }) == "r.rubric:6: trials must be 1 to 100");
    CHECK(error_of("lab = 01\n[test c_RUNG for each rung]\npoints = 1\nvariants = RUNG\nsizes = 1\npoints = 2\n") ==
          "r.rubric:6: 'points' is given twice");
}

TEST_CASE("lab 12's rubric grades the ladder its driver declares as it did with each rung written out") {
    const LabDeclaration lab = ladder_of({"tiled", "coarse1d", "coarse2d", "vectorized", "warptile", "fast"});
    const Rubric r = load_rubric("grading/rubrics/12.rubric", &lab);
    std::vector<std::string> tests;
    for (const TestSpec& t : r.tests) tests.push_back(t.id + " " + std::to_string(static_cast<int>(t.points)) + " " + join(t.variants, ","));
    CHECK(tests == std::vector<std::string>{"correct_tiled 11 tiled", "correct_coarse1d 11 coarse1d", "correct_coarse2d 11 coarse2d",
                                            "correct_vectorized 11 vectorized", "correct_warptile 11 warptile", "correct_fast 15 fast",
                                            "memcheck 10 tiled,coarse1d,coarse2d,vectorized,warptile,fast",
                                            "racecheck 5 tiled,coarse1d,coarse2d,vectorized,warptile,fast", "perf_fast 15 fast",
                                            "questions 6 "});
    CHECK(join(r.find("memcheck")->requires_tests, " ") ==
          "correct_tiled correct_coarse1d correct_coarse2d correct_vectorized correct_warptile correct_fast");
}

TEST_CASE("the rubric's settings alone: what the audit reads, from a file whose tests have no sizes") {
    // As the student edition's tools/preview/NN.tests: the audit's settings, then tests without sizes.
    const Rubric r = parse_rubric_settings("# made from the rubric\nlab = 01\nforbid_symbols = cublas* thrust::*\n"
                                           "allow_imports = rand\ncompile_timeout = 90\nfile_limit_mb = 64\n"
                                           "[test correct_host]\nkind = correctness\npoints = 20\nvisibility = visible\n",
                                           "01.tests");
    CHECK(r.lab == "01");
    CHECK(r.forbid_symbols == std::vector<std::string>{"cublas*", "thrust::*"});
    CHECK(r.allow_imports == std::vector<std::string>{"rand"});
    CHECK(r.compile_timeout_s == 90);
    CHECK(r.file_limit_mb == 64);
    CHECK(r.tests.empty());
    // The same errors as the whole rubric's, for its settings.
    auto settings_error = [](const std::string& text) {
        return grading_fixtures::error_from<RubricError>([&] { parse_rubric_settings(text, "01.tests"); });
    };
    CHECK(settings_error("forbid_symbols = cublas*\n[test a]\n").find("does not say which lab") != std::string::npos);
    CHECK(settings_error("lab = 01\nforbid_symbol = cublas*\n") == "01.tests:2: unknown setting 'forbid_symbol'");
    CHECK(settings_error("lab = 01\ncompile_timeout = 0\n").find("timeouts must be positive") != std::string::npos);
    // Every course rubric's settings read alone are its settings read whole.
    for (const std::string& name : list_dir("grading/rubrics")) {
        const std::string text = read_rubric("grading/rubrics/" + name);
        const Rubric whole = parse_rubric(text, name), alone = parse_rubric_settings(text, name);
        CHECK_MESSAGE(alone.forbid_symbols == whole.forbid_symbols, name);
        CHECK_MESSAGE(alone.allow_imports == whole.allow_imports, name);
        CHECK_MESSAGE(alone.compile_timeout_s == whole.compile_timeout_s, name);
    }
}
