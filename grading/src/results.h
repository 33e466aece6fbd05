// What grading a submission produced, and the files written from it: per-student feedback
// (Markdown), Gradescope's results.json, the class gradebook (CSV) and the audit log (JSONL).
// Host-only: unit-tested with g++ (the JSON is parsed back with nlohmann-json).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "rubric.h"

namespace grading {

struct TestResult {
    std::string id, name;
    double score = 0, max_score = 0;
    Visibility visibility = Visibility::Visible;
    std::string output;  // what the student reads: what was checked, what failed and why
    bool passed() const { return max_score <= 0 ? score >= 0 : score >= max_score - 1e-9; }
};

struct StudentResult {
    std::string student;   // id: the file's stem or the folder's name
    std::string file;      // the submitted file
    std::string sha256;    // of the submitted file
    bool compiled = false;
    std::string rejected;  // non-empty: not graded, and why (compile error, integrity)
    std::string compiler_output;
    std::vector<std::string> notes;  // shown at the top of the feedback
    std::vector<TestResult> tests;
    double execution_time_s = 0;

    double total() const;
    double max_total() const;
};

// Gradescope's results.json for one submission.
std::string gradescope_json(const StudentResult& r);
// One line of the audit log (JSON object, no newline).
std::string audit_json(const StudentResult& r, const std::string& lab, unsigned long long seed,
                       const std::string& device, const std::string& isolation,
                       const std::string& tools, const std::string& rubric_sha256);
// The per-student feedback.
std::string feedback_markdown(const StudentResult& r, const std::string& lab_title);
// The class gradebook: student, sha256, one column per rubric test, total, max.
void write_gradebook(std::ostream& out, const std::vector<StudentResult>& results, const Rubric& rubric);
std::string csv_field(const std::string& text);
// The summary table printed at the end of a run.
std::string summary_table(const std::vector<StudentResult>& results, const Rubric& rubric);
std::string format_points(double points);  // "12.5", "20"

}  // namespace grading
