#include "intake/rubric.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "args.h"  // cudalabs::parse_dims
#include "util/files.h"
#include "util/text.h"

namespace grading {

const char* visibility_name(Visibility v) {
    switch (v) {
        case Visibility::Visible: return "visible";
        case Visibility::Hidden: return "hidden";
        case Visibility::AfterDueDate: return "after_due_date";
        case Visibility::AfterPublished: return "after_published";
    }
    return "visible";
}

double Curve::fraction(double slowdown) const {
    if (points.empty()) return 0;
    if (!(slowdown >= 0)) return 0;  // NaN: nothing measured
    if (slowdown <= points.front().first) return points.front().second;
    for (size_t i = 1; i < points.size(); ++i) {
        const auto& a = points[i - 1];
        const auto& b = points[i];
        if (slowdown <= b.first) {
            double t = (slowdown - a.first) / (b.first - a.first);
            return a.second + t * (b.second - a.second);
        }
    }
    return points.back().second;
}

namespace {

std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::string w;
    for (char c : s) {
        if (c == ' ' || c == '\t' || c == ',') {
            if (!w.empty()) out.push_back(w);
            w.clear();
        } else {
            w += c;
        }
    }
    if (!w.empty()) out.push_back(w);
    return out;
}

double to_number(const std::string& s) {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used != s.size() || !std::isfinite(v)) throw std::invalid_argument("not a number: '" + s + "'");
    return v;
}

bool is_word(const std::string& s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
}

// The lab programs' own parser (common/args.h): a size the rubric accepts is one --size takes.
std::vector<long long> parse_dims(const std::string& s) {
    try {
        return cudalabs::parse_dims(s);
    } catch (const cudalabs::UsageError& e) {
        throw std::invalid_argument(std::string("bad size: ") + e.what());
    }
}

bool parse_bool(const std::string& s) {
    if (s == "yes" || s == "true" || s == "1") return true;
    if (s == "no" || s == "false" || s == "0") return false;
    throw std::invalid_argument("expected yes or no, got '" + s + "'");
}

}  // namespace

Curve parse_curve(const std::string& text) {
    Curve c;
    for (const std::string& w : words(text)) {
        size_t colon = w.find(':');
        if (colon == std::string::npos)
            throw std::invalid_argument("curve point '" + w + "' is not SLOWDOWN:FRACTION");
        double x = to_number(w.substr(0, colon)), y = to_number(w.substr(colon + 1));
        if (x < 1) throw std::invalid_argument("curve slowdown " + w.substr(0, colon) + " is below 1");
        if (y < 0 || y > 1) throw std::invalid_argument("curve fraction " + w.substr(colon + 1) + " is outside 0..1");
        if (!c.points.empty() && x <= c.points.back().first)
            throw std::invalid_argument("curve slowdowns must increase");
        if (!c.points.empty() && y > c.points.back().second)
            throw std::invalid_argument("curve fractions must not increase with the slowdown");
        c.points.push_back({x, y});
    }
    if (c.points.empty()) throw std::invalid_argument("empty curve");
    return c;
}

const char* host_transfers_name(HostTransfers h) {
    switch (h) {
        case HostTransfers::Allowed: return "allowed";
        case HostTransfers::ToDevice: return "to_device";
        case HostTransfers::None: return "none";
    }
    return "allowed";
}

std::vector<std::string> rubric_disagreements(const Rubric& rubric, const LabDeclaration& lab) {
    auto has = [](const std::vector<std::string>& list, const std::string& x) {
        return std::find(list.begin(), list.end(), x) != list.end();
    };
    auto canonical = [](const std::string& size) { return cudalabs::format_dims(cudalabs::parse_dims(size)); };
    std::vector<std::string> found;
    std::vector<std::string> covered;
    for (const TestSpec& t : rubric.tests) {
        for (const std::string& v : t.variants) {
            if (!has(lab.variants, v))
                found.push_back("test '" + t.id + "' names variant '" + v + "', which the lab does not have");
            else if (has(lab.yardsticks, v))
                found.push_back("test '" + t.id + "' grades '" + v + "', which is the lab's yardstick, not the student's");
        }
        if (t.kind != TestKind::Correctness) continue;
        covered.insert(covered.end(), t.variants.begin(), t.variants.end());
        std::vector<std::string> sizes;
        for (const std::string& s : t.sizes) sizes.push_back(canonical(s));
        std::vector<std::string> missing;
        for (const std::string& s : lab.check_sizes)
            if (!has(sizes, canonical(s))) missing.push_back(s);
        if (!missing.empty()) {
            std::string list;
            for (const std::string& m : missing) list += (list.empty() ? "" : " ") + m;
            found.push_back("test '" + t.id + "' lacks the driver's check sizes " + list +
                            " (add them to its sizes: a rubric may add sizes, never drop one)");
        }
    }
    for (const std::string& v : lab.variants)
        if (!has(lab.yardsticks, v) && !has(covered, v))
            found.push_back("no correctness test covers variant '" + v + "'");
    return found;
}

bool glob_match(const std::string& p, const std::string& t) {
    // Iterative matcher with backtracking to the last '*'.
    size_t pi = 0, ti = 0, star = std::string::npos, mark = 0;
    while (ti < t.size()) {
        if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) { ++pi; ++ti; }
        else if (pi < p.size() && p[pi] == '*') { star = pi++; mark = ti; }
        else if (star != std::string::npos) { pi = star + 1; ti = ++mark; }
        else return false;
    }
    while (pi < p.size() && p[pi] == '*') ++pi;
    return pi == p.size();
}

std::vector<std::string> LabDeclaration::rungs() const {
    std::vector<std::string> out;
    for (const std::string& v : variants)
        if (std::find(yardsticks.begin(), yardsticks.end(), v) == yardsticks.end()) out.push_back(v);
    return out;
}

double Rubric::total_points() const {
    double sum = 0;
    for (const TestSpec& t : tests) sum += t.points;
    return sum;
}

const TestSpec* Rubric::find(const std::string& id) const {
    for (const TestSpec& t : tests)
        if (t.id == id) return &t;
    return nullptr;
}

namespace {

// Where in the rubric a line is, to name it in an error.
struct RubricPlace {
    const std::string& source;
    int line = 0;
    [[noreturn]] void fail(const std::string& msg) const { throw RubricError(source + ":" + std::to_string(line) + ": " + msg); }
    [[noreturn]] void fail_at(int at, const std::string& msg) const { RubricPlace{source, at}.fail(msg); }
};

// "[test ID]": a new test, named by its id until `name =` says otherwise.
TestSpec& start_test(Rubric& r, const std::string& line, const RubricPlace& at) {
    if (line.back() != ']') at.fail("section header without ']'");
    auto parts = words(line.substr(1, line.size() - 2));
    if (parts.size() != 2 || parts[0] != "test") at.fail("expected a section [test ID]");
    if (!is_word(parts[1])) at.fail("test id '" + parts[1] + "' must be one word");
    if (r.find(parts[1])) at.fail("test '" + parts[1] + "' is defined twice");
    r.tests.emplace_back();
    TestSpec& test = r.tests.back();
    test.id = parts[1];
    test.name = parts[1];
    return test;
}

// A setting before the first [test ...]: the lab's.
void set_rubric_setting(Rubric& r, const std::string& key, const std::string& value, const RubricPlace& at) {
    if (key == "lab") {
        if (value.size() != 2 || !std::isdigit(static_cast<unsigned char>(value[0])) || !std::isdigit(static_cast<unsigned char>(value[1])))
            at.fail("lab must be two digits, like 01");
        r.lab = value;
    } else if (key == "title") r.title = value;
    else if (key == "forbid_includes")
        at.fail("forbid_includes is no longer used: a library is judged by what the object uses, so list its "
                "names in forbid_symbols (e.g. cublas* thrust::*)");
    else if (key == "forbid_symbols") r.forbid_symbols = words(value);
    else if (key == "allow_imports") r.allow_imports = words(value);
    else if (key == "plausible_bandwidth") {
        r.plausible_bandwidth = to_number(value);
        if (r.plausible_bandwidth < 1) at.fail("plausible_bandwidth must be at least 1");
    } else if (key == "plausible_flop_rate") {
        r.plausible_flop_rate = to_number(value);
        if (r.plausible_flop_rate < 1) at.fail("plausible_flop_rate must be at least 1");
    }
    else if (key == "compile_timeout") r.compile_timeout_s = to_number(value);
    else if (key == "run_timeout") r.run_timeout_s = to_number(value);
    else if (key == "mem_limit_mb") r.mem_limit_mb = static_cast<long>(to_number(value));
    else if (key == "file_limit_mb") r.file_limit_mb = static_cast<long>(to_number(value));
    else if (key == "process_limit") r.process_limit = static_cast<long>(to_number(value));
    else at.fail("unknown setting '" + key + "'");
}

// The value of a setting that takes one of a few words; `error` where it is none of them.
template <class T>
T one_of(const std::string& value, std::initializer_list<std::pair<const char*, T>> choices, const std::string& error, const RubricPlace& at) {
    for (const auto& [word, choice] : choices)
        if (value == word) return choice;
    at.fail(error);
}

// A count that must lie within [lo, hi].
int count_within(const std::string& key, const std::string& value, int lo, int hi, const RubricPlace& at) {
    const int n = static_cast<int>(to_number(value));
    if (n < lo || n > hi) at.fail(key + " must be " + std::to_string(lo) + " to " + std::to_string(hi));
    return n;
}

// "random_sizes = COUNT MIN..MAX".
void set_random_sizes(TestSpec& test, const std::string& value, const RubricPlace& at) {
    auto w = words(value);
    size_t dots = w.size() == 2 ? w[1].find("..") : std::string::npos;
    if (dots == std::string::npos) at.fail("random_sizes is COUNT MIN..MAX");
    test.random_sizes.count = static_cast<int>(to_number(w[0]));
    test.random_sizes.min = parse_dims(w[1].substr(0, dots));
    test.random_sizes.max = parse_dims(w[1].substr(dots + 2));
    const auto& lo = test.random_sizes.min;
    const auto& hi = test.random_sizes.max;
    if (test.random_sizes.count < 0 || lo.size() != hi.size()) at.fail("random_sizes: MIN and MAX need the same number of extents");
    for (size_t i = 0; i < lo.size(); ++i)
        if (lo[i] > hi[i]) at.fail("random_sizes: MIN is above MAX");
}

// A test's setting of what it is and what it checks (kind, points, inputs, scoring). False: the
// key is none of these.
bool set_test_check(const Rubric& r, TestSpec& test, const std::string& key, const std::string& value, const RubricPlace& at) {
    if (key == "name") test.name = value;
    else if (key == "kind")
        test.kind = one_of<TestKind>(value, {{"correctness", TestKind::Correctness}, {"sanitizer", TestKind::Sanitizer},
                                             {"performance", TestKind::Performance}, {"questions", TestKind::Questions}},
                                     "kind must be correctness, sanitizer, performance or questions", at);
    else if (key == "points") {
        test.points = to_number(value);
        if (test.points < 0) at.fail("points must not be negative");
    } else if (key == "visibility")
        test.visibility = one_of<Visibility>(value, {{"visible", Visibility::Visible}, {"hidden", Visibility::Hidden},
                                                     {"after_due_date", Visibility::AfterDueDate}, {"after_published", Visibility::AfterPublished}},
                                             "visibility must be visible, hidden, after_due_date or after_published", at);
    else if (key == "variants" || key == "variant") {
        test.variants = words(value);
        for (auto& v : test.variants)
            if (!is_word(v)) at.fail("variant '" + v + "' must be one word");
    } else if (key == "sizes" || key == "size") {
        test.sizes = words(value);
        for (auto& s : test.sizes) parse_dims(s);
    } else if (key == "random_sizes") set_random_sizes(test, value, at);
    else if (key == "trials") test.trials = count_within(key, value, 1, 100, at);
    else if (key == "scoring")
        test.all_or_nothing = one_of<bool>(value, {{"all_or_nothing", true}, {"per_row", false}}, "scoring must be per_row or all_or_nothing", at);
    else if (key == "require_kernels") test.require_kernels = parse_bool(value);
    else if (key == "host_transfers")
        test.host_transfers = one_of<HostTransfers>(value, {{"allowed", HostTransfers::Allowed}, {"to_device", HostTransfers::ToDevice},
                                                            {"none", HostTransfers::None}},
                                                    "host_transfers must be allowed, to_device or none", at);
    else if (key == "requires") {
        test.requires_tests = words(value);
        for (auto& id : test.requires_tests)
            if (!r.find(id) || r.find(id) == &test) at.fail("requires names '" + id + "', which is not an earlier test");
    } else if (is_question_id(key)) test.questions.push_back(parse_question_key(key, value));
    else return false;
    return true;
}

// A test's setting of how it runs (sanitizer tool, timing, time limit). False: none of these.
bool set_test_run(TestSpec& test, const std::string& key, const std::string& value, const RubricPlace& at) {
    if (key == "tool") {
        if (value != "memcheck" && value != "racecheck" && value != "initcheck" && value != "synccheck")
            at.fail("tool must be memcheck, racecheck, initcheck or synccheck");
        test.tool = value;
    } else if (key == "tool_options") test.tool_options = words(value);
    else if (key == "curve") test.curve = parse_curve(value);
    else if (key == "rounds") test.rounds = count_within(key, value, 1, 50, at);
    else if (key == "reps") test.reps = count_within(key, value, 1, 1000, at);
    else if (key == "timeout") {
        test.timeout_s = to_number(value);
        if (test.timeout_s <= 0) at.fail("timeout must be positive");
    } else return false;
    return true;
}

// One line of a section: KEY = VALUE (has_value false where the line has no '=').
struct RubricLine {
    int line = 0;
    std::string key, value;
    bool has_value = true;
};

// The lab's settings (no header: the lines before the first [test ...]) or one test's.
struct RubricSection {
    int line = 0;
    std::string header;  // "[test ID]" as written
    std::vector<RubricLine> lines;
};

// The rubric's lines in sections, comments and blank lines left out; `at` ends on the last line.
std::vector<RubricSection> read_sections(const std::string& text, RubricPlace& at) {
    std::vector<RubricSection> sections(1);
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        ++at.line;
        size_t hash = line.find('#');
        if (hash != std::string::npos) line = line.substr(0, hash);
        line = trim(line);
        if (line.empty()) continue;
        if (line.front() == '[') {
            sections.push_back({at.line, line, {}});
            continue;
        }
        size_t eq = line.find('=');
        if (eq == std::string::npos) sections.back().lines.push_back({at.line, line, "", false});
        else sections.back().lines.push_back({at.line, trim(line.substr(0, eq)), trim(line.substr(eq + 1))});
    }
    return sections;
}

const std::string kRung = "RUNG", kRungs = "RUNGS";

// The ID of a family's header, "[test ID for each rung]"; empty for any other section.
std::string family_id(const RubricSection& section, const std::string& source) {
    const std::string& header = section.header;
    const RubricPlace at{source, section.line};
    if (header.size() < 2 || header.back() != ']') return "";
    const std::vector<std::string> parts = words(header.substr(1, header.size() - 2));
    if (parts.size() != 5 || parts[0] != "test" || parts[2] != "for" || parts[3] != "each" || parts[4] != "rung") return "";
    if (parts[1].find(kRung) == std::string::npos)
        at.fail("the id of a test for each rung must hold RUNG, which each rung's name replaces (correct_RUNG)");
    return parts[1];
}

// A list of variants or tests with each word that holds RUNGS made one word per rung.
std::string expand_rungs_words(const std::string& value, const std::vector<std::string>& rungs) {
    if (value.find(kRungs) == std::string::npos) return value;
    std::vector<std::string> out;
    for (const std::string& w : words(value)) {
        if (w.find(kRungs) == std::string::npos) out.push_back(w);
        else
            for (const std::string& rung : rungs) out.push_back(replace_all(w, kRungs, rung));
    }
    return join(out, " ");
}

// The settings whose words may hold RUNGS: lists of variants or of tests.
bool lists_rungs(const std::string& key) { return key == "variants" || key == "variant" || key == "requires"; }

// The rungs a correctness test of its own (not a family's) grades: a family leaves them out.
std::set<std::string> graded_alone(const std::vector<RubricSection>& sections, const std::vector<std::string>& rungs,
                                   const std::string& source) {
    std::set<std::string> graded;
    for (const RubricSection& s : sections) {
        if (s.header.empty() || !family_id(s, source).empty()) continue;
        std::string kind = "correctness";
        std::vector<std::string> variants;
        for (const RubricLine& l : s.lines) {
            if (l.key == "kind") kind = l.value;
            if (l.key == "variants" || l.key == "variant") variants = words(expand_rungs_words(l.value, rungs));
        }
        if (kind == "correctness") graded.insert(variants.begin(), variants.end());
    }
    return graded;
}

// The sections with the lab's rungs in place of RUNGS and RUNG: a family's section becomes one
// section per rung it grades, each at the family's lines.
std::vector<RubricSection> expand_rungs(const std::vector<RubricSection>& sections, const std::vector<std::string>& rungs,
                                        const std::string& source) {
    const std::set<std::string> graded = graded_alone(sections, rungs, source);
    std::vector<RubricSection> out;
    for (RubricSection s : sections) {
        for (RubricLine& l : s.lines)
            if (lists_rungs(l.key)) l.value = expand_rungs_words(l.value, rungs);
        const std::string id = family_id(s, source);
        if (id.empty()) {
            out.push_back(s);
            continue;
        }
        for (const std::string& rung : rungs) {
            if (graded.count(rung)) continue;
            RubricSection one = s;
            one.header = "[test " + replace_all(id, kRung, rung) + "]";
            for (RubricLine& l : one.lines) l.value = replace_all(l.value, kRung, rung);
            out.push_back(one);
        }
    }
    return out;
}

// A questions test: its questions and nothing to run; a prediction compared with an earlier
// performance test's run.
void check_questions(const Rubric& r, const TestSpec& t, const RubricPlace& at) {
    if (t.kind != TestKind::Questions) at.fail("test '" + t.id + "' has questions (q1 = ...) but is not of kind questions");
    if (t.questions.empty()) at.fail("questions test '" + t.id + "' has no question (q1 = ...)");
    if (!t.variants.empty() || !t.sizes.empty() || t.random_sizes.count > 0 || !t.requires_tests.empty())
        at.fail("questions test '" + t.id + "' runs nothing: no variants, sizes or requires");
    for (const QuestionKey& q : t.questions) {
        if (q.form != AnswerForm::Prediction) continue;
        const TestSpec* timed = r.find(q.measured_by);
        if (!timed || timed->kind != TestKind::Performance || timed > &t)
            at.fail(q.id + " predicts '" + q.measured_by + "', which is not an earlier performance test");
    }
}

// What the whole rubric must have: a lab, tests, positive time limits, and in each test what its
// kind needs. `test_lines`: the line of each test's header; `last`: the rubric's last line.
void check_rubric(const Rubric& r, const std::vector<int>& test_lines, const RubricPlace& last) {
    if (r.lab.empty()) last.fail("the rubric does not say which lab (lab = NN)");
    if (r.tests.empty()) last.fail("the rubric has no [test ...] section");
    if (r.compile_timeout_s <= 0 || r.run_timeout_s <= 0) last.fail("timeouts must be positive");
    for (size_t i = 0; i < r.tests.size(); ++i) {
        const TestSpec& t = r.tests[i];
        const int at = test_lines[i];
        if (t.kind == TestKind::Questions || !t.questions.empty()) {
            check_questions(r, t, RubricPlace{last.source, at});
            continue;
        }
        if (t.variants.empty()) last.fail_at(at, "test '" + t.id + "' names no variant");
        if (t.kind == TestKind::Performance) {
            if (t.variants.size() != 1) last.fail_at(at, "performance test '" + t.id + "' needs exactly one variant");
            if (t.sizes.size() != 1) last.fail_at(at, "performance test '" + t.id + "' needs exactly one size");
            if (t.curve.points.empty()) last.fail_at(at, "performance test '" + t.id + "' needs a curve");
        } else if (t.sizes.empty() && t.random_sizes.count == 0) {
            last.fail_at(at, "test '" + t.id + "' has no sizes");
        }
    }
}

// A section's KEY = VALUE lines into the lab's settings (`test` null) or the test's.
void read_section_lines(Rubric& r, TestSpec* test, const RubricSection& section, RubricPlace& at) {
    std::set<std::string> seen_keys;
    for (const RubricLine& l : section.lines) {
        at.line = l.line;
        if (!l.has_value) at.fail("expected KEY = VALUE");
        if (!seen_keys.insert(l.key).second) at.fail("'" + l.key + "' is given twice");
        try {
            if (!test) set_rubric_setting(r, l.key, l.value, at);
            else if (!set_test_check(r, *test, l.key, l.value, at) && !set_test_run(*test, l.key, l.value, at))
                at.fail("unknown test setting '" + l.key + "'");
        } catch (const std::invalid_argument& e) {
            at.fail(l.key + ": " + e.what());
        } catch (const std::out_of_range&) {
            at.fail(l.key + ": number out of range");
        }
    }
}

}  // namespace

Rubric parse_rubric(const std::string& text, const std::string& source, const LabDeclaration* lab) {
    Rubric r;
    RubricPlace at{source, 0};
    std::vector<RubricSection> sections = read_sections(text, at);
    const int last_line = at.line;
    // Without the lab, one stand-in rung: RUNG stays as written.
    sections = expand_rungs(sections, lab ? lab->rungs() : std::vector<std::string>{kRung}, source);
    TestSpec* test = nullptr;
    std::vector<int> test_lines;
    for (const RubricSection& section : sections) {
        if (!section.header.empty()) {
            at.line = section.line;
            test = &start_test(r, section.header, at);
            test_lines.push_back(at.line);
        }
        read_section_lines(r, test, section, at);
    }
    at.line = last_line;
    check_rubric(r, test_lines, at);
    return r;
}

Rubric parse_rubric_settings(const std::string& text, const std::string& source) {
    Rubric r;
    RubricPlace at{source, 0};
    const std::vector<RubricSection> sections = read_sections(text, at);
    const int last_line = at.line;
    read_section_lines(r, nullptr, sections.front(), at);
    at.line = last_line;
    if (r.lab.empty()) at.fail("the rubric does not say which lab (lab = NN)");
    if (r.compile_timeout_s <= 0 || r.run_timeout_s <= 0) at.fail("timeouts must be positive");
    return r;
}

std::string read_rubric(const std::string& path) {
    std::string text;
    try {
        text = read_given_file(path, 1 << 20, "rubric");
    } catch (const std::runtime_error& e) {
        throw RubricError(e.what());
    }
    if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos)
        throw RubricError(path + ":" + std::to_string(line_of_offset(text, bad)) + ": a byte that is not UTF-8 (" +
                          valid_utf8(text.substr(bad, 1)) + "): save the rubric as UTF-8");
    return text;
}

Rubric load_rubric(const std::string& path, const LabDeclaration* lab) { return parse_rubric(read_rubric(path), path, lab); }

}  // namespace grading
