#include "class/results.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "util/text.h"

namespace grading {

using nlohmann::json;

namespace {

// Characters that change how the text around them is shown: C1 controls, the Unicode direction
// marks, embeddings, overrides and isolates (they can reorder a line), and the line and
// paragraph separators.
bool is_format_control(unsigned cp) {
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// The end of the terminal escape sequence that starts at s[i] (an ESC).
size_t skip_escape(const std::string& s, size_t i) {
    size_t j = i + 1;
    if (j >= s.size()) return j;
    const char kind = s[j];
    if (kind == '[') {  // CSI: parameters, intermediates, one final byte
        ++j;
        while (j < s.size() && s[j] >= 0x30 && s[j] <= 0x3F) ++j;
        while (j < s.size() && s[j] >= 0x20 && s[j] <= 0x2F) ++j;
        if (j < s.size() && s[j] >= 0x40 && s[j] <= 0x7E) ++j;
        return j;
    }
    if (kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_') {
        // A string (OSC, DCS, ...): up to BEL or ST (ESC \).
        for (++j; j < s.size(); ++j) {
            if (s[j] == '\a') return j + 1;
            if (s[j] == '\x1b') return j + 1 < s.size() && s[j + 1] == '\\' ? j + 2 : j + 1;
        }
        return j;
    }
    while (j < s.size() && s[j] >= 0x20 && s[j] <= 0x2F) ++j;  // intermediates, then the final
    if (j < s.size() && s[j] >= 0x30 && s[j] <= 0x7E) ++j;
    return j;
}

size_t longest_run(const std::string& s, char c) {
    size_t best = 0, run = 0;
    for (char x : s) {
        run = x == c ? run + 1 : 0;
        best = std::max(best, run);
    }
    return best;
}

constexpr size_t kMaxInlineBytes = 2048;

// Gradescope shows each string as plain text (see gradescope_json): it only needs to be
// printable and not huge.
std::string gradescope_text(const std::string& s) { return printable_text(clip_text(s)); }

// Why a result is no grade, or was refused, for the gradebook's and the summary's notes; "" for
// a graded one. (A compile-only result is never a refused one: compile_only() says so.)
std::string result_note(const StudentResult& r) {
    if (!r.grader_error.empty()) return std::string(kGraderErrorVerdict) + ": " + r.grader_error;
    return r.compile_only() ? kCompileOnlyVerdict : r.rejected;
}

}  // namespace

std::string printable_text(const std::string& s, bool keep_newlines) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '\x1b') { i = skip_escape(s, i); continue; }
        if (c == '\r' || c == '\n') {
            if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;  // CR LF: one line end
            out += keep_newlines ? '\n' : ' ';
            ++i;
            continue;
        }
        if (c == '\t') { out += keep_newlines ? '\t' : ' '; ++i; continue; }
        const auto [cp, len] = decode_utf8(s, i);
        if (len == 0 || cp < 0x20 || cp == 0x7F || is_format_control(cp)) {
            out += '?';
            i += len == 0 ? 1 : len;
            continue;
        }
        out.append(s, i, len);
        i += len;
    }
    return out;
}

std::string clip_text(const std::string& text, size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    const size_t head = char_boundary(text, max_bytes * 3 / 4);
    const size_t tail = char_boundary(text, text.size() - (max_bytes - max_bytes * 3 / 4));
    return text.substr(0, head) + "\n[... " + std::to_string(tail - head) + " bytes left out ...]\n" +
           text.substr(tail);
}

std::string markdown_inline(const std::string& text) {
    std::string t = printable_text(clip_text(text, kMaxInlineBytes), false);
    t.erase(0, std::min(t.size(), t.find_first_not_of(' ')));  // leading spaces could indent a block
    std::string out;
    out.reserve(t.size() + 8);
    // A line that starts with "12." or "12)" would be an ordered list item.
    size_t digits = 0;
    while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        const bool starts_block = (i == 0 && c != '\0' && std::strchr("#>+-=:", c)) ||
                                  (digits > 0 && i == digits && (c == '.' || c == ')'));
        if (starts_block || (c != '\0' && std::strchr("\\`*_[]<>&|~$", c))) out += '\\';
        out += c;
    }
    return out;
}

std::string markdown_code_span(const std::string& text) {
    const std::string t = printable_text(clip_text(text, kMaxInlineBytes), false);
    if (t.empty()) return "";
    const std::string fence(longest_run(t, '`') + 1, '`');
    // The renderer strips one space from each end when both are there: pad where the text
    // itself starts or ends with a backtick or a space.
    const bool pad = t.front() == '`' || t.back() == '`' || t.front() == ' ' || t.back() == ' ';
    return fence + (pad ? " " : "") + t + (pad ? " " : "") + fence;
}

std::string markdown_code_block(const std::string& text) {
    const std::string t = printable_text(clip_text(text));
    if (t.empty()) return "";
    const std::string fence(std::max<size_t>(3, longest_run(t, '`') + 1), '`');
    return fence + "\n" + t + (t.back() == '\n' ? "" : "\n") + fence + "\n";
}

std::string gradescope_json(const StudentResult& r) {
    json j;
    // Gradescope needs a score; a result that is no grade has 0 of 0 points: each of its tests
    // is worth nothing here, and the output says why.
    const bool scored = r.scored();
    j["score"] = scored ? r.total() : 0.0;
    j["execution_time"] = r.execution_time_s;
    std::string head;
    if (!r.grader_error.empty())
        head = "Not graded: the grader failed (" + r.grader_error + "). This is no score: your instructor grades it again.\n";
    else if (r.compile_only())
        head = std::string("Not graded yet: ") + kCompileOnlyVerdict + ".\n";
    if (!r.rejected.empty()) head = "Not graded: " + r.rejected + "\n";
    for (const std::string& n : r.notes) head += n + "\n";
    if (!r.compiler_output.empty()) head += "Compiler output:\n" + r.compiler_output + "\n";
    j["output"] = gradescope_text(head);
    // The top-level output is "simple_format" (HTML) unless told otherwise.
    j["output_format"] = "text";
    j["test_output_format"] = "text";
    j["test_name_format"] = "text";
    j["stdout_visibility"] = "hidden";
    j["tests"] = json::array();
    for (const TestResult& t : r.tests) {
        json test = {{"name", printable_text(t.name, false)},
                     {"name_format", "text"},
                     {"max_score", scored ? t.max_score : 0.0},
                     {"output", gradescope_text(t.output)},
                     {"output_format", "text"},
                     {"visibility", visibility_name(t.visibility)}};
        // A test that was not run has no verdict: neither a score nor passed/failed.
        if (!t.not_run) {
            test["score"] = t.score;
            test["status"] = t.passed() ? "passed" : "failed";
        } else {
            test["score"] = 0.0;
        }
        j["tests"].push_back(test);
    }
    return json_text(j, 2) + "\n";
}

namespace {

// A reading of the GPU's clocks as the audit log keeps it: "unknown", or the clocks and reasons.
json clocks_json(const GpuClocks& c) {
    if (!c.known) return "unknown";
    json j = {{"sm_mhz", c.sm_mhz}, {"memory_mhz", c.memory_mhz}, {"source", c.source}};
    if (c.reasons_known) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "0x%016llx", c.reasons);
        j["reasons"] = hex;
        j["reason_names"] = clock_reason_names(c.reasons);
        j["throttled"] = throttled(c);
    } else {
        j["reasons"] = "unknown";
    }
    return j;
}

// A performance test's samples, ratios and intervals, for the audit log.
json timing_json(const PerformanceTiming& t) {
    json samples = json::array();
    for (const TimedSample& s : t.samples)
        samples.push_back({{"round", s.round}, {"side", s.reference ? "reference" : "student"}, {"attempt", s.attempt}, {"kept", s.kept},
                           {"ms_per_rep", s.ms_per_rep}, {"throttled", s.throttled()}, {"before", clocks_json(s.before)},
                           {"after", clocks_json(s.after)}, {"shared", s.shared}, {"age_s", s.age_s}});
    json j = {{"samples", samples}};
    if (!t.measured()) return j;
    j["ratios"] = t.ratios;
    j["slowdown"] = t.slowdown;
    j["interval"] = {t.low, t.high};
    j["score"] = t.score;
    j["score_interval"] = {t.score_low, t.score_high};
    const bool both_sides = !t.student_round_ms.empty() && !t.reference_round_ms.empty();
    j["bootstrap"] = {{"method", both_sides ? "percentile bootstrap of median(student ms) / median(reference ms), each side resampled on its own"
                                            : "percentile bootstrap of the median ratio"},
                      {"confidence", t.confidence},
                      {"resamples", t.resamples},
                      {"seed", t.bootstrap_seed}};
    if (both_sides) {
        j["bootstrap"]["student_ms"] = t.student_round_ms;
        j["bootstrap"]["reference_ms"] = t.reference_round_ms;
    }
    return j;
}

}  // namespace

std::string audit_json(const StudentResult& r, const std::string& lab, unsigned long long seed,
                       const std::string& device, const std::string& isolation,
                       const std::string& tools, const std::string& rubric_sha256) {
    json j = {{"lab", lab},
              {"student", printable_text(r.student, false)},
              {"submitted_as", printable_text(r.submitted_as, false)},
              {"file", printable_text(r.file, false)},
              {"sha256", r.sha256},
              {"seed", seed},
              {"device", device},
              {"isolation", isolation},
              {"tools", tools},
              {"rubric_sha256", rubric_sha256},
              {"compiled", r.compiled},
              {"rejected", printable_text(clip_text(r.rejected))},
              {"max_total", r.max_total()}};
    // A result that is no grade has no total (null), never a 0 a regrade could compare with.
    j["total"] = r.scored() ? json(r.total()) : json(nullptr);
    if (!r.grader_error.empty()) j["grader_error"] = printable_text(clip_text(r.grader_error));
    json scores = json::object();
    // A test that was not run has no score: a regrade must not read it as a 0.
    for (const TestResult& t : r.tests)
        if (!t.not_run) scores[t.id] = t.score;
    j["scores"] = scores;
    json timing = json::object();
    for (const TestResult& t : r.tests)
        if (!t.not_run && !t.timing.samples.empty()) timing[t.id] = timing_json(t.timing);
    if (!timing.empty()) j["timing"] = timing;
    return json_text(j);
}

// Only the lines written here are Markdown; everything else is inline-escaped after a prefix
// of this function's own or quoted in a fenced block.
std::string feedback_markdown(const StudentResult& r, const std::string& lab_title) {
    std::ostringstream o;
    o << "# " << markdown_inline(lab_title) << ": feedback for " << markdown_inline(r.student) << "\n\n"
      << "Score: **" << (r.scored() ? format_points(r.total()) + " / " + format_points(r.max_total()) : total_text(r, 0)) << "**\n\n"
      << "File: " << markdown_code_span(r.file) << " (sha256 " << markdown_inline(r.sha256.substr(0, 16)) << ")\n\n";
    if (!r.grader_error.empty())
        o << "**Not graded:** the grader failed, not your program, so this is no score: your instructor grades it again. "
          << "What failed: " << markdown_inline(r.grader_error.substr(0, r.grader_error.find_first_of("\r\n"))) << "\n\n";
    if (!r.rejected.empty()) {
        const size_t eol = r.rejected.find_first_of("\r\n");
        o << "**Not graded:** " << markdown_inline(r.rejected.substr(0, eol)) << "\n\n";
        if (eol != std::string::npos) o << markdown_code_block(r.rejected) << "\n";
    }
    for (const std::string& n : r.notes) o << "- " << markdown_inline(n) << "\n";
    if (!r.notes.empty()) o << "\n";
    if (!r.compiler_output.empty()) o << "## Compiler output\n\n" << markdown_code_block(r.compiler_output) << "\n";
    for (const TestResult& t : r.tests) {
        o << "## " << markdown_inline(t.name) << ": " << (t.not_run ? std::string("not run") : format_points(t.score)) << " / "
          << format_points(t.max_score)
          << (t.visibility == Visibility::Visible ? "" : std::string(" (") + visibility_name(t.visibility) + ")") << "\n\n";
        const std::string block = markdown_code_block(t.output);
        if (!block.empty()) o << block << "\n";
    }
    return o.str();
}

std::string csv_field(const std::string& text) {
    std::string t = printable_text(text);
    const size_t first = t.find_first_not_of(" \t\n");
    auto starts_with = [&](size_t at, const char* prefix) { return t.compare(at, std::strlen(prefix), prefix) == 0; };
    const bool formula = (!t.empty() && (t[0] == '\t' || t[0] == '\r')) ||
                         (first != std::string::npos &&
                          (std::strchr("=+-@", t[first]) ||
                           // the full-width forms, which some spreadsheets read the same way
                           starts_with(first, "\xEF\xBC\x9D") || starts_with(first, "\xEF\xBC\x8B") ||
                           starts_with(first, "\xEF\xBC\x8D") || starts_with(first, "\xEF\xBC\xA0")));
    if (formula) t = "'" + t;
    std::string out = "\"";
    for (char c : t) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string gradebook_head(const Rubric& rubric, const std::vector<std::string>& extra_names) {
    std::string head = "student,submitted_as";
    for (const std::string& name : extra_names) head += "," + name;
    head += ",sha256";
    for (const TestSpec& t : rubric.tests) head += "," + csv_field(t.id);
    return head + ",total,max,note\n";
}

std::string gradebook_row(const StudentResult& r, const Rubric& rubric, const std::vector<std::string>& extra_cells) {
    std::string row = csv_field(r.student) + "," + csv_field(r.submitted_as);
    for (const std::string& cell : extra_cells) row += "," + csv_field(cell);
    row += "," + r.sha256;
    for (const TestSpec& spec : rubric.tests) {
        auto it = std::find_if(r.tests.begin(), r.tests.end(), [&](const TestResult& t) { return t.id == spec.id; });
        // Not run (--compile-only), or not graded (a grader error): an empty cell, not a 0.
        row += "," + (!r.grader_error.empty() || (it != r.tests.end() && it->not_run) ? std::string()
                      : it == r.tests.end()                                         ? std::string("0")
                                                                                    : format_points(it->score));
    }
    // A result that is no grade has an empty total and says why in the note.
    return row + "," + (r.scored() ? format_points(r.total()) : "") + "," + format_points(rubric.total_points()) + "," +
           csv_field(result_note(r)) + "\n";
}

void write_gradebook(std::ostream& out, const std::vector<StudentResult>& results, const Rubric& rubric) {
    out << gradebook_head(rubric);
    for (const StudentResult& r : results) out << gradebook_row(r, rubric);
}

std::vector<std::string> summary_head(const Rubric& rubric) {
    std::vector<std::string> head = {"student"};
    for (const TestSpec& t : rubric.tests) head.push_back(t.id);
    head.push_back("total");
    head.push_back("note");
    return head;
}

std::vector<std::string> summary_row(const StudentResult& r, const Rubric& rubric) {
    std::vector<std::string> row = {printable_text(r.student, false)};
    for (const TestSpec& spec : rubric.tests) {
        auto it = std::find_if(r.tests.begin(), r.tests.end(), [&](const TestResult& t) { return t.id == spec.id; });
        row.push_back(it == r.tests.end() || it->not_run ? "-" : format_points(it->score));
    }
    row.push_back(r.scored() ? format_points(r.total()) + "/" + format_points(rubric.total_points()) : "-");
    std::string note = printable_text(result_note(r), false);
    if (note.size() > 90) note = note.substr(0, char_boundary(note, 87)) + "...";
    row.push_back(note);
    return row;
}

std::string summary_table(const std::vector<StudentResult>& results, const Rubric& rubric) {
    std::vector<std::vector<std::string>> rows = {summary_head(rubric)};
    for (const StudentResult& r : results) rows.push_back(summary_row(r, rubric));
    return summary_table(rows);
}

std::string summary_table(const std::vector<std::vector<std::string>>& rows) {
    size_t columns = 0;
    for (const auto& row : rows) columns = std::max(columns, row.size());
    std::vector<size_t> width(columns, 0);
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

std::string summary_tail(const std::string& lab, size_t submissions, unsigned long long seed, const std::string& device,
                         const std::string& isolation, const std::string& tools, const std::string& regrade_of, size_t identical,
                         const std::vector<std::string>& regrade_notes) {
    std::ostringstream tail;
    tail << "lab " << lab << ", " << submissions << " submissions, seed " << seed << ", device " << device << "\n"
         << "isolation: " << isolation << "\n" << tools << "\n";
    if (!regrade_of.empty()) {
        tail << "regrade of " << regrade_of << ": " << identical << " of " << submissions << " identical\n";
        for (const std::string& n : regrade_notes) tail << "  " << n << "\n";
    }
    return tail.str();
}

std::string gpu_summary(const std::vector<std::string>& gpu_lines, const std::string& how) {
    if (gpu_lines.empty()) return "";
    std::ostringstream o;
    o << "GPUs: " << gpu_lines.size() << " (" << how << "), each grading whole submissions:\n";
    for (const std::string& line : gpu_lines) o << "  " << line << "\n";
    return o.str();
}

}  // namespace grading
