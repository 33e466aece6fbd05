#include "intake/questions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "util/text.h"

namespace grading {

namespace {

// A whole string as a finite number; empty where it is not one.
std::optional<double> plain_number(const std::string& s) {
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

double key_number(const std::string& s) {
    const std::optional<double> v = plain_number(s);
    if (!v) throw std::invalid_argument("'" + s + "' is not a number");
    return *v;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

QuestionKey choice_key(QuestionKey q, const std::vector<std::string>& w) {
    if (w.size() != 4 || w[1].size() != 1 || w[2] != "of") throw std::invalid_argument("a choice is 'choice LETTER of LETTERS'");
    q.form = AnswerForm::Choice;
    q.choice = upper(w[1])[0];
    q.options = upper(w[3]);
    for (char c : q.options)
        if (c < 'A' || c > 'Z' || std::count(q.options.begin(), q.options.end(), c) > 1)
            throw std::invalid_argument("the options must be different letters, like ABCD");
    if (q.options.find(q.choice) == std::string::npos) throw std::invalid_argument("the answer is not one of the options");
    return q;
}

QuestionKey number_key(QuestionKey q, const std::vector<std::string>& w) {
    if (w.size() != 2 && !(w.size() == 4 && w[2] == "+-")) throw std::invalid_argument("a number is 'number N' or 'number N +- TOLERANCE'");
    q.number = key_number(w[1]);
    q.tolerance = w.size() == 4 ? key_number(w[3]) : 0;
    if (q.tolerance < 0) throw std::invalid_argument("the tolerance must not be negative");
    return q;
}

QuestionKey prediction_key(QuestionKey q, const std::vector<std::string>& w) {
    if (w.size() != 4 || w[2] != "within") throw std::invalid_argument("a prediction is 'predict PERFORMANCE_TEST within FACTOR'");
    q.form = AnswerForm::Prediction;
    q.measured_by = w[1];
    q.within = key_number(w[3]);
    if (q.within < 1) throw std::invalid_argument("the factor must be at least 1");
    return q;
}

}  // namespace

bool is_question_id(const std::string& key) {
    if (key.size() < 2 || key.size() > 3 || key[0] != 'q' || key[1] == '0') return false;
    return std::all_of(key.begin() + 1, key.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

QuestionKey parse_question_key(const std::string& id, const std::string& value) {
    QuestionKey q;
    q.id = id;
    const std::vector<std::string> w = split_ws(value);
    if (!w.empty() && w[0] == "choice") return choice_key(q, w);
    if (!w.empty() && w[0] == "number") return number_key(q, w);
    if (!w.empty() && w[0] == "predict") return prediction_key(q, w);
    throw std::invalid_argument("a question's key is 'choice B of ABCD', 'number N [+- T]' or 'predict TEST within F'");
}

std::string answer_form_text(const QuestionKey& q) {
    if (q.form == AnswerForm::Choice) return "one letter of " + q.options;
    if (q.form == AnswerForm::Prediction) return "a positive number, your predicted ratio";
    return "a number";
}

std::optional<char> answer_choice(const std::string& answer, const std::string& options) {
    if (answer.size() != 1) return std::nullopt;
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(answer[0])));
    if (options.find(c) == std::string::npos) return std::nullopt;
    return c;
}

std::optional<double> answer_number(const std::string& answer) {
    const size_t slash = answer.find('/');
    if (slash == std::string::npos) return plain_number(answer);
    const std::optional<double> a = plain_number(trim(answer.substr(0, slash)));
    const std::optional<double> b = plain_number(trim(answer.substr(slash + 1)));
    if (!a || !b || *b == 0) return std::nullopt;
    return *a / *b;
}

Answers parse_answers(const std::string& text) {
    Answers a;
    if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
        a.problem = "line " + std::to_string(line_of_offset(text, bad)) + " has a byte that is not UTF-8: save it as plain UTF-8 text";
        return a;
    }
    std::istringstream in(text);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        line = trim(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        const size_t eq = line.find('=');
        std::string id = eq == std::string::npos ? "" : trim(line.substr(0, eq));
        if (!id.empty()) id[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(id[0])));
        if (!is_question_id(id)) {
            a.stray_lines.push_back(number);
            continue;
        }
        if (a.given.count(id) && std::find(a.twice.begin(), a.twice.end(), id) == a.twice.end()) a.twice.push_back(id);
        a.given[id] = trim(line.substr(eq + 1));
    }
    return a;
}

Answers answers_of_file(const std::string& bytes, const std::string& problem) {
    if (problem.empty()) return parse_answers(bytes);
    Answers a;
    a.problem = problem;
    return a;
}

}  // namespace grading
