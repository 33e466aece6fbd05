// What grading a submission produced, and the files written from it: per-student feedback
// (Markdown), Gradescope's results.json, the class gradebook (CSV) and the audit log (JSONL).
// Host-only: unit-tested with g++ (the JSON is parsed back with nlohmann-json).
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "intake/rubric.h"
#include "sandbox/gpu_clocks.h"

namespace grading {

// One timed run of a performance test (the student's or the reference's side of one round),
// between two readings of the GPU's clocks. A run taken while the GPU was throttled for
// power or heat is made again (a bounded number of times): every attempt is kept here, and only
// the last one (`kept`) is timed.
struct TimedSample {
    int round = 0;  // from 1
    bool reference = false;  // the reference's run, else the student's
    int attempt = 0;  // from 0: how many runs of this side of the round came before it
    bool kept = true;
    double ms_per_rep = 0;  // its kernel time per repetition, as measured (copies not charged)
    GpuClocks before, after;
    // The reference's samples are pooled per GPU (judge/reference_pool.h): `shared` where it was
    // measured for another submission graded just before, `age_s` seconds before it was used.
    bool shared = false;
    double age_s = 0;
    bool throttled() const { return grading::throttled(before) || grading::throttled(after); }
};

// What a timed performance test measured beside its score: every sample, the rounds'
// ratios (the student's time over the reference's), and the percentile-bootstrap interval of
// their median, also mapped through the test's curve to points.
struct PerformanceTiming {
    std::vector<TimedSample> samples;
    std::vector<double> ratios;   // one per round, copies into scratch memory charged
    double slowdown = 0;          // their median: the figure the score comes from
    double low = 0, high = 0;     // the interval of the median
    double score = 0, score_low = 0, score_high = 0, max_score = 0;  // points, and their interval
    double confidence = 0.95;
    int resamples = 0;
    // Each side's judged time per repetition per round (copies charged): what the interval
    // resamples, each side on its own (empty: the ratios were resampled).
    std::vector<double> student_round_ms, reference_round_ms;
    unsigned long long bootstrap_seed = 0;
    bool measured() const { return !ratios.empty(); }
};

// A timed performance test's figures for the feedback's roofline picture (roofline_picture.h):
// the reference's counts of the variant at its size (its --json "roofline_bytes" and
// "roofline_flops"), the copy bandwidth it measured, and each side's median kernel time per
// repetition, as the score's ratio takes them. Empty where the test was not timed, or was forged.
struct RooflineFigures {
    std::string variant, size, device;
    double roofline_bytes = 0, roofline_flops = 0, copy_gbs = 0, student_ms = 0, reference_ms = 0;
    bool measured() const { return student_ms > 0 && reference_ms > 0; }
};

struct TestResult {
    std::string id, name;
    double score = 0, max_score = 0;
    Visibility visibility = Visibility::Visible;
    std::string output;  // what the student reads: what was checked, what failed and why
    bool not_run = false;  // built but deliberately not run (--compile-only): no verdict, not a 0
    // A performance test that was timed: the median ratio of the student's kernel time
    // to the reference's (the leaderboard's figure); 0 where not timed or forged.
    double slowdown = 0;
    PerformanceTiming timing{};  // a performance test's samples and interval (empty where not timed)
    RooflineFigures roofline{};  // a timed performance test's figures for the roofline picture
    bool passed() const { return max_score <= 0 ? score >= 0 : score >= max_score - 1e-9; }
};

struct StudentResult {
    std::string student;   // id: the file's stem or the folder's name, made safe (intake/submissions.h)
    std::string submitted_as;  // what the id stands for: the file or folder as found
    std::string file;      // the submitted file
    std::string sha256;    // of the submitted file
    bool compiled = false;
    std::string rejected;  // non-empty: not graded, and why (compile error, integrity)
    // Non-empty: the grader could not grade it (the environment failed, or the grader did):
    // why. Such a result has no score anywhere; a regrade gives it one.
    std::string grader_error;
    std::string compiler_output;
    std::vector<std::string> notes;  // shown at the top of the feedback
    std::vector<TestResult> tests;
    double execution_time_s = 0;

    double total() const;
    double max_total() const;
    // Built and audited, tests deliberately not run (--compile-only): no grade yet.
    bool compile_only() const;
    // Whether the result is a grade: not a grader error, not a compile-only pass.
    bool scored() const { return grader_error.empty() && !compile_only(); }
};

// `r` as a grader error: no score, and why (its tests, which may have run, are dropped).
void make_grader_error(StudentResult& r, const std::string& why);
// Every text of `r` (its names, messages, notes, each test's name and output) as valid UTF-8
// (util/text.h): the last guard before a result is written, so that no byte can stop the files.
void make_text_valid(StudentResult& r);

// What every report says instead of a total for a result that is no grade.
constexpr const char* kCompileOnlyVerdict = "build and audit passed; tests not run (run the grader on a GPU for the score)";
constexpr const char* kGraderErrorVerdict = "grader error";
// A result's total as every report shows it: "17.5/20", or for a result that is no grade the
// words above (never a number a student could take for a grade).
std::string total_text(const StudentResult& r, double max_points);

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
std::string format_points(double points);  // "12.5", "20"

}  // namespace grading
