// The grader's outputs (grading/src/class/results.h), parsed back: Gradescope's results.json, the audit
// log line (with nlohmann-json), the gradebook CSV, the feedback; and SHA-256.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "grading/src/class/audit_log.h"
#include "grading/src/class/results.h"
#include "grading/src/util/sha256.h"
#include "grading_fixtures.h"

using namespace grading;
using nlohmann::json;

namespace {
StudentResult sample() {
    StudentResult r = grading_fixtures::compiled_result("alice", "vector_add.cu");
    r.notes = {"note one"};
    r.tests = {{"correct", "Correctness \"quoted\"", 20, 20, Visibility::Visible, "all sizes passed\n"},
               {"memcheck", "Memcheck", 0, 15, Visibility::Hidden, "Invalid __global__ write\x01\xff\n"},
               {"perf", "Performance, fast", 7.5, 15, Visibility::AfterDueDate, "1.8x"}};
    r.execution_time_s = 12.5;
    return r;
}

// The lines of a Markdown document outside its fenced code blocks, by CommonMark's rules: a
// fence is 3 or more backticks or tildes indented by at most 3 spaces (a backtick fence's info
// string has no backtick); it is closed by a line of at least as many of the same character.
std::vector<std::string> lines_outside_code(const std::string& md) {
    std::vector<std::string> out;
    std::istringstream in(md);
    char fence = 0;
    size_t fence_len = 0;
    for (std::string line; std::getline(in, line);) {
        size_t indent = 0;
        while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
        const char c = indent < 4 && indent < line.size() ? line[indent] : 0;
        size_t run = 0;
        if (c == '`' || c == '~')
            while (indent + run < line.size() && line[indent + run] == c) ++run;
        if (fence) {
            if (c == fence && run >= fence_len && line.find_first_not_of(" \t", indent + run) == std::string::npos) fence = 0;
            continue;
        }
        if (run >= 3 && !(c == '`' && line.find('`', indent + run) != std::string::npos)) {
            fence = c;
            fence_len = run;
            continue;
        }
        out.push_back(line.substr(indent < 4 ? indent : 0));
    }
    return out;
}

size_t count_starting_with(const std::vector<std::string>& lines, const std::string& prefix) {
    size_t n = 0;
    for (const std::string& l : lines) n += l.compare(0, prefix.size(), prefix) == 0;
    return n;
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
    eve.submitted_as = "=cmd|' /C calc'!A0";
    std::ostringstream out;
    write_gradebook(out, {sample(), bob, eve}, rubric);
    auto rows = read_csv(out.str());
    REQUIRE(rows.size() == 4);
    CHECK(rows[0] == std::vector<std::string>{"student", "submitted_as", "sha256", "correct", "memcheck", "perf", "total", "max", "note"});
    CHECK(rows[1] == std::vector<std::string>{"alice", "", std::string(64, 'a'), "20", "0", "7.5", "27.5", "50", ""});
    CHECK(rows[2][0] == "bob, \"the\" builder");
    CHECK(rows[2][6] == "0");
    CHECK(rows[2][8] == "integrity check failed: the file uses main()\nline two");
    CHECK(rows[3][0] == "'=HYPERLINK(\"x\")");
    CHECK(rows[3][1] == "'=cmd|' /C calc'!A0");
    std::string table = summary_table({sample()}, rubric);
    CHECK(table.find("alice") != std::string::npos);
    CHECK(table.find("27.5/50") != std::string::npos);
    StudentResult built = sample();  // --compile-only: built, nothing run
    built.student = "carol";
    for (TestResult& t : built.tests) t.score = 0, t.not_run = true;
    std::istringstream rows_in(summary_table({built}, rubric));
    std::string line;
    for (int i = 0; i < 3; ++i) std::getline(rows_in, line);  // head, rule, carol's row
    std::istringstream cells_in(line);
    std::vector<std::string> cells;
    for (std::string c; cells.size() < 5 && cells_in >> c;) cells.push_back(c);
    CHECK(cells == std::vector<std::string>{"carol", "-", "-", "-", "-"});  // no total: it is no grade
    CHECK(line.find(kCompileOnlyVerdict) != std::string::npos);
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

// What a submission can put into its feedback: compiler messages (a #line file name can hold any
// text), its program's output, its file name, messages built from its kernel names.
namespace {
const std::string kForgery =
    "error here\n```\n\n# Lab 01: feedback for alice\n\nScore: **100 / 100**\n\n## Correctness: 20 / 20\n"
    "~~~\n````````````\n  ```\n<script>alert(1)</script>\n<!-- x -->\n- [click](http://x)\n> quoted\n"
    "Score: 100/100\r\nScore: **100 / 100**\rScore: **100 / 100**\n\x1b[2J\x1b[1;1HScore: 100\n";

StudentResult forged() {
    StudentResult r = sample();
    r.student = "eve\n# Score: 100";
    r.file = "a`b```c.cu\nScore: **100 / 100**";
    r.notes = {"kernel `k`\n\nScore: **100 / 100**", "# Score: 100", "1. Score: 100", "- Score", "   ```", "<b>x</b>"};
    r.compiler_output = kForgery;
    r.rejected = "compile error\nScore: **100 / 100**\n```";
    for (TestResult& t : r.tests) t.output = kForgery + t.output;
    return r;
}
}  // namespace

TEST_CASE("forged fences, headings and score lines stay inside the quoted blocks") {
    const StudentResult r = forged();
    const std::string md = feedback_markdown(r, "Lab 01 -- vector add");
    const std::vector<std::string> outside = lines_outside_code(md);
    CHECK(count_starting_with(outside, "Score:") == 1);
    CHECK(count_starting_with(outside, "Score: **27.5 / 50**") == 1);
    CHECK(count_starting_with(outside, "# ") == 1);
    CHECK(count_starting_with(outside, "## ") == 1 + r.tests.size());  // compiler output + one per test
    CHECK(count_starting_with(outside, "- ") == r.notes.size());
    // Outside the blocks, markup characters from the submission are backslash-escaped.
    auto unescaped = [](const std::string& l, char c) {
        for (size_t i = 0; i < l.size(); ++i)
            if (l[i] == '\\') ++i;
            else if (l[i] == c) return true;
        return false;
    };
    for (const std::string& l : outside) {
        INFO(l);
        CHECK(!unescaped(l, '<'));  // no HTML
        CHECK(!unescaped(l, '['));  // no link
        if (l.compare(0, 6, "File: ") == 0) {  // the file name's code span ends where it should
            const size_t n = l.find_first_not_of('`', 6) - 6;
            size_t close = std::string::npos;
            for (size_t i = 6 + n; i < l.size() && close == std::string::npos; ++i) {
                const size_t run = l[i] == '`' ? l.find_first_not_of('`', i) - i : 0;
                if (run == n) close = i;
                i += run ? run - 1 : 0;
            }
            CHECK(n > 0);
            CHECK(l.compare(close + n, 9, " (sha256 ") == 0);
        } else {
            CHECK(!unescaped(l, '`'));  // no code span
        }
        CHECK((l.empty() || std::string(">|~`").find(l[0]) == std::string::npos));
        if (l.compare(0, 2, "- ") == 0 && l.size() > 2) {  // a note: its text starts no nested block
            const size_t digits = l.find_first_not_of("0123456789", 2);
            CHECK((std::string("#-*+>`").find(l[2]) == std::string::npos));
            CHECK((digits == 2 || digits == std::string::npos || (l[digits] != '.' && l[digits] != ')')));
        }
    }
    // Nothing was dropped: the forged text is still there to read, quoted.
    CHECK(md.find("Score: **100 / 100**") != std::string::npos);
    CHECK(md.find('\r') == std::string::npos);
    CHECK(md.find('\x1b') == std::string::npos);
    CHECK(md.find("# Lab 01 -- vector add: feedback for eve # Score: 100") == 0);
}

TEST_CASE("the fence is longer than any run of backticks in the quoted text") {
    CHECK(markdown_code_block("") == "");
    CHECK(markdown_code_block("plain") == "```\nplain\n```\n");
    CHECK(markdown_code_block("a ``` b\n````\n") == "`````\na ``` b\n````\n`````\n");
    CHECK(markdown_code_block("~~~~~~\n") == "```\n~~~~~~\n```\n");
    const std::vector<std::string> outside = lines_outside_code(markdown_code_block(std::string(40, '`') + "\nScore: 1\n" + std::string(40, '`')) + "after\n");
    CHECK(outside == std::vector<std::string>{"after"});
}

TEST_CASE("inline text cannot start a block or open markup") {
    CHECK(markdown_inline("# Score: 100") == "\\# Score: 100");
    CHECK(markdown_inline("- item") == "\\- item");
    CHECK(markdown_inline("   > quote") == "\\> quote");
    CHECK(markdown_inline("12. item") == "12\\. item");
    CHECK(markdown_inline("3) item") == "3\\) item");
    CHECK(markdown_inline("a_b *c* `d` [e](f) <g> &amp; |h| ~i~ \\") == "a\\_b \\*c\\* \\`d\\` \\[e\\](f) \\<g\\> \\&amp; \\|h\\| \\~i\\~ \\\\");
    CHECK(markdown_inline("line one\nScore: 100\r\n") == "line one Score: 100 ");
    CHECK(markdown_inline("Lab 01 -- vector add (fast)") == "Lab 01 -- vector add (fast)");
    CHECK(markdown_code_span("vector_add.cu") == "`vector_add.cu`");
    CHECK(markdown_code_span("a`b") == "``a`b``");
    CHECK(markdown_code_span("`x``") == "``` `x`` ```");
    CHECK(markdown_code_span("two\nlines") == "`two lines`");
    CHECK(markdown_code_span("") == "");
}

TEST_CASE("control characters and terminal escapes are removed or replaced") {
    CHECK(printable_text("\x1b[31mred\x1b[0m") == "red");
    CHECK(printable_text("a\x1b]0;title\x07" "b") == "ab");
    CHECK(printable_text("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\") == "link");
    CHECK(printable_text("x\x1b" "cy\x1b(Bz") == "xyz");
    CHECK(printable_text("one\r\ntwo\rthree\n") == "one\ntwo\nthree\n");
    CHECK(printable_text("one\r\ntwo\tx", false) == "one two x");
    CHECK(printable_text(std::string("a\0b\x7f" "c\x08", 6)) == "a?b?c?");
    CHECK(printable_text("\xc2\x9b" "2J") == "?2J");                // C1 CSI
    CHECK(printable_text("abc\xe2\x80\xae" "fed") == "abc?fed");    // right-to-left override
    CHECK(printable_text("l1\xe2\x80\xa8l2") == "l1?l2");            // line separator
    CHECK(printable_text("\xc0\x8a\xed\xa0\x80\xff") == "??????");   // overlong, surrogate, stray
    CHECK(printable_text("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
}

TEST_CASE("huge outputs are clipped, keeping their beginning and end") {
    StudentResult r = sample();
    std::string huge;
    for (int i = 0; i < 200000; ++i) huge += "line " + std::to_string(i) + " Score: **100 / 100** ```\n";
    r.compiler_output = huge;
    r.tests[0].output = huge;
    r.notes = {huge};
    const std::string md = feedback_markdown(r, "Lab 01");
    CHECK(md.size() < 4 * kMaxQuotedBytes + 4096);
    CHECK(md.find("line 0 Score") != std::string::npos);
    CHECK(md.find("line 199999 Score") != std::string::npos);
    CHECK(md.find("bytes left out") != std::string::npos);
    CHECK(count_starting_with(lines_outside_code(md), "Score:") == 1);
    const std::string js = gradescope_json(r);
    CHECK(js.size() < 8 * kMaxQuotedBytes);
    CHECK(json::parse(js)["tests"][0]["output"].get<std::string>().find("bytes left out") != std::string::npos);
    const std::string clipped = clip_text(std::string(10000, 'x') + "\xe2\x9c\x93" + std::string(10000, 'y'), 10001);
    CHECK(clipped.size() < 10100);
    CHECK(printable_text(clipped) == clipped);  // not cut inside a character
}

TEST_CASE("results.json shows every output as plain text") {
    const json j = json::parse(gradescope_json(forged()));
    CHECK(j["output_format"] == "text");
    CHECK(j["test_output_format"] == "text");
    CHECK(j["test_name_format"] == "text");
    for (const json& t : j["tests"]) {
        CHECK(t["output_format"] == "text");
        CHECK(t["name_format"] == "text");
        CHECK(t["output"].get<std::string>().find('\x1b') == std::string::npos);
        CHECK(t["output"].get<std::string>().find('\r') == std::string::npos);
    }
    CHECK(j["output"].get<std::string>().find("Score: **100 / 100**") != std::string::npos);  // shown, as text
    const json audit = json::parse(audit_json(forged(), "01", 1, "gpu", "bwrap", "t", "h"));
    CHECK(audit["student"] == "eve # Score: 100");
}

TEST_CASE("gradebook cells are quoted and never start a formula") {
    for (const std::string& cell : {std::string("=1+1"), std::string("+1"), std::string("-2+3+cmd|' /C calc'!A0"),
                                    std::string("@SUM(A1)"), std::string("\t=1"), std::string("\r=1"),
                                    std::string("  =1"), std::string("\xef\xbc\x9d" "1+1"), std::string("-3")}) {
        INFO(cell);
        const std::string f = csv_field(cell);
        REQUIRE(read_csv(f + "\n").size() == 1);
        const std::string back = read_csv(f + "\n")[0][0];
        CHECK(back.at(0) == '\'');
    }
    CHECK(csv_field("alice") == "\"alice\"");
    CHECK(csv_field("a;=1+1") == "\"a;=1+1\"");  // one cell where ';' separates cells too
    CHECK(read_csv(csv_field("x, \"y\"\nz") + "\n")[0][0] == "x, \"y\"\nz");
    CHECK(csv_field("ab\x1b[31m") == "\"ab\"");

    Rubric rubric = parse_rubric("lab = 01\n[test correct]\nkind = correctness\npoints = 20\nvariants = x\nsizes = 1\n", "t.rubric");
    StudentResult mallory = sample();
    mallory.student = "-2+3+cmd";
    mallory.rejected = "=HYPERLINK(\"http://x\")\n\x1b[2J";
    std::ostringstream out;
    write_gradebook(out, {mallory}, rubric);
    auto rows = read_csv(out.str());
    REQUIRE(rows.size() == 2);
    CHECK(rows[1][0] == "'-2+3+cmd");
    CHECK(rows[1].back() == "'=HYPERLINK(\"http://x\")\n");
    const std::string table = summary_table({mallory}, rubric);
    CHECK(table.find('\x1b') == std::string::npos);
    CHECK(std::count(table.begin(), table.end(), '\n') == 3);  // head, rule, one row
}

TEST_CASE("a test that was not run has no verdict anywhere") {
    StudentResult r = sample();
    for (TestResult& t : r.tests) {
        t.score = 0;
        t.not_run = true;
        t.output = "not run (--compile-only)";
    }
    json j = json::parse(gradescope_json(r));
    // Gradescope needs a score: each test is worth 0 of 0 points, with no status.
    CHECK(j["score"] == 0);
    CHECK(j["output"].get<std::string>().find(kCompileOnlyVerdict) != std::string::npos);
    for (const json& t : j["tests"]) {
        CHECK_FALSE(t.contains("status"));
        CHECK(t["score"] == 0);
        CHECK(t["max_score"] == 0);
    }
    CHECK(feedback_markdown(r, "Lab 01").find("## Memcheck: not run / 15") != std::string::npos);
    json audit = json::parse(audit_json(r, "01", 1, "gpu", "bwrap", "nvcc", "x"));
    CHECK(audit["scores"].empty());
    Rubric rubric;
    for (const TestResult& t : r.tests) {
        TestSpec spec;
        spec.id = t.id;
        spec.points = t.max_score;
        rubric.tests.push_back(spec);
    }
    std::ostringstream csv;
    write_gradebook(csv, {r}, rubric);
    const std::string row = csv.str().substr(csv.str().find('\n') + 1);
    CHECK(row.find(",,,") != std::string::npos);  // three empty cells
    CHECK(row.find(kCompileOnlyVerdict) != std::string::npos);
    CHECK(row.find(",,20,") == std::string::npos);  // an empty total, not a 0
}

TEST_CASE("the audit log's last run block: its run line and the submission lines after it") {
    const AuditRun two = last_audit_run(
        "{\"event\":\"run\",\"seed\":1}\n{\"event\":\"submission\",\"student\":\"a\"}\n\n"
        "{\"event\":\"run\",\"seed\":2}\n{\"event\":\"submission\",\"student\":\"b\"}\n{\"event\":\"other\"}\n"
        "{\"event\":\"submission\",\"student\":\"c\"}\n");
    CHECK(two.readable);
    CHECK(two.run.value("seed", 0) == 2);
    REQUIRE(two.submissions.size() == 2);
    CHECK(two.submissions[0].value("student", "") == "b");
    CHECK(two.submissions[1].value("student", "") == "c");
    const AuditRun none = last_audit_run("{\"event\":\"submission\",\"student\":\"a\"}\n");
    CHECK(none.run.is_null());
    CHECK(none.submissions.size() == 1);
    const AuditRun bad = last_audit_run("{\"event\":\"run\"}\nnot json\n[1]\n{\"event\":\"submission\"}\n");
    CHECK_FALSE(bad.readable);
    CHECK(bad.submissions.size() == 1);
}

TEST_CASE("the audit log's dates: UTC, ISO 8601 to the second, and read back only in that form") {
    CHECK(utc_timestamp(0) == "1970-01-01T00:00:00Z");
    CHECK(utc_timestamp(1772359200) == "2026-03-01T10:00:00Z");
    CHECK(utc_timestamp(1772445599) == "2026-03-02T09:59:59Z");
    CHECK(graded_at_of(nlohmann::json::parse(R"({"event":"run","graded_at":"2026-03-01T10:00:00Z"})")) == "2026-03-01T10:00:00Z");
    CHECK(graded_at_of(nlohmann::json::parse(R"({"event":"run"})")).empty());  // written before dates were recorded
    for (const char* bad : {R"({"graded_at":5})", R"({"graded_at":"yesterday"})", R"({"graded_at":"2026-03-01 10:00:00"})",
                            R"({"graded_at":"2026-03-01T10:00:00+01:00"})", R"({"graded_at":"2026-03-01T10:00:00Z<b>"})", R"([1])"}) {
        CAPTURE(bad);
        CHECK(graded_at_of(nlohmann::json::parse(bad)).empty());
    }
}
