// The questions a student answers in answers.txt: the rubric's key, the answers file, and their
// judging, a prediction against the student's own measured run (grading/src/intake/questions.h,
// grading/src/judge/questions.h).
#include <doctest/doctest.h>

#include <string>

#include "grading/src/intake/rubric.h"
#include "grading/src/judge/questions.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"

using namespace grading;

namespace {

const char* kRubric = R"(lab = 08
[test correct]
kind = correctness
points = 10
variants = fast
sizes = 1
[test perf_fast]
kind = performance
points = 10
variant = fast
size = 4096
curve = 1.15:1 3:0
[test questions]
kind = questions
points = 6
q1 = choice B of ABCD
q2 = number 32
q3 = predict perf_fast within 1.5
)";

// A timed run of 64 MiB moved in 0.1 ms on a GPU that copies at 1000 GB/s: 0.671 of it.
TestResult timed_run() {
    TestResult r;
    r.id = "perf_fast";
    r.roofline.roofline_bytes = 64.0 * 1024 * 1024;
    r.roofline.copy_gbs = 1000;
    r.roofline.student_ms = 0.1;
    r.roofline.reference_ms = 0.1;
    return r;
}

}  // namespace

TEST_CASE("a question's key: a choice, a number with or without tolerance, a prediction") {
    const QuestionKey c = parse_question_key("q1", "choice b of abcd");
    CHECK(c.form == AnswerForm::Choice);
    CHECK(c.choice == 'B');
    CHECK(c.options == "ABCD");
    const QuestionKey n = parse_question_key("q2", "number 0.5 +- 0.01");
    CHECK(n.form == AnswerForm::Number);
    CHECK(n.number == 0.5);
    CHECK(n.tolerance == 0.01);
    const QuestionKey p = parse_question_key("q3", "predict perf_fast within 1.5");
    CHECK(p.form == AnswerForm::Prediction);
    CHECK(p.measured_by == "perf_fast");
    CHECK(p.within == 1.5);
    for (const char* bad : {"", "B", "choice E of ABCD", "choice B of AB1", "choice B of ABB", "number x", "number 1 +- -1",
                            "number 1 2", "predict perf_fast within 0.5", "predict perf_fast"})
        CHECK_THROWS_AS(parse_question_key("q1", bad), std::invalid_argument);
    CHECK(is_question_id("q1"));
    CHECK(is_question_id("q12"));
    CHECK_FALSE(is_question_id("q0"));
    CHECK_FALSE(is_question_id("q"));
    CHECK_FALSE(is_question_id("Q1"));
    CHECK_FALSE(is_question_id("q100"));
}

TEST_CASE("a rubric's questions test: parsed, and refused where it runs something or predicts no timed test") {
    const Rubric r = parse_rubric(kRubric, "08.rubric");
    const TestSpec* q = r.find("questions");
    REQUIRE(q);
    CHECK(q->kind == TestKind::Questions);
    CHECK(q->questions.size() == 3);
    CHECK(r.total_points() == 26);
    const std::string base = kRubric;
    CHECK_THROWS_WITH_AS(parse_rubric(base + "variants = fast\n", "x"), doctest::Contains("runs nothing"), RubricError);
    CHECK_THROWS_WITH_AS(parse_rubric(base + "q4 = predict correct within 2\n", "x"), doctest::Contains("not an earlier performance test"),
                         RubricError);
    CHECK_THROWS_WITH_AS(parse_rubric(base + "q1 = number 3\n", "x"), doctest::Contains("given twice"), RubricError);
    CHECK_THROWS_WITH_AS(parse_rubric(base + "q4 = maybe\n", "x"), doctest::Contains("q4:"), RubricError);
    CHECK_THROWS_WITH_AS(parse_rubric("lab = 01\n[test q]\nkind = questions\npoints = 1\n", "x"), doctest::Contains("has no question"),
                         RubricError);
    CHECK_THROWS_WITH_AS(parse_rubric("lab = 01\n[test c]\npoints = 1\nvariants = a\nsizes = 1\nq1 = number 1\n", "x"),
                         doctest::Contains("not of kind questions"), RubricError);
}

TEST_CASE("an answers file: qN = ANSWER lines, comments, strays, a question answered twice, bytes that are not UTF-8") {
    const Answers a = parse_answers("# lab 08\nq1 = b   # the bank\r\nQ2=32\n\nhello\nq3 =\nq4 = 1\nq4 = 2\n");
    CHECK(a.problem.empty());
    CHECK(a.given.at("q1") == "b");
    CHECK(a.given.at("q2") == "32");
    CHECK(a.given.at("q3") == "");
    CHECK(a.twice == std::vector<std::string>{"q4"});
    CHECK(a.stray_lines == std::vector<int>{5});
    CHECK(parse_answers("q1 = 1\n\xff\n").problem.find("line 2") != std::string::npos);
    const Answers b = parse_answers("hello\nq1 = 1\nq1\n");
    CHECK(b.stray_lines == std::vector<int>{1, 3});
    CHECK(answers_of_file("q1 = 1", "no answers.txt").given.empty());
    CHECK(answer_number("1/32") == doctest::Approx(0.03125));
    CHECK_FALSE(answer_number("1/0"));
    CHECK_FALSE(answer_number("32 banks"));
    CHECK_FALSE(answer_number("nan"));
    CHECK_FALSE(answer_number(" 3"));
    CHECK(answer_choice("c", "ABCD") == 'C');
    CHECK_FALSE(answer_choice("E", "ABCD"));
    CHECK_FALSE(answer_choice("AB", "ABCD"));
}

TEST_CASE("a prediction holds within its factor either way, against the copy ratio the run measured") {
    CHECK(measured_copy_ratio(timed_run()) == doctest::Approx(0.67108864));
    TestResult untimed = timed_run();
    untimed.roofline.student_ms = 0;
    CHECK(measured_copy_ratio(untimed) == 0);
    CHECK(prediction_holds(1.0, 0.67, 1.5));
    CHECK(prediction_holds(0.45, 0.67, 1.5));
    CHECK_FALSE(prediction_holds(0.44, 0.67, 1.5));
    CHECK_FALSE(prediction_holds(1.01, 0.67, 1.5));
    CHECK_FALSE(prediction_holds(0.5, 0, 1.5));
    CHECK_FALSE(prediction_holds(-0.5, 0.5, 1.5));
}

TEST_CASE("a questions test scored: each question its share, a line each, the key shown where an answer is wrong") {
    const Rubric r = parse_rubric(kRubric, "08.rubric");
    const TestSpec& t = *r.find("questions");
    std::map<std::string, TestResult> done = {{"perf_fast", timed_run()}};
    const TestResult all = grade_questions(t, parse_answers("q1 = B\nq2 = 32\nq3 = 0.8\n"), done);
    CHECK(all.score == doctest::Approx(6));
    CHECK(all.output.find("3 of 3 questions right") == 0);
    const TestResult some = grade_questions(t, parse_answers("q1 = C\nq2 = thirty-two\nq3 = 2\nnoise\n"), done);
    CHECK(some.score == 0);
    CHECK(some.output.find("q1: wrong: you answered C, the answer is B") != std::string::npos);
    CHECK(some.output.find("q2: 'thirty-two' is not a number") != std::string::npos);
    CHECK(some.output.find("not within a factor 1.5") != std::string::npos);
    CHECK(some.output.find("line 4") != std::string::npos);
    const TestResult none = grade_questions(t, parse_answers("q1 = B\nq3 = 0.8\n"), {});
    CHECK(none.score == doctest::Approx(2));
    CHECK(none.output.find("q2: not answered") != std::string::npos);
    CHECK(none.output.find("did not time your kernel") != std::string::npos);
    const TestResult missing = grade_questions(t, answers_of_file("", "no answers.txt beside transpose.cu in the submission"), done);
    CHECK(missing.score == 0);
    CHECK(missing.max_score == 6);
    CHECK(missing.output.find("No answers read: no answers.txt") == 0);
}

TEST_CASE("every lab's rubric asks 2 to 4 questions, and its answers template has a blank line for each") {
    int labs = 0;
    for (const std::string& name : list_dir("grading/rubrics")) {
        if (!ends_with(name, ".rubric")) continue;
        INFO(name);
        ++labs;
        const Rubric r = load_rubric("grading/rubrics/" + name);
        const TestSpec* q = r.find("questions");
        REQUIRE(q);
        CHECK(q->questions.size() >= 2);
        CHECK(q->questions.size() <= 4);
        CHECK(&r.tests.back() == q);  // after the tests a prediction compares with
        std::string folder;
        for (const std::string& lab : list_dir("labs"))
            if (starts_with(lab, r.lab + "-")) folder = "labs/" + lab;
        const Answers blank = parse_answers(read_file(folder + "/" + kAnswersFile));
        CHECK(blank.problem.empty());
        CHECK(blank.stray_lines.empty());
        CHECK(blank.given.size() == q->questions.size());
        for (const QuestionKey& k : q->questions) CHECK(blank.given.count(k.id) == 1);
        CHECK(grade_questions(*q, blank, {}).score == 0);
    }
    CHECK(labs >= 13);
}

TEST_CASE("--compile-only: each question answered and well-formed or not, never the key") {
    const Rubric r = parse_rubric(kRubric, "08.rubric");
    const TestSpec& t = *r.find("questions");
    const std::string text = questions_form_text(t, parse_answers("q1 = C\nq2 = 31\nq3 = -1\nnotes\n"));
    CHECK(text.find("1 line(s) of answers.txt are not 'qN = ANSWER' (first: line 4)") != std::string::npos);
    CHECK(text.find("2 of 3 questions of answers.txt answered and well-formed") == 0);
    CHECK(text.find("q1: answered, well-formed") != std::string::npos);
    CHECK(text.find("q3: '-1' is not a positive number") != std::string::npos);
    CHECK(text.find("32") == std::string::npos);
    CHECK(text.find("wrong") == std::string::npos);
    CHECK(questions_form_text(t, answers_of_file("", "answers.txt is a symbolic link")).find("not read: answers.txt is a symbolic link") !=
          std::string::npos);
}
