// The files written from what grading a submission produced (judge/result.h): per-student feedback
// (Markdown), Gradescope's results.json, the class gradebook (CSV) and the audit log (JSONL).
// Host-only: unit-tested with g++ (the JSON is parsed back with nlohmann-json).
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "intake/rubric.h"
#include "judge/result.h"

namespace grading {

// Everything a submission controls -- its program's and compiler's output, its file name, the
// notes and messages built from them -- is written inert: it can print no heading, score line,
// link, spreadsheet formula or terminal escape of its own in any of the files below.

// Text made safe to show: valid UTF-8 (other bytes become '?'), terminal escape sequences
// removed, CR LF and lone CR turned into LF, other control characters and the Unicode
// direction overrides and line separators turned into '?'; with keep_newlines = false, LF and
// tab become spaces too.
std::string printable_text(const std::string& text, bool keep_newlines = true);
// At most about kMaxQuotedBytes of a long text: its beginning and its end, with the number of
// bytes left out in between.
constexpr std::size_t kMaxQuotedBytes = 16 << 10;
std::string clip_text(const std::string& text, std::size_t max_bytes = kMaxQuotedBytes);
// One line of Markdown text for use after other text on a line: Markdown's punctuation is
// backslash-escaped (no emphasis, code, link or HTML), and a leading character that could start
// a block (heading, list, quote) is escaped as well.
std::string markdown_inline(const std::string& text);
// One line as a Markdown code span (delimited by more backticks than any run inside it).
std::string markdown_code_span(const std::string& text);
// A fenced code block: the fence is longer than any run of backticks in the text, so no line of
// the text can close it. Ends with a newline; empty text gives "".
std::string markdown_code_block(const std::string& text);

// Gradescope's results.json for one submission: every output is plain text
// (output_format "text": Gradescope renders the top-level output as HTML otherwise).
std::string gradescope_json(const StudentResult& r);
// One line of the audit log (JSON object, no newline).
std::string audit_json(const StudentResult& r, const std::string& lab, unsigned long long seed,
                       const std::string& device, const std::string& isolation,
                       const std::string& tools, const std::string& rubric_sha256);
// The per-student feedback.
std::string feedback_markdown(const StudentResult& r, const std::string& lab_title);
// The class gradebook: student, submitted_as, sha256, one column per rubric test, total, max, note.
void write_gradebook(std::ostream& out, const std::vector<StudentResult>& results, const Rubric& rubric);
// Its head line and one submission's row (each with its line break), for a gradebook written a
// row at a time. `extra_names` and `extra_cells` are columns put after "submitted_as" (the roster's).
std::string gradebook_head(const Rubric& rubric, const std::vector<std::string>& extra_names = {});
std::string gradebook_row(const StudentResult& r, const Rubric& rubric, const std::vector<std::string>& extra_cells = {});
// A text cell of the gradebook, quoted (RFC 4180). A cell that a spreadsheet would read as a
// formula (first character = + - @, tab or CR, or their full-width forms, also after leading
// spaces) gets a leading apostrophe, as OWASP's CSV-injection guidance says.
std::string csv_field(const std::string& text);
// The summary table printed at the end of a run (printable text only: it goes to a terminal).
std::string summary_table(const std::vector<StudentResult>& results, const Rubric& rubric);
// Its parts: the head row, one student's row, and the table of a head and rows (rows[0] is the
// head), so that the table of a class graded in shards can be made from the shards' rows.
std::vector<std::string> summary_head(const Rubric& rubric);
std::vector<std::string> summary_row(const StudentResult& r, const Rubric& rubric);
std::string summary_table(const std::vector<std::vector<std::string>>& rows);
// The lines under the table: lab, number of submissions, seed, device, isolation, tools and, for
// a regrade of `regrade_of`, how many of them are identical and what changed for the others.
std::string summary_tail(const std::string& lab, size_t submissions, unsigned long long seed, const std::string& device,
                         const std::string& isolation, const std::string& tools, const std::string& regrade_of = "",
                         size_t identical = 0, const std::vector<std::string>& regrade_notes = {});
// The summary's lines on the GPUs of a run graded with --gpus: a heading saying how (`how`,
// "--gpus all"), then each of `gpu_lines` (one per GPU: which, its device, how many it graded).
std::string gpu_summary(const std::vector<std::string>& gpu_lines, const std::string& how);

}  // namespace grading
