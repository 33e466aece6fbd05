#include "judge/questions.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "util/text.h"

namespace grading {

double measured_copy_ratio(const TestResult& timed) {
    const RooflineFigures& f = timed.roofline;
    if (timed.not_run || !f.measured() || f.roofline_bytes <= 0 || f.copy_gbs <= 0) return 0;
    return f.roofline_bytes / (f.student_ms * 1e6) / f.copy_gbs;
}

bool prediction_holds(double predicted, double measured, double within) {
    if (!(predicted > 0) || !(measured > 0)) return false;
    const double factor = std::max(predicted / measured, measured / predicted);
    return factor <= within * (1 + 1e-9);
}

namespace {

QuestionVerdict judge_prediction(const QuestionKey& q, double predicted, const std::map<std::string, TestResult>& done) {
    const auto it = done.find(q.measured_by);
    const double measured = it == done.end() ? 0 : measured_copy_ratio(it->second);
    const std::string mine = "you predicted " + number_text(predicted);
    if (measured <= 0)
        return {false, mine + ", but '" + q.measured_by + "' did not time your kernel, so there is nothing to compare it with (0 points)"};
    const bool right = prediction_holds(predicted, measured, q.within);
    return {right, mine + "; your run measured " + number_text(measured) + " ('" + q.measured_by + "'): " +
                       (right ? "within " : "not within ") + "a factor " + number_text(q.within)};
}

// The lines of the file that are no answer, in one sentence ("" where there are none).
std::string stray_note(const Answers& answers) {
    if (answers.stray_lines.empty()) return "";
    return std::to_string(answers.stray_lines.size()) + " line(s) of " + kAnswersFile + " are not 'qN = ANSWER' (first: line " +
           std::to_string(answers.stray_lines.front()) + "): ignored\n";
}

}  // namespace

std::string answer_problem(const QuestionKey& q, const Answers& answers) {
    const auto it = answers.given.find(q.id);
    if (it == answers.given.end() || it->second.empty()) return "not answered";
    if (std::find(answers.twice.begin(), answers.twice.end(), q.id) != answers.twice.end())
        return "answered on more than one line: not counted";
    const bool choice = q.form == AnswerForm::Choice;
    const std::optional<double> v = choice ? std::nullopt : answer_number(it->second);
    const bool formed = choice ? answer_choice(it->second, q.options).has_value() : v && (q.form != AnswerForm::Prediction || *v > 0);
    return formed ? "" : "'" + clip(it->second, 40) + "' is not " + answer_form_text(q);
}

QuestionVerdict judge_question(const QuestionKey& q, const Answers& answers, const std::map<std::string, TestResult>& done) {
    if (const std::string problem = answer_problem(q, answers); !problem.empty()) return {false, problem};
    const std::string& given = answers.given.at(q.id);
    if (q.form == AnswerForm::Choice) {
        const char c = *answer_choice(given, q.options);
        if (c == q.choice) return {true, std::string("right (") + c + ")"};
        return {false, std::string("wrong: you answered ") + c + ", the answer is " + q.choice};
    }
    const double v = *answer_number(given);
    if (q.form == AnswerForm::Prediction) return judge_prediction(q, v, done);
    const double slack = std::max(q.tolerance, 1e-9 * std::max(1.0, std::abs(q.number)));
    if (std::abs(v - q.number) <= slack) return {true, "right (" + number_text(v) + ")"};
    const std::string within = q.tolerance > 0 ? " (within " + number_text(q.tolerance) + ")" : "";
    return {false, "wrong: you answered " + number_text(v) + ", the answer is " + number_text(q.number) + within};
}

std::string questions_form_text(const TestSpec& t, const Answers& answers) {
    if (!answers.problem.empty()) return std::string(kAnswersFile) + " not read: " + answers.problem + "\n";
    std::string out;
    int formed = 0;
    for (const QuestionKey& q : t.questions) {
        const std::string problem = answer_problem(q, answers);
        formed += problem.empty();
        out += q.id + ": " + (problem.empty() ? "answered, well-formed" : problem) + "\n";
    }
    return std::to_string(formed) + " of " + std::to_string(t.questions.size()) + " questions of " + kAnswersFile +
           " answered and well-formed (not judged here).\n" + out + stray_note(answers);
}

TestResult grade_questions(const TestSpec& t, const Answers& answers, const std::map<std::string, TestResult>& done) {
    TestResult r{t.id, t.name, 0, t.points, t.visibility, ""};
    if (!answers.problem.empty()) {
        r.output = "No answers read: " + answers.problem + ". Each of the " + std::to_string(t.questions.size()) +
                   " questions gives 0.\n";
        return r;
    }
    int right = 0;
    for (const QuestionKey& q : t.questions) {
        const QuestionVerdict v = judge_question(q, answers, done);
        right += v.right;
        r.output += q.id + ": " + v.line + "\n";
    }
    r.output += stray_note(answers);
    r.output = std::to_string(right) + " of " + std::to_string(t.questions.size()) + " questions right (" + kAnswersFile + ").\n" + r.output;
    r.score = t.questions.empty() ? 0 : t.points * right / static_cast<double>(t.questions.size());
    return r;
}

}  // namespace grading
