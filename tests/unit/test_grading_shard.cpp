// Grading a class in shards (grading/src/class/shard.h): the slices, shard.json, and the merge of
// shard folders into what one run writes, on synthetic folders written with the grader's own
// writers (results.h); the refusals of the merge; the merged run's date.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "args.h"
#include "grading/src/class/leaderboard.h"
#include "grading/src/class/results.h"
#include "grading/src/class/shard.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;
using namespace grading_fixtures;
using nlohmann::json;

namespace {

std::vector<std::string> ids(size_t n) {
    std::vector<std::string> v;
    for (size_t i = 0; i < n; ++i) v.push_back("student" + std::to_string(i * 7919 % 1000));
    return v;
}

Rubric sample_rubric() {
    return rubric_of({test_spec("correct", "Correctness", 20), test_spec("memcheck", "Memcheck", 10, TestKind::Sanitizer)});
}

// A class with what makes the files hard to split: a rejection over several lines with quotes
// and commas (a multi-line gradebook record), an id a spreadsheet would read as a formula, a
// compile-only student (empty cells), in an order that is not the sorted one.
std::vector<StudentResult> sample_class() {
    std::vector<StudentResult> c;
    auto add = [&](const std::string& id, double s1, double s2, const std::string& rejected, bool not_run) {
        StudentResult r;
        r.student = id;
        r.file = "vector_add.cu";
        r.sha256 = std::string(64, static_cast<char>('a' + c.size()));
        r.compiled = rejected.empty();
        r.rejected = rejected;
        r.tests = {{"correct", "Correctness", s1, 20, Visibility::Visible, "rows: " + id + "\n", not_run},
                   {"memcheck", "Memcheck", s2, 10, Visibility::Hidden, "clean", not_run}};
        r.execution_time_s = 1.5 + static_cast<double>(c.size());
        c.push_back(r);
    };
    add("zed", 20, 10, "", false);
    add("alice", 12.5, 0, "", false);
    add("-carol", 0, 0, "compile error:\nvector_add.cu:3: error: \"x\", undefined", false);
    add("bob", 20, 0, "", false);
    add("dave", 0, 0, "", true);
    add("eve", 7, 10, "", false);
    add("frank", 0, 0, "integrity: main defined", false);
    return c;
}

struct RunParams {
    unsigned long long seed = 1234;
    std::string lab = "01", tree = "abc1234", tools = "nvcc: V12.4; tree: abc1234", regrade_of;
    std::string rubric_sha = std::string(64, 'f');
    bool gpus = false;  // graded with --gpus 0,1
};

// Writes a run's folder as grading/grade does; `shard` k < 0: a whole run.
void write_run(const std::string& dir, const std::vector<StudentResult>& everyone, const Rubric& rubric, const RunParams& p, int k = -1,
               int n = 0) {
    std::vector<std::string> class_ids;
    for (const StudentResult& r : everyone) class_ids.push_back(r.student);
    std::vector<StudentResult> mine;
    const std::vector<std::string> members = k >= 0 ? shard_members(class_ids, k, n) : class_ids;
    for (const StudentResult& r : everyone)
        if (std::count(members.begin(), members.end(), r.student)) mine.push_back(r);
    make_dirs(dir + "/feedback");
    make_dirs(dir + "/results");
    ShardRecord rec;
    rec.k = k;
    rec.n = n;
    rec.seed = p.seed;
    rec.lab = p.lab;
    rec.rubric = "/trusted/grading/rubrics/01.rubric";
    rec.rubric_sha256 = p.rubric_sha;
    rec.tree = p.tree;
    rec.tools = p.tools;
    rec.isolation = "bwrap";
    rec.device = "NVIDIA H100 (driver 12.4)";
    rec.regrade_of = p.regrade_of;
    rec.class_ids = class_ids;
    rec.assigned = members;
    rec.summary_head = summary_head(rubric);
    json run = {{"event", "run"}, {"lab", p.lab}, {"seed", p.seed}, {"rubric", rec.rubric}, {"rubric_sha256", p.rubric_sha},
                {"isolation", rec.isolation}, {"tools", p.tools}, {"compile_only", false}, {"submissions", mine.size()}};
    if (!p.regrade_of.empty()) run["regrade_of"] = p.regrade_of;
    if (k >= 0) run["shard"] = {{"k", k}, {"n", n}};
    if (p.gpus) {
        run["gpus"] = json::array();
        for (int g = 0; g < 2; ++g) {
            run["gpus"].push_back({{"index", g}, {"name", "NVIDIA H200"}, {"cuda_visible_devices", std::to_string(g)}});
            rec.gpus.push_back("GPU " + std::to_string(g) + ": NVIDIA H200 (driver 12.8): " + std::to_string((mine.size() + 1 - g) / 2) +
                               " submissions graded");
        }
    }
    std::string audit = run.dump() + "\n";
    size_t place = 0;
    std::vector<std::string> notes;
    size_t same = 0;
    for (const StudentResult& r : mine) {
        json line = json::parse(audit_json(r, p.lab, p.seed, rec.device, "bwrap", p.tools, p.rubric_sha));
        line["event"] = "submission";
        if (p.gpus) line["gpu"] = {{"index", place++ % 2}, {"name", "NVIDIA H200"}};
        const std::string note = r.student == "alice" ? "alice: results differ from the earlier run: correct 20 -> 12.5" : "";
        if (!p.regrade_of.empty()) {
            line["same_as_before"] = note.empty();
            rec.regrade_notes[r.student] = note;
            if (note.empty()) ++same;
            else notes.push_back(note);
        }
        audit += line.dump() + "\n";
        write_file(dir + "/feedback/" + r.student + ".md", feedback_markdown(r, "Lab 01"));
        write_file(dir + "/results/" + r.student + ".json", gradescope_json(r));
        rec.summary_rows[r.student] = summary_row(r, rubric);
    }
    write_file(dir + "/audit.jsonl", audit);
    std::ostringstream csv;
    write_gradebook(csv, mine, rubric);
    write_file(dir + "/gradebook.csv", csv.str());
    write_file(dir + "/summary.txt", summary_table(mine, rubric) + "\n" +
                                         summary_tail(p.lab, mine.size(), p.seed, rec.device, "bwrap", p.tools, p.regrade_of, same, notes) +
                                         gpu_summary(rec.gpus, "--gpus 0,1"));
    rec.finished = true;
    if (k >= 0) write_file(dir + "/shard.json", shard_record_json(rec));
}

std::vector<std::string> write_shards(const std::string& root, const std::vector<StudentResult>& c, const Rubric& rubric, int n,
                                      const RunParams& p = RunParams()) {
    std::vector<std::string> dirs;
    for (int k = 0; k < n; ++k) {
        dirs.push_back(root + "/shard-" + std::to_string(k));
        write_run(dirs.back(), c, rubric, p, k, n);
    }
    return dirs;
}

std::string merge_error(const std::string& out, const std::vector<std::string>& dirs) {
    return error_from<cudalabs::UsageError>([&] { merge_shards(out, dirs); });
}

}  // namespace

TEST_CASE("--shard K/N is parsed, and a bad one is named") {
    CHECK(parse_shard("0/1").k == 0);
    CHECK(parse_shard("2/3").k == 2);
    CHECK(parse_shard("2/3").n == 3);
    CHECK(parse_shard("2/3").text() == "2/3");
    for (const char* bad : {"3/3", "4/3", "0/0", "1", "/3", "1/", "-1/3", "a/b", "1/3/5", " 1/3", "1/9999999"})
        CHECK_THROWS_AS(parse_shard(bad), cudalabs::UsageError);
    try {
        parse_shard("3/3");
    } catch (const cudalabs::UsageError& e) {
        CHECK(std::string(e.what()).find("below N") != std::string::npos);
    }
}

TEST_CASE("every student is in exactly one shard, for any N, also N larger than the class") {
    for (size_t size : {0, 1, 2, 7, 10, 41})
        for (int n : {1, 2, 3, 4, 7, 16, 50}) {
            const std::vector<std::string> c = ids(size);
            std::map<std::string, int> seen;
            size_t smallest = size, largest = 0;
            for (int k = 0; k < n; ++k) {
                const std::vector<std::string> mine = shard_members(c, k, n);
                smallest = std::min(smallest, mine.size());
                largest = std::max(largest, mine.size());
                for (const std::string& id : mine) ++seen[id];
            }
            CHECK(seen.size() == size);
            for (const auto& kv : seen) CHECK(kv.second == 1);
            CHECK(largest - smallest <= 1);  // balanced: slices differ by one student at most
            if (static_cast<size_t>(n) > size) CHECK(smallest == 0);
        }
}

TEST_CASE("the slices depend only on the sorted ids: the same in any order, kept in the class's order") {
    std::vector<std::string> c = ids(23), shuffled = c;
    std::reverse(shuffled.begin(), shuffled.end());
    std::rotate(shuffled.begin(), shuffled.begin() + 5, shuffled.end());
    for (int n : {2, 3, 5}) {
        for (int k = 0; k < n; ++k) {
            std::vector<std::string> a = shard_members(c, k, n), b = shard_members(shuffled, k, n);
            CHECK(a == shard_members(c, k, n));  // stable
            // Kept in the order given.
            std::vector<std::string> in_order;
            for (const std::string& id : c)
                if (std::count(a.begin(), a.end(), id)) in_order.push_back(id);
            CHECK(a == in_order);
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            CHECK(a == b);
        }
    }
    // The i-th id in sorted order goes to shard i % N.
    std::vector<std::string> sorted = c;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
        auto mine = shard_members(c, static_cast<int>(i % 4), 4);
        CHECK(std::count(mine.begin(), mine.end(), sorted[i]) == 1);
    }
}

TEST_CASE("shard.json is read back as written") {
    ShardRecord r;
    r.k = 1;
    r.n = 3;
    r.finished = true;
    r.seed = 987654321;
    r.lab = "08";
    r.rubric = "grading/rubrics/08.rubric";
    r.rubric_sha256 = "ab";
    r.tree = "abc (modified)";
    r.tools = "nvcc";
    r.isolation = "bwrap";
    r.device = "GPU";
    r.compile_only = true;
    r.class_ids = {"b", "a", "c"};
    r.assigned = {"a"};
    r.summary_head = {"student", "t", "total", "note"};
    r.summary_rows = {{"a", {"a", "1", "1/2", ""}}};
    r.regrade_of = "old/audit.jsonl";
    r.regrade_notes = {{"a", ""}};
    ShardRecord back = parse_shard_record(shard_record_json(r), "x");
    CHECK(back.k == 1);
    CHECK(back.n == 3);
    CHECK(back.finished);
    CHECK(back.seed == 987654321ull);
    CHECK(back.tree == r.tree);
    CHECK(back.compile_only);
    CHECK(back.class_ids == r.class_ids);
    CHECK(back.assigned == r.assigned);
    CHECK(back.summary_rows == r.summary_rows);
    CHECK(back.regrade_of == r.regrade_of);
    CHECK(back.regrade_notes == r.regrade_notes);
    CHECK(back.gpus.empty());
    r.gpus = {"GPU 0: NVIDIA H200 (driver 12.8): 3 submissions graded", "GPU 1: NVIDIA H200 (driver 12.8): 2 submissions graded"};
    CHECK(parse_shard_record(shard_record_json(r), "x").gpus == r.gpus);
    CHECK_THROWS_AS(parse_shard_record("{}", "x"), cudalabs::UsageError);
    CHECK_THROWS_AS(parse_shard_record("not json", "x"), cudalabs::UsageError);
    json j = json::parse(shard_record_json(r));
    j["k"] = 3;
    CHECK_THROWS_AS(parse_shard_record(j.dump(), "x"), cudalabs::UsageError);
}

TEST_CASE("CSV records keep quoted line breaks and doubled quotes") {
    auto r = csv_records("a,b\n\"x\ny\",\"q\"\"\n\"\nlast,\"\"\n");
    REQUIRE(r.size() == 3);
    CHECK(r[0] == "a,b\n");
    CHECK(r[1] == "\"x\ny\",\"q\"\"\n\"\n");
    CHECK(r[2] == "last,\"\"\n");
}

TEST_CASE("merging the shards gives the files of one run with that seed, for several N") {
    const Rubric rubric = sample_rubric();
    const std::vector<StudentResult> c = sample_class();
    for (const std::string& regrade : {std::string(), std::string("/old/audit.jsonl")})
        for (int n : {1, 2, 3, 7, 10}) {
            CAPTURE(n);
            CAPTURE(regrade);
            TempDir t;
            RunParams p;
            p.regrade_of = regrade;
            write_run(t.path + "/single", c, rubric, p);
            std::vector<std::string> dirs = write_shards(t.path, c, rubric, n, p);
            std::map<std::string, std::map<std::string, std::string>> before;
            for (const std::string& d : dirs) before[d] = tree_of(d);
            std::reverse(dirs.begin(), dirs.end());  // the order they are given in does not matter
            const std::string summary = merge_shards(t.path + "/merged", dirs);
            const auto single = tree_of(t.path + "/single"), merged = tree_of(t.path + "/merged");
            CHECK(summary == single.at("summary.txt"));
            CHECK(merged.size() == single.size());
            for (const auto& kv : single) {
                CAPTURE(kv.first);
                REQUIRE(merged.count(kv.first));
                CHECK(merged.at(kv.first) == kv.second);
            }
            // The shards' folders are left as they were.
            for (const std::string& d : dirs) CHECK(tree_of(d) == before[d]);
        }
}

namespace {
// What is left of a run's files once which GPU graded whom is taken out: the audit log's "gpus"
// (run line) and "gpu" (student lines), the summary's GPU lines.
std::string without_gpus(const std::string& name, const std::string& text) {
    std::istringstream in(text);
    std::string out;
    bool in_gpu_block = false;
    for (std::string line; std::getline(in, line);) {
        if (name == "audit.jsonl") {
            json j = json::parse(line);
            j.erase("gpus");
            j.erase("gpu");
            out += j.dump() + "\n";
        } else if (name == "summary.txt") {
            if (line.rfind("GPUs: ", 0) == 0) in_gpu_block = true;
            else if (in_gpu_block && line.rfind("  ", 0) != 0) in_gpu_block = false;
            if (!in_gpu_block) out += line + "\n";
        } else {
            out += line + "\n";
        }
    }
    return out;
}
}  // namespace

TEST_CASE("merging shards graded with --gpus: every shard's GPUs are named, the rest is one run's") {
    const Rubric rubric = sample_rubric();
    const std::vector<StudentResult> c = sample_class();
    for (int n : {1, 2, 3}) {
        CAPTURE(n);
        TempDir t;
        RunParams p;
        p.gpus = true;
        write_run(t.path + "/single", c, rubric, p);
        const std::vector<std::string> dirs = write_shards(t.path, c, rubric, n, p);
        const std::string summary = merge_shards(t.path + "/merged", dirs);
        const auto single = tree_of(t.path + "/single"), merged = tree_of(t.path + "/merged");
        CHECK(summary.find("GPUs: " + std::to_string(2 * n) + " (the shards' --gpus)") != std::string::npos);
        for (int k = 0; k < n; ++k) {
            CHECK(summary.find("  shard " + std::to_string(k) + ", GPU 0: NVIDIA H200") != std::string::npos);
            CHECK(summary.find("  shard " + std::to_string(k) + ", GPU 1: NVIDIA H200") != std::string::npos);
        }
        const json run = json::parse(merged.at("audit.jsonl").substr(0, merged.at("audit.jsonl").find('\n')));
        REQUIRE(run.contains("gpus"));
        CHECK(run["gpus"].size() == static_cast<size_t>(2 * n));
        for (const json& g : run["gpus"]) CHECK(g.contains("shard"));
        CHECK_FALSE(run.contains("shard"));
        CHECK(merged.size() == single.size());
        for (const auto& kv : single) {
            CAPTURE(kv.first);
            REQUIRE(merged.count(kv.first));
            CHECK(without_gpus(kv.first, merged.at(kv.first)) == without_gpus(kv.first, kv.second));
        }
    }
}

namespace {
// Dates a shard's audit log as the grader does: its run line when it began grading, each
// submission line when its results were written (`first`, then a minute apart).
void date_audit(const std::string& dir, const std::string& began, int first_minute) {
    std::istringstream in(read_file(dir + "/audit.jsonl"));
    std::string out;
    int minute = first_minute;
    for (std::string line; std::getline(in, line);) {
        json j = json::parse(line);
        if (j["event"] == "run") {
            j["graded_at"] = began;
        } else {
            j["graded_at"] = "2026-03-01T09:" + std::to_string(minute) + ":00Z";  // minutes 10 to 59
            ++minute;
        }
        out += j.dump() + "\n";
    }
    write_file(dir + "/audit.jsonl", out);
}
}  // namespace

TEST_CASE("the merged run is dated by its latest shard; each submission keeps its own date") {
    const Rubric rubric = sample_rubric();
    const std::vector<StudentResult> c = sample_class();
    TempDir t;
    const std::vector<std::string> dirs = write_shards(t.path, c, rubric, 3);
    // Shard 1 began last; shard 0 wrote the last results.
    date_audit(dirs[0], "2026-03-01T08:00:00Z", 40);
    date_audit(dirs[1], "2026-03-01T08:30:00Z", 10);
    date_audit(dirs[2], "2026-03-01T08:15:00Z", 20);
    std::map<std::string, std::string> dated;  // student -> its shard's date for it
    for (const std::string& d : dirs) {
        std::istringstream in(read_file(d + "/audit.jsonl"));
        for (std::string line; std::getline(in, line);) {
            const json j = json::parse(line);
            if (j["event"] == "submission") dated[j["student"]] = j["graded_at"];
        }
    }
    merge_shards(t.path + "/merged", dirs);
    std::istringstream merged(read_file(t.path + "/merged/audit.jsonl"));
    std::string line;
    REQUIRE(std::getline(merged, line));
    CHECK(json::parse(line).at("graded_at") == "2026-03-01T08:30:00Z");
    size_t lines = 0;
    for (; std::getline(merged, line); ++lines) {
        const json j = json::parse(line);
        CHECK(j.at("graded_at") == dated.at(j.at("student")));
    }
    CHECK(lines == c.size());
    // Its leaderboard states the newest submission's date (shard 0's last), not the file's.
    const std::vector<LeaderboardBoard> boards = build_leaderboards({t.path + "/merged"}, "0123456789abcdef-course");
    REQUIRE(boards.size() == 1);
    std::string newest;
    for (const auto& kv : dated) newest = std::max(newest, kv.second);
    CHECK(newest.rfind("2026-03-01T09:4", 0) == 0);  // shard 0's
    CHECK(boards[0].date == newest);
    CHECK_FALSE(boards[0].date_from_file);
}

TEST_CASE("merge refuses shards of different runs, missing, unfinished or duplicated shards") {
    const Rubric rubric = sample_rubric();
    const std::vector<StudentResult> c = sample_class();
    auto refused = [&](const std::vector<std::string>& dirs, const std::string& t, const std::string& needle) {
        const std::string why = merge_error(t + "/merged", dirs);
        CAPTURE(why);
        CHECK(why.find(needle) != std::string::npos);
        CHECK(!exists(t + "/merged"));  // nothing written
    };
    auto with_other = [&](auto change, const std::string& needle) {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path, c, rubric, 3);
        RunParams other;
        change(other);
        remove_tree(dirs[1]);
        write_run(dirs[1], c, rubric, other, 1, 3);
        refused(dirs, t.path, needle);
    };
    with_other([](RunParams& p) { p.seed = 99; }, "different seeds");
    with_other([](RunParams& p) { p.rubric_sha = std::string(64, 'e'); }, "different rubrics");
    with_other([](RunParams& p) { p.tree = "def5678"; }, "different trees");
    with_other([](RunParams& p) { p.lab = "02"; }, "different labs");
    with_other([](RunParams& p) { p.regrade_of = "x/audit.jsonl"; }, "different regrades");

    SUBCASE("different N") {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path + "/a", c, rubric, 3);
        std::vector<std::string> four = write_shards(t.path + "/b", c, rubric, 4);
        refused({dirs[0], dirs[1], four[2]}, t.path, "different shard counts (N)");
    }
    SUBCASE("missing shards are named, with what to rerun") {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path, c, rubric, 5);
        refused({dirs[0], dirs[2], dirs[4]}, t.path, "shards 1, 3 of 5 are missing");
        refused({dirs[0], dirs[2], dirs[4]}, t.path, "--seed 1234 --shard K/5");
        refused({dirs[0], dirs[1], dirs[2], dirs[3]}, t.path, "shard 4 of 5 is missing");
    }
    SUBCASE("a shard given twice") {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path, c, rubric, 2);
        refused({dirs[0], dirs[1], dirs[1]}, t.path, "shard 1/2 is given twice");
        write_run(t.path + "/copy", c, rubric, RunParams(), 0, 2);
        refused({dirs[0], dirs[1], t.path + "/copy"}, t.path, "shard 0/2 is given twice");
    }
    SUBCASE("a student in two shards") {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path, c, rubric, 2);
        ShardRecord r = parse_shard_record(read_file(dirs[1] + "/shard.json"), "x");
        ShardRecord r0 = parse_shard_record(read_file(dirs[0] + "/shard.json"), "x");
        r.assigned.push_back(r0.assigned[0]);
        write_file(dirs[1] + "/shard.json", shard_record_json(r));
        refused(dirs, t.path, "student '" + r0.assigned[0] + "' appears in two shards");
    }
    SUBCASE("an unfinished shard") {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path, c, rubric, 3);
        ShardRecord r = parse_shard_record(read_file(dirs[2] + "/shard.json"), "x");
        r.finished = false;
        write_file(dirs[2] + "/shard.json", shard_record_json(r));
        refused(dirs, t.path, "shard 2/3 (" + dirs[2] + ") did not finish");
    }
    SUBCASE("a shard whose files lack a student") {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path, c, rubric, 2);
        ShardRecord r = parse_shard_record(read_file(dirs[0] + "/shard.json"), "x");
        std::remove((dirs[0] + "/feedback/" + r.assigned.back() + ".md").c_str());
        refused(dirs, t.path, "feedback/" + r.assigned.back() + ".md is missing");
    }
    SUBCASE("not a shard, or an output folder in use") {
        TempDir t;
        std::vector<std::string> dirs = write_shards(t.path, c, rubric, 2);
        write_run(t.path + "/single", c, rubric, RunParams());
        refused({dirs[0], t.path + "/single"}, t.path, "has no shard.json");
        make_dirs(t.path + "/used");
        write_file(t.path + "/used/gradebook.csv", "old");
        const std::string why = merge_error(t.path + "/used", dirs);
        CHECK(why.find("already exists and is not empty") != std::string::npos);
        CHECK(read_file(t.path + "/used/gradebook.csv") == "old");
    }
}
