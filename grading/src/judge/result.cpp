#include "judge/result.h"

#include <algorithm>
#include <cstdio>

#include "util/text.h"

namespace grading {

double StudentResult::total() const {
    double s = 0;
    for (const TestResult& t : tests) s += t.score;
    return s;
}
double StudentResult::max_total() const {
    double s = 0;
    for (const TestResult& t : tests) s += t.max_score;
    return s;
}
bool StudentResult::compile_only() const {
    return grader_error.empty() && rejected.empty() && !tests.empty() &&
           std::all_of(tests.begin(), tests.end(), [](const TestResult& t) { return t.not_run; });
}

void make_grader_error(StudentResult& r, const std::string& why) {
    r.grader_error = why.empty() ? "unknown" : why;
    r.tests.clear();
}

void make_text_valid(StudentResult& r) {
    for (std::string* s : {&r.student, &r.submitted_as, &r.file, &r.sha256, &r.rejected, &r.grader_error, &r.compiler_output}) *s = valid_utf8(*s);
    for (std::string& n : r.notes) n = valid_utf8(n);
    for (TestResult& t : r.tests) {
        for (std::string* s : {&t.id, &t.name, &t.output, &t.roofline.variant, &t.roofline.size, &t.roofline.device}) *s = valid_utf8(*s);
    }
}

std::string total_text(const StudentResult& r, double max_points) {
    if (!r.grader_error.empty()) return kGraderErrorVerdict;
    if (r.compile_only()) return kCompileOnlyVerdict;
    return format_points(r.total()) + "/" + format_points(max_points);
}

std::string format_points(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", p);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

}  // namespace grading
