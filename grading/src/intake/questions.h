// A lab's questions with numeric or choice answers: the key an instructor writes in the rubric
// (a test of kind questions, one line per question) and the answers file a student hands in
// beside the code (answers.txt, one line `qN = ANSWER` per question). Student bytes are parsed
// here and nowhere else. Host-only: unit-tested with g++.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grading {

// The file a student hands in with the code, in the same folder.
constexpr const char* kAnswersFile = "answers.txt";

enum class AnswerForm { Choice, Number, Prediction };

// One question's key, as the rubric writes it:
//   q1 = choice B of ABCD          one letter of the options listed
//   q2 = number 32                 a number, exactly (within 1e-9 of it)
//   q3 = number 0.5 +- 0.01        a number within the tolerance
//   q4 = predict perf_fast within 1.5   a predicted ratio to the copy bandwidth, right where the
//                                  student's own measured ratio (performance test perf_fast)
//                                  is within a factor 1.5 of it either way
struct QuestionKey {
    std::string id;  // "q1"
    AnswerForm form = AnswerForm::Number;
    char choice = 0;      // Choice: the right letter (upper case)
    std::string options;  // Choice: the letters allowed (upper case)
    double number = 0, tolerance = 0;  // Number
    std::string measured_by;  // Prediction: the performance test whose run it is compared with
    double within = 0;        // Prediction: the factor, at least 1
};

// Whether `key` names a question: q1 to q99.
bool is_question_id(const std::string& key);
// A question's key from its rubric value. Throws std::invalid_argument saying what is wrong.
QuestionKey parse_question_key(const std::string& id, const std::string& value);
// What a well-formed answer to the question is, without its key: "one of A B C D", "a number".
std::string answer_form_text(const QuestionKey& q);

// An answer as written, read for the question's form: a letter of its options, or a finite
// number (a fraction 1/32 too). Empty where it is not one.
std::optional<char> answer_choice(const std::string& answer, const std::string& options);
std::optional<double> answer_number(const std::string& answer);

// A student's answers file. `problem` non-empty: none of it is read (not UTF-8, say), and why.
struct Answers {
    std::map<std::string, std::string> given;  // question id -> the answer as written (trimmed)
    std::vector<std::string> twice;            // ids answered on more than one line: not counted
    std::vector<int> stray_lines;              // lines that are not `qN = ANSWER` (ignored)
    std::string problem;
};
// `text` read as answers: `qN = ANSWER` lines (ids case-insensitive), `#` to the end of a line
// a comment, blank lines ignored.
Answers parse_answers(const std::string& text);
// The answers of a file as the intake read it: its bytes, or why it could not be read (`problem`
// non-empty: nothing of it is read).
Answers answers_of_file(const std::string& bytes, const std::string& problem);

}  // namespace grading
