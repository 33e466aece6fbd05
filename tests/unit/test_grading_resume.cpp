// A grading run cut short and resumed (grading/src/class/run_record.h, class_results.h): whole
// writes, a torn last line dropped, a submission never recorded twice, another run's folder
// refused, and a class resumed from its records writing the files of a run never cut.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>

#include "grading/src/class/class_results.h"
#include "grading/src/class/results.h"
#include "grading/src/class/run_record.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;
using namespace grading_fixtures;
using nlohmann::json;

namespace {

// Every kind of test, one shown only after the due date.
Rubric sample_rubric() {
    Rubric r = rubric_of({test_spec("correct", "Correctness", 20), test_spec("memcheck", "Memcheck", 5, TestKind::Sanitizer),
                          test_spec("perf", "Performance", 10, TestKind::Performance)});
    r.tests[1].visibility = Visibility::AfterDueDate;
    return r;
}

// A class of `n` results: rejections with multi-line notes, hidden tests, a grader error, a
// compile-only one, a timed performance test (the leaderboard's figure), outputs with quotes.
std::vector<StudentResult> sample_class(size_t n) {
    std::vector<StudentResult> c;
    for (size_t i = 0; i < n; ++i) {
        StudentResult r;
        r.student = "student-" + std::to_string(i);
        r.file = i % 2 ? "vector_add.cu" : "student-" + std::to_string(i) + "/vector_add.cu";
        r.sha256 = std::string(64, static_cast<char>('0' + i % 10));
        r.compiled = i % 5 != 3;
        if (!r.compiled) r.rejected = "compile error:\nline " + std::to_string(i) + ", \"quoted\"";
        if (i % 5 == 4) r.grader_error = "in test 'correct': the GPU fell off the bus";
        r.notes = {"graded with seed 42"};
        r.compiler_output = i % 2 ? "warning: `x` unused\n" : "";
        r.tests = {{"correct", "Correctness", static_cast<double>(i % 21) + 0.25, 20, Visibility::Visible, "rows of " + r.student + "\n", i == 2},
                   {"memcheck", "Memcheck", i % 2 ? 5.0 : 0.0, 5, Visibility::AfterDueDate, "========= Invalid __global__ read\n", false},
                   {"perf", "Performance", static_cast<double>(i % 11), 10, Visibility::Hidden, "timed \"fast\"\n", false, 1.0 / 3.0 + i}};
        r.execution_time_s = 2.0 / 3.0 + static_cast<double>(i);
        c.push_back(r);
    }
    return c;
}

// The files of a class graded into `dir` after an earlier run's block `earlier`, in `order`,
// every submission recorded before its files (as the grader does). `stop_after`: the run is cut
// there (the object goes away with no end, as a kill leaves it).
void grade_into(const std::string& dir, const std::vector<StudentResult>& c, const std::vector<size_t>& order, size_t stop_after) {
    make_dirs(dir + "/feedback");
    make_dirs(dir + "/results");
    make_dirs(dir + "/.resume/submissions");
    const Rubric rubric = sample_rubric();
    ClassResults book(dir, rubric, "Lab 01", ids_of(c));
    book.begin(R"({"event":"run","seed":42})");
    for (size_t k = 0; k < order.size() && k < stop_after; ++k) {
        const size_t i = order[k];
        save_submission_record(dir, c[i].student, {c[i], audit_line(c[i]), true, 0});
        book.finish(i, c[i], audit_line(c[i]));
    }
    if (stop_after >= order.size()) book.end();
}

// Resumes the class in `dir` from its records, then grades the rest in `order`.
void resume_into(const std::string& dir, const std::vector<StudentResult>& c, long long prefix, const std::vector<size_t>& order) {
    const Rubric rubric = sample_rubric();
    ClassResults book(dir, rubric, "Lab 01", ids_of(c));
    const std::map<std::string, SubmissionRecord> recorded = load_submission_records(dir);
    std::map<size_t, ClassResults::Restored> restored;
    for (size_t i = 0; i < c.size(); ++i)
        if (auto it = recorded.find(c[i].student); it != recorded.end()) restored[i] = {it->second.result, it->second.audit_line};
    book.resume(prefix, R"({"event":"run","seed":42})", restored);
    for (size_t i : order) {
        if (restored.count(i)) continue;
        save_submission_record(dir, c[i].student, {c[i], audit_line(c[i]), true, 0});
        book.finish(i, c[i], audit_line(c[i]));
    }
    book.end();
}

RunRecord sample_record() {
    RunRecord r;
    r.command = {{"lab", "01"}, {"rubric", "/r/01.rubric"}, {"inputs", {"/subs"}}, {"compile_only", false}, {"combine_correctness", true}, {"shard", ""}};
    r.seed = 1234;
    r.rubric_sha256 = "abc";
    return r;
}

}  // namespace

TEST_CASE("a result recorded and read back renders the same files") {
    for (const StudentResult& r : sample_class(6)) {
        const StudentResult back = result_from_record(json::parse(result_record_json(r).dump()));
        CHECK(gradescope_json(back) == gradescope_json(r));
        CHECK(feedback_markdown(back, "Lab 01") == feedback_markdown(r, "Lab 01"));
        CHECK(gradebook_row(back, sample_rubric()) == gradebook_row(r, sample_rubric()));
        CHECK(audit_line(back) == audit_line(r));
        CHECK(summary_row(back, sample_rubric()) == summary_row(r, sample_rubric()));
        CHECK(back.tests[1].slowdown == r.tests[1].slowdown);
    }
}

TEST_CASE("a torn last line is dropped; whole writes leave no temporary file") {
    bool torn = false;
    CHECK(complete_lines("{\"a\":1}\n{\"b\":", &torn) == "{\"a\":1}\n");
    CHECK(torn);
    CHECK(complete_lines("{\"a\":1}\n", &torn) == "{\"a\":1}\n");
    CHECK_FALSE(torn);
    CHECK(complete_lines("{\"b\":", &torn).empty());
    CHECK(torn);

    TempDir t;
    write_file_atomic(t.path + "/f", "one");
    write_file_atomic(t.path + "/f", "two");
    CHECK(read_file(t.path + "/f") == "two");
    CHECK_FALSE(exists(t.path + "/f.tmp"));
    append_line_synced(t.path + "/log", "a");
    append_line_synced(t.path + "/log", "b");
    CHECK(read_file(t.path + "/log") == "a\nb\n");

    // A run begun after one killed mid-line: the torn line is no record, and the new block
    // starts on a line of its own.
    write_file(t.path + "/audit.jsonl", "{\"event\":\"run\"}\n{\"event\":\"submission\",\"stud");
    const Rubric rubric = sample_rubric();
    ClassResults book(t.path, rubric, "Lab 01", {});
    CHECK(book.audit_prefix() == 16);
    CHECK(book.begin("{\"event\":\"run\",\"seed\":2}") == 16);
    CHECK(read_file(t.path + "/audit.jsonl") == "{\"event\":\"run\"}\n{\"event\":\"run\",\"seed\":2}\n");
}

TEST_CASE("an unwritable folder is found before anything is graded, and named") {
    TempDir t;
    write_file(t.path + "/a-file", "");
    std::string what;
    try {
        check_writable(t.path + "/a-file");
    } catch (const StorageError& e) {
        what = e.what();
    }
    CHECK(what.find("cannot write in " + t.path + "/a-file") != std::string::npos);
    CHECK_NOTHROW(check_writable(t.path));
    CHECK(list_dir(t.path) == std::vector<std::string>{"a-file"});  // the probe is gone
    CHECK_THROWS_AS(write_file_atomic(t.path + "/a-file/x", "text"), StorageError);
    CHECK_THROWS_AS(append_line_synced(t.path + "/a-file/x", "line"), StorageError);
}

TEST_CASE("a submission is recorded once; a record that is not whole is graded again") {
    TempDir t;
    const std::vector<StudentResult> c = sample_class(3);
    save_run_record(t.path, sample_record());
    save_submission_record(t.path, c[0].student, {c[0], audit_line(c[0]), true, 1});
    CHECK_THROWS_AS(save_submission_record(t.path, c[0].student, {c[0], audit_line(c[0]), true, 1}), std::logic_error);
    write_file(t.path + "/.resume/submissions/" + c[1].student + ".json", "{\"result\":{\"student\":");  // not whole
    write_file(t.path + "/.resume/submissions/" + c[2].student + ".json.tmp", "{}");                   // a temporary file a kill left
    const std::map<std::string, SubmissionRecord> records = load_submission_records(t.path);
    REQUIRE(records.size() == 1);
    CHECK(records.at(c[0].student).worker == 1);
    CHECK(records.at(c[0].student).audit_line == audit_line(c[0]));
    clear_submission_records(t.path);
    CHECK(load_submission_records(t.path).empty());

    // A class resumed: a recorded submission is never finished again.
    make_dirs(t.path + "/feedback");
    make_dirs(t.path + "/results");
    const Rubric rubric = sample_rubric();
    ClassResults book(t.path, rubric, "Lab 01", ids_of(c));
    book.resume(0, "{\"event\":\"run\"}", {{1, {c[1], audit_line(c[1])}}});
    CHECK_THROWS_AS(book.finish(1, c[1], audit_line(c[1])), std::logic_error);
}

TEST_CASE("the run record reads back, and a folder holding another run's results is refused") {
    TempDir t;
    RunRecord r = sample_record();
    r.tree = "abc123";
    r.run_line = "{\"event\":\"run\"}";
    r.audit_prefix = 77;
    r.class_ids = {"alice", "bob"};
    save_run_record(t.path, r);
    const RunRecord back = load_run_record(t.path);
    CHECK(back.command == r.command);
    CHECK(back.seed == 1234);
    CHECK(back.tree == "abc123");
    CHECK(back.run_line == r.run_line);
    CHECK(back.audit_prefix == 77);
    CHECK(back.class_ids == r.class_ids);
    CHECK_FALSE(back.finished);

    CHECK(resume_refusal(r, r.command, "abc", 0, "OUT").empty());     // the same run, no seed given
    CHECK(resume_refusal(r, r.command, "abc", 1234, "OUT").empty());  // or the same seed
    json other_lab = r.command;
    other_lab["lab"] = "02";
    const std::string refused = resume_refusal(r, other_lab, "abc", 0, "OUT");
    CHECK(refused.find("OUT holds the unfinished results of another run (its lab differ") != std::string::npos);
    CHECK(refused.find("grading/grade --resume OUT") != std::string::npos);
    CHECK(resume_refusal(r, r.command, "def", 0, "OUT").find("rubric's text") != std::string::npos);
    CHECK(resume_refusal(r, r.command, "abc", 99, "OUT").find("seed (1234 there)") != std::string::npos);
    json compile_only = r.command;
    compile_only["compile_only"] = true;
    CHECK(resume_refusal(r, compile_only, "abc", 0, "OUT").find("compile_only") != std::string::npos);

    write_file(run_record_path(t.path), "{\"command\":");  // not a record
    CHECK_THROWS_AS(load_run_record(t.path), std::runtime_error);
}

TEST_CASE("a resumed run keeps how its correctness trials ran") {
    // As --resume does it: the options taken from the record (apply_run_command), then the
    // command they make compared with the record's (resume_refusal).
    auto resumed = [](const std::string& out, Config& cfg) {
        const RunRecord recorded = load_run_record(out);
        apply_run_command(recorded.command, cfg);
        return resume_refusal(recorded, run_command_json(cfg), recorded.rubric_sha256, 0, out);
    };
    TempDir t;
    Config separate;
    separate.lab = "13";
    separate.inputs = {"alice.cu"};
    separate.combine_correctness = false;
    RunRecord r;
    r.command = run_command_json(separate);
    r.seed = 7;
    save_run_record(t.path, r);
    Config back;
    CHECK(resumed(t.path, back) == "");
    CHECK_FALSE(back.combine_correctness);
    CHECK(Config().combine_correctness);  // the default
}

TEST_CASE("a class cut short and resumed writes the files of a run never cut, in any order") {
    const std::vector<StudentResult> c = sample_class(7);
    const std::string earlier = "{\"event\":\"run\",\"seed\":1}\n" + audit_line(c[0]) + "\n";
    for (const std::vector<size_t>& order : {std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}, std::vector<size_t>{5, 0, 6, 2, 1, 4, 3}}) {
        for (size_t cut : {size_t(0), size_t(1), size_t(4), size_t(6)}) {
            TempDir whole("whole"), cut_dir("cut");
            write_file(whole.path + "/audit.jsonl", earlier);
            write_file(cut_dir.path + "/audit.jsonl", earlier);
            grade_into(whole.path, c, order, order.size());
            grade_into(cut_dir.path, c, order, cut);
            // What a kill leaves besides: a torn line, and a record whose files were never made.
            append_line_synced(cut_dir.path + "/audit.jsonl", "{\"event\":\"submission\",\"stu");
            const size_t recorded_only = order[cut];
            save_submission_record(cut_dir.path, c[recorded_only].student, {c[recorded_only], audit_line(c[recorded_only]), true, 0});
            resume_into(cut_dir.path, c, static_cast<long long>(earlier.size()), order);
            std::map<std::string, std::string> want = tree_of(whole.path), got = tree_of(cut_dir.path);
            CHECK_MESSAGE(want == got, "cut after " << cut << " of order starting " << order[0]);
        }
    }
}
