// The roofline picture of a submission's feedback (grading/src/class/roofline_picture.h): the
// figures of its timed performance tests, the picture linked from the Markdown and shown in
// Gradescope's results.json, and nothing at all where no test was timed.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "grading/src/class/class_results.h"
#include "grading/src/class/roofline_picture.h"
#include "grading/src/class/run_record.h"
#include "grading_fixtures.h"

using namespace grading;
using grading_fixtures::TempDir;

namespace {

// A graded submission: a correctness test, and a timed performance test (hidden) with figures:
// lab 01's fast at 2^26 floats, 0.30 ms against the reference's 0.2836 ms.
StudentResult timed_result() {
    StudentResult r = grading_fixtures::compiled_result("alice", "alice.cu");
    TestResult correct{"c1", "correctness", 10, 10, Visibility::Visible, "rows pass\n"};
    TestResult perf{"p1", "performance: fast", 8, 10, Visibility::Hidden, "timed\n"};
    perf.roofline = {"fast", "67108864", "NVIDIA H100 80GB HBM3", 805306368, 67108864, 2862.27, 0.30, 0.2836};
    r.tests = {correct, perf};
    return r;
}

// A drawer that writes a small SVG and remembers the figures it was given.
struct FakeDrawer {
    std::string figures;
    RooflineDrawer drawer() {
        return [this](const std::string& fig, const std::string& svg) {
            figures = read_file(fig);
            write_file(svg, "<svg>drawn</svg>\n");
            return std::string();
        };
    }
};

}  // namespace

TEST_CASE("base64 encodes as RFC 4648 says") {
    CHECK(base64("") == "");
    CHECK(base64("f") == "Zg==");
    CHECK(base64("fo") == "Zm8=");
    CHECK(base64("foo") == "Zm9v");
    CHECK(base64("foobar") == "Zm9vYmFy");
    CHECK(base64(std::string("\xff\x00\x80", 3)) == "/wCA");
}

TEST_CASE("the roofline figures hold every timed performance test, and nothing where none was timed") {
    StudentResult r = timed_result();
    const nlohmann::json j = nlohmann::json::parse(roofline_figures_json(r, "Lab 01"));
    CHECK(j["device"] == "NVIDIA H100 80GB HBM3");
    CHECK(j["copy_gbs"].get<double>() == doctest::Approx(2862.27));
    REQUIRE(j["tests"].size() == 1);  // the correctness test has no figures
    CHECK(j["tests"][0]["variant"] == "fast");
    CHECK(j["tests"][0]["roofline_flops"].get<double>() == doctest::Approx(67108864));
    CHECK(j["tests"][0]["student_ms"].get<double>() == doctest::Approx(0.30));
    CHECK(j["tests"][0]["reference_ms"].get<double>() == doctest::Approx(0.2836));
    r.tests[1].roofline.roofline_bytes = 0;  // a reference without the counts: null, said by the picture
    CHECK(nlohmann::json::parse(roofline_figures_json(r, "Lab 01"))["tests"][0]["roofline_bytes"].is_null());
    r.tests[1].roofline.student_ms = 0;  // forged or not timed: no figures
    CHECK(roofline_figures_json(r, "Lab 01").empty());
}

TEST_CASE("the picture is linked from the feedback and shown in results.json, as visible as its most hidden test") {
    TempDir dir("roofline");
    FakeDrawer fake;
    const StudentResult r = timed_result();
    const RooflinePicture p = draw_roofline_picture(r, "Lab 01", dir.path, "alice", fake.drawer());
    CHECK(p.problem == "");
    CHECK(p.svg_name == "alice.roofline.svg");
    CHECK(p.svg == "<svg>drawn</svg>\n");
    CHECK(read_file(dir.path + "/alice.roofline.json") == fake.figures);
    const std::string feedback = feedback_markdown(r, "Lab 01");
    const std::string md = with_roofline_markdown(feedback, p);
    CHECK(md.compare(0, feedback.size(), feedback) == 0);  // every line before it as it was
    CHECK(md.find("![roofline](alice.roofline.svg)") != std::string::npos);
    const std::string before = gradescope_json(r);
    const nlohmann::json was = nlohmann::json::parse(before), now = nlohmann::json::parse(with_gradescope_roofline(before, p));
    REQUIRE(now["tests"].size() == was["tests"].size() + 1);
    for (size_t i = 0; i < was["tests"].size(); ++i) CHECK(now["tests"][i] == was["tests"][i]);
    CHECK(now["score"] == was["score"]);
    const nlohmann::json& pic = now["tests"].back();
    CHECK(pic["max_score"] == 0.0);
    CHECK(pic["score"] == 0.0);
    CHECK(pic["output_format"] == "html");
    CHECK(pic["visibility"] == "hidden");  // it shows the hidden performance test
    CHECK(pic["output"].get<std::string>().find("src=\"data:image/svg+xml;base64," + base64(p.svg) + "\"") != std::string::npos);
}

TEST_CASE("a picture not drawn is said in the feedback, and results.json stays as it was") {
    TempDir dir("roofline");
    const StudentResult r = timed_result();
    const RooflinePicture p = draw_roofline_picture(r, "Lab 01", dir.path, "alice", [](const std::string&, const std::string&) {
        return std::string("python3 could not be run: install python3 on the grading machine for the picture");
    });
    CHECK(p.wanted);
    CHECK(p.svg.empty());
    const std::string md = with_roofline_markdown(feedback_markdown(r, "Lab 01"), p);
    CHECK(md.find("The roofline picture was not drawn: python3 could not be run") != std::string::npos);
    CHECK(md.find("![roofline]") == std::string::npos);
    CHECK(with_gradescope_roofline(gradescope_json(r), p) == gradescope_json(r));
    // The course tree's renderer, where the tree has none: said so.
    CHECK(scorecard_drawer(dir.path, dir.path)(dir.path + "/alice.roofline.json", dir.path + "/x.svg") ==
          "this grader's tree has no tools/scorecard.py");
}

TEST_CASE("without a timed test nothing changes: no file, the same feedback and results.json") {
    TempDir dir("roofline");
    StudentResult r = timed_result();
    r.tests[1].roofline = {};
    bool called = false;
    const RooflinePicture p = draw_roofline_picture(r, "Lab 01", dir.path, "alice", [&](const std::string&, const std::string&) {
        called = true;
        return std::string();
    });
    CHECK_FALSE(p.wanted);
    CHECK_FALSE(called);
    CHECK(list_dir(dir.path).empty());
    CHECK(with_roofline_markdown(feedback_markdown(r, "Lab 01"), p) == feedback_markdown(r, "Lab 01"));
    CHECK(with_gradescope_roofline(gradescope_json(r), p) == gradescope_json(r));
}

TEST_CASE("the class's files carry the picture, and a resumed run draws it again from the record") {
    TempDir dir("roofline");
    make_dirs(dir.path + "/feedback");
    make_dirs(dir.path + "/results");
    Rubric rubric;
    FakeDrawer fake;
    const StudentResult r = timed_result();
    const StudentResult back = result_from_record(result_record_json(r));
    CHECK(back.tests[1].roofline.reference_ms == doctest::Approx(0.2836));
    CHECK(back.tests[1].roofline.device == "NVIDIA H100 80GB HBM3");
    ClassResults book(dir.path, rubric, "Lab 01", {"alice"});
    book.use_roofline_drawer(fake.drawer());
    book.resume(0, R"({"event":"run"})", {{0, {back, R"({"student":"alice"})"}}});
    CHECK(read_file(dir.path + "/feedback/alice.roofline.svg") == "<svg>drawn</svg>\n");
    CHECK(read_file(dir.path + "/feedback/alice.md").find("![roofline](alice.roofline.svg)") != std::string::npos);
    CHECK(nlohmann::json::parse(read_file(dir.path + "/results/alice.json"))["tests"].back()["output_format"] == "html");
    CHECK(book.roofline_picture(0).svg_name == "alice.roofline.svg");
}

TEST_CASE("the scorecard's renderer draws the grader's figures (python3 and the tree's tools/scorecard.py)") {
    if (!exists("tools/scorecard.py") || system("command -v python3 > /dev/null 2>&1") != 0) {
        MESSAGE("skipped: no python3 or no tools/scorecard.py here");
        return;
    }
    TempDir dir("roofline");
    const RooflinePicture p = draw_roofline_picture(timed_result(), "Lab 01", dir.path, "alice", scorecard_drawer(".", dir.path));
    REQUIRE(p.problem == "");
    CHECK(p.svg.find("class=\"rl-point rl-yours\"") != std::string::npos);
    CHECK(p.svg.find("data-variant=\"fast\" data-size=\"67108864\" data-intensity=\"0.0833333\" data-gflops=\"223.696\"") !=
          std::string::npos);
    CHECK(p.svg.find("class=\"rl-point rl-reference\"") != std::string::npos);
}
