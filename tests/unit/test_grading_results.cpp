// The grader's outputs (grading/src/results.h), parsed back: Gradescope's results.json, the audit
// log line (with nlohmann-json), the gradebook CSV, the feedback; and SHA-256.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "grading/src/results.h"
#include "grading/src/sha256.h"

using namespace grading;
using nlohmann::json;

namespace {
StudentResult sample() {
    StudentResult r;
    r.student = "alice";
    r.file = "vector_add.cu";
    r.sha256 = std::string(64, 'a');
    r.compiled = true;
    r.notes = {"note one"};
    r.tests = {{"correct", "Correctness \"quoted\"", 20, 20, Visibility::Visible, "all sizes passed\n"},
               {"memcheck", "Memcheck", 0, 15, Visibility::Hidden, "Invalid __global__ write\x01\xff\n"},
               {"perf", "Performance, fast", 7.5, 15, Visibility::AfterDueDate, "1.8x"}};
    r.execution_time_s = 12.5;
    return r;
}

// A minimal RFC 4180 reader: enough to check what the writer produces.
std::vector<std::vector<std::string>> read_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1);
    std::string cell;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') { cell += '"'; ++i; }
            else if (c == '"') quoted = false;
            else cell += c;
        } else if (c == '"') quoted = true;
        else if (c == ',') { rows.back().push_back(cell); cell.clear(); }
        else if (c == '\n') { rows.back().push_back(cell); cell.clear(); rows.emplace_back(); }
        else cell += c;
    }
    if (rows.back().empty()) rows.pop_back();
    return rows;
}
}  // namespace

TEST_CASE("Gradescope results.json has the fields Gradescope reads") {
    json j = json::parse(gradescope_json(sample()));
    CHECK(j["score"].get<double>() == 27.5);
    CHECK(j["execution_time"].get<double>() == 12.5);
    CHECK(j["output"].get<std::string>().find("note one") != std::string::npos);
    REQUIRE(j["tests"].size() == 3);
    CHECK(j["tests"][0]["name"] == "Correctness \"quoted\"");
    CHECK(j["tests"][0]["score"].get<double>() == 20);
    CHECK(j["tests"][0]["max_score"].get<double>() == 20);
    CHECK(j["tests"][0]["status"] == "passed");
    CHECK(j["tests"][0]["visibility"] == "visible");
    CHECK(j["tests"][1]["status"] == "failed");
    CHECK(j["tests"][1]["visibility"] == "hidden");
    CHECK(j["tests"][1]["output"].get<std::string>().find("Invalid __global__ write??") != std::string::npos);  // bad bytes replaced
    CHECK(j["tests"][2]["visibility"] == "after_due_date");
    CHECK(j["tests"][2]["score"].get<double>() == 7.5);
}

TEST_CASE("a rejected submission says why in results.json and the feedback") {
    StudentResult r = sample();
    r.tests.clear();
    r.compiled = false;
    r.rejected = "compile error (exit 1)";
    r.compiler_output = "vector_add.cu(3): error: expected a \";\"";
    json j = json::parse(gradescope_json(r));
    CHECK(j["score"].get<double>() == 0);
    CHECK(j["output"].get<std::string>().find("Not graded: compile error") != std::string::npos);
    CHECK(j["output"].get<std::string>().find("expected a \";\"") != std::string::npos);
    std::string md = feedback_markdown(r, "Lab 01");
    CHECK(md.find("**Not graded:** compile error (exit 1)") != std::string::npos);
    CHECK(md.find("## Compiler output") != std::string::npos);
}

TEST_CASE("the audit log line is one JSON object with seed, hashes and scores") {
    std::string line = audit_json(sample(), "01", 12345, "NVIDIA H100", "bwrap", "nvcc 13.0", std::string(64, 'b'));
    CHECK(line.find('\n') == std::string::npos);
    json j = json::parse(line);
    CHECK(j["lab"] == "01");
    CHECK(j["seed"].get<unsigned long long>() == 12345);
    CHECK(j["sha256"] == std::string(64, 'a'));
    CHECK(j["rubric_sha256"] == std::string(64, 'b'));
    CHECK(j["scores"]["perf"].get<double>() == 7.5);
    CHECK(j["total"].get<double>() == 27.5);
    CHECK(j["device"] == "NVIDIA H100");
}

TEST_CASE("the gradebook has one column per rubric test, the total and the maximum") {
    Rubric rubric = parse_rubric("lab = 01\n[test correct]\nkind = correctness\npoints = 20\nvariants = x\nsizes = 1\n"
                                 "[test memcheck]\nkind = sanitizer\npoints = 15\nvariants = x\nsizes = 1\n"
                                 "[test perf]\nkind = performance\npoints = 15\nvariants = x\nsizes = 1\ncurve = 1:1\n",
                                 "t.rubric");
    StudentResult bob = sample();
    bob.student = "bob, \"the\" builder";
    bob.rejected = "integrity check failed: the file uses main()\nline two";
    bob.tests = {};
    StudentResult eve = sample();
    eve.student = "=HYPERLINK(\"x\")";  // a formula would run in a spreadsheet
    std::ostringstream out;
    write_gradebook(out, {sample(), bob, eve}, rubric);
    auto rows = read_csv(out.str());
    REQUIRE(rows.size() == 4);
    CHECK(rows[0] == std::vector<std::string>{"student", "sha256", "correct", "memcheck", "perf", "total", "max", "note"});
    CHECK(rows[1] == std::vector<std::string>{"alice", std::string(64, 'a'), "20", "0", "7.5", "27.5", "50", ""});
    CHECK(rows[2][0] == "bob, \"the\" builder");
    CHECK(rows[2][5] == "0");
    CHECK(rows[2][7] == "integrity check failed: the file uses main()\nline two");
    CHECK(rows[3][0] == "'=HYPERLINK(\"x\")");
    CHECK(csv_field("-3") == "-3");
    std::string table = summary_table({sample()}, rubric);
    CHECK(table.find("alice") != std::string::npos);
    CHECK(table.find("27.5/50") != std::string::npos);
}

TEST_CASE("points print without trailing zeros") {
    CHECK(format_points(20) == "20");
    CHECK(format_points(7.5) == "7.5");
    CHECK(format_points(16.666666) == "16.67");
    CHECK(format_points(-0.0) == "0");
}

TEST_CASE("feedback lists every test with its points and output") {
    std::string md = feedback_markdown(sample(), "Lab 01 -- vector add");
    CHECK(md.find("# Lab 01 -- vector add: feedback for alice") == 0);
    CHECK(md.find("Score: **27.5 / 50**") != std::string::npos);
    CHECK(md.find("## Memcheck: 0 / 15 (hidden)") != std::string::npos);
    CHECK(md.find("all sizes passed") != std::string::npos);
}

TEST_CASE("SHA-256 matches the FIPS 180-4 examples") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
