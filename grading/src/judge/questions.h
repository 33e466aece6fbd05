// Judging a questions test: each answer of the student's answers file against the rubric's key,
// a prediction against the student's own measured run (a performance test graded before it).
// Pure functions of the answers, the key and the earlier results; no GPU. Host-only:
// unit-tested with g++.
#pragma once
#include <map>
#include <string>

#include "intake/questions.h"
#include "intake/rubric.h"
#include "judge/result.h"

namespace grading {

// What a timed performance test measured of the student's run, as the lab's table shows it for
// a memory lab: the bytes one repetition moves per second over the copy bandwidth measured on
// the same GPU. 0 where the test was not timed (not run, failed, forged) or counts no bytes.
double measured_copy_ratio(const TestResult& timed);

// Whether a predicted ratio holds: predicted and measured within a factor `within` of each
// other, either way (both positive).
bool prediction_holds(double predicted, double measured, double within);

// One question's verdict and its line of feedback (the key shown where the answer is wrong).
struct QuestionVerdict {
    bool right = false;
    std::string line;
};
// Whether the answer to `q` is there and well-formed: "" where it is, else the line saying why not.
std::string answer_problem(const QuestionKey& q, const Answers& answers);
QuestionVerdict judge_question(const QuestionKey& q, const Answers& answers, const std::map<std::string, TestResult>& done);

// Test `t` (kind questions) for answers read from the file: the points shared equally among its
// questions, one feedback line each. `problem` non-empty: the file could not be used (missing,
// a link, too large), and why: every question gives 0, and the feedback says so.
TestResult grade_questions(const TestSpec& t, const Answers& answers, const std::map<std::string, TestResult>& done);
// What --compile-only says of test `t` (no score, never the key): whether the file was read, and
// each question answered and well-formed or not, a line each.
std::string questions_form_text(const TestSpec& t, const Answers& answers);

}  // namespace grading
