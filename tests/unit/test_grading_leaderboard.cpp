// The leaderboard (grading/src/class/leaderboard.h): HMAC-SHA256 against RFC 4231's vectors, derived
// pseudonyms, who is ranked, Gradescope's leaderboard entries, and boards built from synthetic run
// folders: ranks and ties, one board per lab and GPU model, the roster's pseudonyms, the refusal
// without a secret, the last folder winning, HTML that a student's name cannot break, and the date
// each board states: the one the audit log records, else the file's (said so).
#include <doctest/doctest.h>
#include <stdlib.h>
#include <utime.h>

#include <nlohmann/json.hpp>
#include <string>

#include "args.h"
#include "grading/src/class/leaderboard.h"
#include "grading/src/class/roster.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;
using namespace grading_fixtures;
using nlohmann::json;

namespace {

Rubric perf_rubric() {
    return rubric_of({test_spec("correct", "", 20), test_spec("memcheck", "", 10, TestKind::Sanitizer),
                      test_spec("perf_a", "", 15, TestKind::Performance), test_spec("perf_b", "", 15, TestKind::Performance)});
}

StudentResult result(double correct, double memcheck, double a, double b) {
    StudentResult r;
    r.student = "x";
    r.tests = {{"correct", "Correct", correct, 20, Visibility::Visible, ""}, {"memcheck", "Memcheck", memcheck, 10, Visibility::Visible, ""},
               {"perf_a", "Perf A", 10, 15, Visibility::Visible, ""}, {"perf_b", "Perf B", 12, 15, Visibility::Visible, ""}};
    r.tests[2].slowdown = a;
    r.tests[3].slowdown = b;
    return r;
}

std::string line(const std::string& student, const std::string& device, const json& lb, const std::string& graded_at = "") {
    json j = {{"event", "submission"}, {"lab", "01"}, {"student", student}, {"device", device}, {"total", 50}, {"rejected", ""}};
    if (!lb.is_null()) j["leaderboard"] = lb;
    if (!graded_at.empty()) j["graded_at"] = graded_at;
    return j.dump() + "\n";
}

json ranked(double a) { return {{"ranked", true}, {"slowdown", {{"perf_a", a}}}, {"figure", a}}; }

std::string run_line(const std::string& graded_at = "") {
    json j = {{"event", "run"}, {"lab", "01"}, {"tree", "abc1234"}, {"compile_only", false}};
    if (!graded_at.empty()) j["graded_at"] = graded_at;
    return j.dump() + "\n";
}

// An audit log last written at `when` (seconds since 1970, UTC): the date a board states where
// the log records none.
void write_audit(const std::string& dir, const std::string& text, long when) {
    write_file(dir + "/audit.jsonl", text);
    struct utimbuf t = {when, when};
    REQUIRE(utime((dir + "/audit.jsonl").c_str(), &t) == 0);
}

}  // namespace

TEST_CASE("leaderboard: HMAC-SHA256 (RFC 4231 test cases 1, 2 and 6)") {
    CHECK(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There") == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    CHECK(hmac_sha256_hex("Jefe", "what do ya want for nothing?") == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    CHECK(hmac_sha256_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First") ==
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("leaderboard: pseudonyms derived from the id with the course's secret") {
    const std::string p = derived_pseudonym("a course secret, long enough", "s001");
    CHECK(p == derived_pseudonym("a course secret, long enough", "s001"));
    CHECK(p != derived_pseudonym("a course secret, long enough", "s002"));
    CHECK(p != derived_pseudonym("another course secret entirely", "s001"));
    CHECK(p.find("s001") == std::string::npos);
    // adjective-animal-hhhh
    const size_t d1 = p.find('-'), d2 = p.find('-', d1 + 1);
    REQUIRE(d2 != std::string::npos);
    CHECK(p.size() - d2 - 1 == 4);
}

TEST_CASE("leaderboard: only full correctness and sanitizer marks and timed performance tests are ranked") {
    const Rubric rubric = perf_rubric();
    LeaderboardFigures f = leaderboard_figures(result(20, 10, 1.2, 1.2 * 1.2 * 1.2), rubric);
    CHECK(f.ranked);
    CHECK(f.figure == doctest::Approx(1.2 * 1.2));  // geometric mean
    CHECK(f.slowdown.at("perf_a") == doctest::Approx(1.2));
    f = leaderboard_figures(result(20, 5, 1.1, 1.1), rubric);
    CHECK_FALSE(f.ranked);
    CHECK(f.why == "not full marks in memcheck");
    f = leaderboard_figures(result(19, 10, 1.1, 1.1), rubric);
    CHECK_FALSE(f.ranked);
    f = leaderboard_figures(result(20, 10, 1.1, 0), rubric);  // perf_b not timed (or forged)
    CHECK_FALSE(f.ranked);
    CHECK(f.why == "perf_b not timed");
    StudentResult not_run = result(20, 10, 0, 0);
    for (TestResult& t : not_run.tests) t.not_run = true;
    CHECK_FALSE(leaderboard_figures(not_run, rubric).ranked);
    CHECK(leaderboard_audit(not_run, rubric).is_null());  // nothing timed: no figures in the audit line
    const json audit = leaderboard_audit(result(20, 5, 1.5, 2.0), rubric);
    CHECK(audit.at("ranked") == false);
    CHECK(audit.at("slowdown").at("perf_b") == 2.0);
}

TEST_CASE("leaderboard: Gradescope's results.json gets leaderboard entries only when ranked") {
    const Rubric rubric = perf_rubric();
    const std::string plain = json({{"score", 57}, {"tests", json::array()}}).dump(2) + "\n";
    const json j = json::parse(with_gradescope_leaderboard(plain, result(20, 10, 1.25, 0.8), rubric));
    REQUIRE(j.at("leaderboard").size() == 3);
    CHECK(j.at("leaderboard")[0].at("order") == "asc");
    CHECK(j.at("leaderboard")[0].at("value").get<double>() == doctest::Approx(1.0));
    CHECK(j.at("leaderboard")[1].at("name") == "perf_a / reference's");
    CHECK(j.at("leaderboard")[1].at("value").get<double>() == doctest::Approx(1.25));
    CHECK(j.at("score") == 57);
    CHECK(with_gradescope_leaderboard(plain, result(20, 0, 1.25, 0.8), rubric) == plain);
}

TEST_CASE("leaderboard: boards per lab and GPU model, ranks, pseudonyms, and what is refused") {
    TempDir t;
    const std::string run1 = t.path + "/run1", run2 = t.path + "/run2";
    make_dirs(run1);
    make_dirs(run2);
    write_audit(run1,
               run_line() + line("alice", "NVIDIA H100 80GB HBM3 (driver 570.1)", ranked(1.5)) +
                   line("bob", "NVIDIA H100 80GB HBM3 (driver 570.1)", ranked(0.9)) +
                   line("carol", "NVIDIA H100 80GB HBM3 (driver 570.1)", ranked(1.5)) +
                   line("dave", "NVIDIA H100 80GB HBM3 (driver 570.1)", {{"ranked", false}, {"slowdown", {{"perf_a", 0.5}}}}) +
                   line("erin", "NVIDIA H100 80GB HBM3 (driver 570.1)", nullptr) +
                   line("<b>mallory</b>", "NVIDIA H200 (driver 570.1)", ranked(1.1)),
               1772359200);  // 2026-03-01T10:00:00Z
    // A later run of alice on the same GPU model: it counts instead of the first.
    write_audit(run2, run_line() + line("alice", "NVIDIA H100 80GB HBM3 (driver 575.2)", ranked(1.2)), 1772445600);  // 2026-03-02T10:00:00Z

    CHECK_THROWS_WITH_AS(build_leaderboards({run1, run2}, ""), doctest::Contains("has no pseudonym in the roster and no course secret"),
                         cudalabs::UsageError);
    CHECK_THROWS_AS(build_leaderboards({t.path + "/none"}, "0123456789abcdef"), cudalabs::UsageError);

    const std::string secret = "0123456789abcdef-course";
    const std::vector<LeaderboardBoard> boards = build_leaderboards({run1, run2}, secret);
    REQUIRE(boards.size() == 2);
    const LeaderboardBoard& h100 = boards[0];
    CHECK(h100.lab == "01");
    CHECK(h100.gpu == "NVIDIA H100 80GB HBM3");
    CHECK(h100.tree == "abc1234");
    CHECK(h100.date == "2026-03-02T10:00:00Z");
    CHECK(h100.not_ranked == 2);  // dave (not full marks) and erin (not timed)
    REQUIRE(h100.rows.size() == 3);
    CHECK(h100.rows[0].pseudonym == derived_pseudonym(secret, "bob"));
    CHECK(h100.rows[0].rank == 1);
    CHECK(h100.rows[1].pseudonym == derived_pseudonym(secret, "alice"));
    CHECK(h100.rows[1].figure == doctest::Approx(1.2));
    CHECK(h100.rows[1].rank == 2);
    CHECK(h100.rows[2].rank == 3);
    CHECK(boards[1].gpu == "NVIDIA H200");
    CHECK(boards[1].rows.size() == 1);

    // Carol ties with nobody now; a second board's tie: two at 1.5 share the rank.
    write_audit(run2, run_line() + line("alice", "NVIDIA H100 80GB HBM3 (driver 575.2)", ranked(1.5)), 1772445600);
    const std::vector<LeaderboardBoard> tied = build_leaderboards({run1, run2}, secret);
    CHECK(tied[0].rows[1].rank == 2);
    CHECK(tied[0].rows[2].rank == 2);

    // A run whose workers shared a GPU (GRADING_SHARED_GPUS=1) ranks no one: its timings are not fair.
    const std::string run3 = t.path + "/run3";
    make_dirs(run3);
    json shared_run = json::parse(run_line());
    shared_run["gpus"] = json::array({{{"index", 0}, {"worker", 0}, {"device", "NVIDIA H200 (driver 570.1)"}, {"cuda_visible_devices", "0"}},
                                      {{"index", 0}, {"worker", 1}, {"device", "NVIDIA H200 (driver 570.1)"}, {"cuda_visible_devices", "0"}}});
    write_audit(run3, shared_run.dump() + "\n" + line("zed", "NVIDIA H200 (driver 570.1)", ranked(0.5)), 1772445600);
    const std::vector<LeaderboardBoard> unfair = build_leaderboards({run3}, secret);
    REQUIRE(unfair.size() == 1);
    CHECK(unfair[0].rows.empty());
    CHECK(unfair[0].not_ranked == 1);

    // A roster's chosen pseudonym, and HTML that a pseudonym or id cannot break.
    const Roster roster = parse_roster("id,name,pseudonym\nbob,Bob,<script>alert(1)</script>\nalice,Alice,\n", "r.csv");
    const RosterMatch match = match_roster(roster, {{"bob", "bob", false, {}}, {"alice", "alice", false, {}}});
    write_file(run1 + "/roster.json", roster_record_json(roster, match, {"Lab 01", 60, 60}));
    const std::vector<LeaderboardBoard> named = build_leaderboards({run1}, secret);
    CHECK(named[0].rows[0].pseudonym == "<script>alert(1)</script>");
    CHECK(named[0].rows[1].pseudonym == derived_pseudonym(secret, "alice"));  // by the roster's id
    const std::string html = leaderboard_html(named, "Lab 01 <fast>");
    CHECK(html.find("<script>") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(html.find("<title>Lab 01 &lt;fast&gt;</title>") != std::string::npos);
    CHECK(html.find("abc1234") != std::string::npos);
    CHECK(html.find(">perf_a</th>") == std::string::npos);  // one performance test: no column repeating the figure
    LeaderboardBoard two = named[0];
    two.rows[0].slowdown["perf_b"] = 1.3;
    CHECK(leaderboard_html({two}, "t").find("<th class=\"num\">perf_a</th><th class=\"num\">perf_b</th>") != std::string::npos);
    CHECK(html.find("NVIDIA H100 80GB HBM3") != std::string::npos);
    const std::string csv = leaderboard_csv(named);
    CHECK(csv.find("\"01\",\"NVIDIA H100 80GB HBM3\",1,\"<script>alert(1)</script>\",0.900,\"perf_a=0.900\",\"2026-03-01T10:00:00Z\",\"abc1234\",0.900,0.900,no,file\n") !=
          std::string::npos);
}

TEST_CASE("leaderboard: a board states when its newest submission was graded, as the audit log records it") {
    TempDir t;
    const std::string secret = "0123456789abcdef-course";
    const std::string h100 = "NVIDIA H100 80GB HBM3 (driver 570.1)";
    const long later = 1777600000;  // 2026-05-01: the folder copied or restored long after
    const std::string run = t.path + "/run";
    make_dirs(run);
    // The newest line is one not ranked: the board was graded then all the same.
    write_audit(run,
                run_line("2026-03-01T08:00:00Z") + line("bob", h100, ranked(0.9), "2026-03-01T08:05:00Z") +
                    line("carol", h100, ranked(1.1), "2026-03-01T08:09:00Z") + line("erin", h100, nullptr, "2026-03-01T08:12:00Z"),
                later);
    std::vector<LeaderboardBoard> boards = build_leaderboards({run}, secret);
    REQUIRE(boards.size() == 1);
    CHECK(boards[0].date == "2026-03-01T08:12:00Z");
    CHECK_FALSE(boards[0].date_from_file);
    CHECK(leaderboard_html(boards, "t").find("(file date)") == std::string::npos);
    CHECK(leaderboard_html(boards, "t").find("<span class=\"date\">2026-03-01T08:12:00Z</span>. Tree:") != std::string::npos);
    CHECK(leaderboard_csv(boards).find(",\"2026-03-01T08:12:00Z\",\"abc1234\",0.900,0.900,no,recorded\n") != std::string::npos);

    // Resumed: the run line keeps the start of the run cut short; those graded after the resume
    // carry their own date, and the newest is the board's.
    write_audit(run,
                run_line("2026-03-01T08:00:00Z") + line("bob", h100, ranked(0.9), "2026-03-01T08:05:00Z") +
                    line("carol", h100, ranked(1.1), "2026-03-02T11:30:00Z"),
                later);
    CHECK(build_leaderboards({run}, secret)[0].date == "2026-03-02T11:30:00Z");

    // A line without its own date takes its run line's; a date in another form is not believed.
    write_audit(run, run_line("2026-03-01T08:00:00Z") + line("bob", h100, ranked(0.9)) + line("carol", h100, ranked(1.1), "tomorrow"), later);
    boards = build_leaderboards({run}, secret);
    CHECK(boards[0].date == "2026-03-01T08:00:00Z");
    CHECK_FALSE(boards[0].date_from_file);
}

TEST_CASE("leaderboard: a run that recorded no date is dated by its audit log's last change, and the page says so") {
    TempDir t;
    const std::string secret = "0123456789abcdef-course";
    const std::string h100 = "NVIDIA H100 80GB HBM3 (driver 570.1)", h200 = "NVIDIA H200 (driver 570.1)";
    const std::string old_run = t.path + "/old", new_run = t.path + "/new";
    make_dirs(old_run);
    make_dirs(new_run);
    write_audit(old_run, run_line() + line("bob", h100, ranked(0.9)) + line("ada", h200, ranked(1.0)), 1772445600);  // 2026-03-02T10:00:00Z
    write_audit(new_run, run_line("2026-03-01T08:00:00Z") + line("carol", h100, ranked(1.1), "2026-03-03T09:00:00Z"), 1772359200);
    const std::vector<LeaderboardBoard> boards = build_leaderboards({old_run, new_run}, secret);
    REQUIRE(boards.size() == 2);
    // H100: the recorded date is newer than the old run's file date, and it is the board's.
    CHECK(boards[0].date == "2026-03-03T09:00:00Z");
    CHECK_FALSE(boards[0].date_from_file);
    // H200: only the old run, dated by its file.
    CHECK(boards[1].date == "2026-03-02T10:00:00Z");
    CHECK(boards[1].date_from_file);
    const std::string html = leaderboard_html(boards, "t");
    CHECK(html.find("<span class=\"date\">2026-03-02T10:00:00Z</span> <span class=\"date-source\">(file date)</span>. Tree:") != std::string::npos);
    CHECK(html.find("<span class=\"date\">2026-03-03T09:00:00Z</span>. Tree:") != std::string::npos);
    CHECK(html.find("class=\"file-dates\"") != std::string::npos);  // what a file date is, said once
    const std::string csv = leaderboard_csv(boards);
    CHECK(csv.find(",\"2026-03-02T10:00:00Z\",\"abc1234\",1.000,1.000,no,file\n") != std::string::npos);
    CHECK(csv.find(",\"2026-03-03T09:00:00Z\",\"abc1234\",1.100,1.100,no,recorded\n") != std::string::npos);
    CHECK(leaderboard_html(build_leaderboards({new_run}, secret), "t").find("file-dates") == std::string::npos);
}
