#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/args.h"

using namespace cudalabs;

namespace {
Options parse(std::vector<const char*> args) {
    args.insert(args.begin(), "lab01");
    return parse_args(static_cast<int>(args.size()), args.data());
}
}  // namespace

TEST_CASE("parse_positive accepts whole positive numbers and rejects the rest") {
    CHECK(parse_positive("1", "x") == 1);
    CHECK(parse_positive("4096", "x") == 4096);
    CHECK(parse_positive("9223372036854775807", "x", 9223372036854775807LL) == 9223372036854775807LL);
    CHECK_THROWS_WITH_AS(parse_positive("", "N"), doctest::Contains("empty"), UsageError);
    CHECK_THROWS_WITH_AS(parse_positive("0", "N"), doctest::Contains("at least 1"), UsageError);
    CHECK_THROWS_WITH_AS(parse_positive("-5", "N"), doctest::Contains("positive"), UsageError);
    CHECK_THROWS_WITH_AS(parse_positive("12a", "N"), doctest::Contains("whole number"), UsageError);
    CHECK_THROWS_WITH_AS(parse_positive("1.5", "N"), doctest::Contains("whole number"), UsageError);
    CHECK_THROWS_WITH_AS(parse_positive("99999999999999999999", "N"), doctest::Contains("too large"), UsageError);
    CHECK_THROWS_WITH_AS(parse_positive("101", "N", 100), doctest::Contains("at most 100"), UsageError);
}

TEST_CASE("parse_dims reads N, NxM and NxMxK") {
    CHECK(parse_dims("17") == Dims{17});
    CHECK(parse_dims("1000x700") == Dims{1000, 700});
    CHECK(parse_dims("64x64x3") == Dims{64, 64, 3});
    CHECK_THROWS_AS(parse_dims("1x2x3x4"), UsageError);
    CHECK_THROWS_AS(parse_dims("10x"), UsageError);
    CHECK_THROWS_AS(parse_dims("x10"), UsageError);
    CHECK_THROWS_AS(parse_dims("10x0"), UsageError);
    CHECK_THROWS_AS(parse_dims(""), UsageError);
    CHECK(format_dims({1000, 700}) == "1000x700");
    CHECK(parse_size_list("1,17,3x5") == std::vector<Dims>{{1}, {17}, {3, 5}});
    CHECK_THROWS_AS(parse_size_list("1,"), UsageError);
    CHECK_THROWS_AS(parse_size_list("1,,2"), UsageError);
}

TEST_CASE("--variant NAME@SEED gives that variant its own seed, the others keep --seed") {
    Options o = parse({"--seed", "9", "-v", "simple@123,fast", "--variant", "tiled@77"});
    CHECK(o.variants == std::vector<std::string>{"simple", "fast", "tiled"});
    CHECK(o.seed_of("simple") == 123);
    CHECK(o.seed_of("fast") == 9);
    CHECK(o.seed_of("tiled") == 77);
    CHECK(o.seed_of("not-given") == 9);
    CHECK(parse({"-v", "simple@5,simple@5"}).seed_of("simple") == 5);  // the same seed twice is one
    CHECK_THROWS_AS(parse({"-v", "simple@5,simple@6"}), UsageError);
    CHECK_THROWS_AS(parse({"-v", "simple@"}), UsageError);
    CHECK_THROWS_AS(parse({"-v", "simple@0"}), UsageError);
    CHECK_THROWS_AS(parse({"-v", "simple@x"}), UsageError);
    CHECK_THROWS_AS(parse({"-v", "@5"}), UsageError);
}

TEST_CASE("parse_args handles every common flag") {
    Options o = parse({"-n", "5,7", "--seed", "9", "--reps=3", "-v", "simple,fast", "--json",
                       "out.json", "--device", "0", "--markdown=t.md"});
    CHECK(o.sizes == std::vector<Dims>{{5}, {7}});
    CHECK(o.seed == 9);
    CHECK(o.reps == 3);
    CHECK(o.variants == std::vector<std::string>{"simple", "fast"});
    CHECK(o.json_path == "out.json");
    CHECK(o.markdown_path == "t.md");
    CHECK(o.device == 0);
    CHECK(parse({"--device", "3"}).device == 3);
    CHECK(parse({"--help"}).help);
    CHECK(parse({"--bench"}).bench);
    CHECK(parse({"--quick"}).quick);
    CHECK(parse({"128", "64"}).positional == std::vector<std::string>{"128", "64"});
}

TEST_CASE("parse_args rejects bad command lines with a message naming the problem") {
    CHECK_THROWS_WITH_AS(parse({"--size"}), doctest::Contains("needs a value"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"--size", "abc"}), doctest::Contains("abc"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"--size", "0"}), doctest::Contains("at least 1"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"--reps", "-1"}), doctest::Contains("positive"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"--frobnicate"}), doctest::Contains("unknown option"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"--help=yes"}), doctest::Contains("takes no value"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"--bench", "--quick"}), doctest::Contains("cannot be combined"), UsageError);
    CHECK_THROWS_WITH_AS(parse({"--bench", "-n", "5"}), doctest::Contains("cannot be combined"), UsageError);
    CHECK_THROWS_AS(parse({"--device", "-1"}), UsageError);
    CHECK_THROWS_AS(parse({"--device", "x"}), UsageError);
    CHECK_THROWS_AS(parse({"--json", ""}), UsageError);
    CHECK_THROWS_AS(parse({"-v", "a,,b"}), UsageError);
}

TEST_CASE("--guard-buffers is off unless asked for") {
    CHECK_FALSE(parse({}).guard_buffers);
    CHECK(parse({"--guard-buffers"}).guard_buffers);
}
