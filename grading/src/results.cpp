#include "results.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace grading {

using nlohmann::json;

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

std::string format_points(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", p);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
}

namespace {
// Keep output valid UTF-8: a student's bytes may be anything, and json::dump would throw.
std::string utf8_safe(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + len <= s.size();
        for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 2;
        if (ok && (c >= 0x20 || c == '\n' || c == '\t')) { out.append(s, i, len); i += len; }
        else { out += '?'; ++i; }
    }
    return out;
}
}  // namespace

std::string gradescope_json(const StudentResult& r) {
    json j;
    j["score"] = r.total();
    j["execution_time"] = r.execution_time_s;
    std::string head;
    if (!r.rejected.empty()) head = "Not graded: " + r.rejected + "\n";
    for (const std::string& n : r.notes) head += n + "\n";
    if (!r.compiler_output.empty()) head += "Compiler output:\n" + r.compiler_output + "\n";
    j["output"] = utf8_safe(head);
    j["stdout_visibility"] = "hidden";
    j["tests"] = json::array();
    for (const TestResult& t : r.tests) {
        j["tests"].push_back({{"name", utf8_safe(t.name)},
                              {"name_format", "text"},
                              {"score", t.score},
                              {"max_score", t.max_score},
                              {"status", t.passed() ? "passed" : "failed"},
                              {"output", utf8_safe(t.output)},
                              {"visibility", visibility_name(t.visibility)}});
    }
    return j.dump(2) + "\n";
}

std::string audit_json(const StudentResult& r, const std::string& lab, unsigned long long seed,
                       const std::string& device, const std::string& isolation,
                       const std::string& tools, const std::string& rubric_sha256) {
    json j = {{"lab", lab},
              {"student", utf8_safe(r.student)},
              {"file", utf8_safe(r.file)},
              {"sha256", r.sha256},
              {"seed", seed},
              {"device", device},
              {"isolation", isolation},
              {"tools", tools},
              {"rubric_sha256", rubric_sha256},
              {"compiled", r.compiled},
              {"rejected", utf8_safe(r.rejected)},
              {"total", r.total()},
              {"max_total", r.max_total()}};
    json scores = json::object();
    for (const TestResult& t : r.tests) scores[t.id] = t.score;
    j["scores"] = scores;
    return j.dump();
}

std::string feedback_markdown(const StudentResult& r, const std::string& lab_title) {
    std::ostringstream o;
    o << "# " << lab_title << ": feedback for " << r.student << "\n\n"
      << "Score: **" << format_points(r.total()) << " / " << format_points(r.max_total()) << "**\n\n"
      << "File: `" << r.file << "` (sha256 " << r.sha256.substr(0, 16) << ")\n\n";
    if (!r.rejected.empty()) o << "**Not graded:** " << r.rejected << "\n\n";
    for (const std::string& n : r.notes) o << "- " << n << "\n";
    if (!r.notes.empty()) o << "\n";
    if (!r.compiler_output.empty())
        o << "## Compiler output\n\n```\n" << r.compiler_output << (r.compiler_output.back() == '\n' ? "" : "\n") << "```\n\n";
    for (const TestResult& t : r.tests) {
        o << "## " << t.name << ": " << format_points(t.score) << " / " << format_points(t.max_score)
          << (t.visibility == Visibility::Visible ? "" : std::string(" (") + visibility_name(t.visibility) + ")") << "\n\n";
        if (!t.output.empty()) o << "```\n" << t.output << (t.output.back() == '\n' ? "" : "\n") << "```\n\n";
    }
    return o.str();
}

std::string csv_field(const std::string& text) {
    bool quote = text.find_first_of(",\"\n\r") != std::string::npos ||
                 (!text.empty() && (text.front() == ' ' || text.back() == ' '));
    // A cell starting with = + - @ is a formula in spreadsheets: neutralise it.
    std::string t = text;
    if (!t.empty() && (t[0] == '=' || t[0] == '+' || t[0] == '-' || t[0] == '@') &&
        !(t.size() > 1 && (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.')))
        t = "'" + t;
    if (!quote) return t;
    std::string out = "\"";
    for (char c : t) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

void write_gradebook(std::ostream& out, const std::vector<StudentResult>& results, const Rubric& rubric) {
    out << "student,sha256";
    for (const TestSpec& t : rubric.tests) out << "," << csv_field(t.id);
    out << ",total,max,note\n";
    for (const StudentResult& r : results) {
        out << csv_field(r.student) << "," << r.sha256;
        for (const TestSpec& spec : rubric.tests) {
            auto it = std::find_if(r.tests.begin(), r.tests.end(), [&](const TestResult& t) { return t.id == spec.id; });
            out << "," << (it == r.tests.end() ? "0" : format_points(it->score));
        }
        out << "," << format_points(r.total()) << "," << format_points(rubric.total_points()) << ","
            << csv_field(r.rejected) << "\n";
    }
}

std::string summary_table(const std::vector<StudentResult>& results, const Rubric& rubric) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head = {"student"};
    for (const TestSpec& t : rubric.tests) head.push_back(t.id);
    head.push_back("total");
    head.push_back("note");
    rows.push_back(head);
    for (const StudentResult& r : results) {
        std::vector<std::string> row = {r.student};
        for (const TestSpec& spec : rubric.tests) {
            auto it = std::find_if(r.tests.begin(), r.tests.end(), [&](const TestResult& t) { return t.id == spec.id; });
            row.push_back(it == r.tests.end() ? "-" : format_points(it->score));
        }
        row.push_back(format_points(r.total()) + "/" + format_points(rubric.total_points()));
        std::string note = r.rejected;
        if (note.size() > 70) note = note.substr(0, 67) + "...";
        row.push_back(note);
        rows.push_back(row);
    }
    std::vector<size_t> width(head.size(), 0);
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    std::ostringstream o;
    for (size_t k = 0; k < rows.size(); ++k) {
        std::string line;
        for (size_t i = 0; i < rows[k].size(); ++i) {
            bool last = i + 1 == rows[k].size();
            line += rows[k][i] + (last ? "" : std::string(width[i] - rows[k][i].size() + 2, ' '));
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        o << line << "\n";
        if (k == 0) {
            std::string rule;
            for (size_t i = 0; i < width.size(); ++i) rule += std::string(width[i], '-') + (i + 1 < width.size() ? "  " : "");
            o << rule << "\n";
        }
    }
    return o.str();
}

}  // namespace grading
