// A class roster (`grading/grade --roster FILE`): a CSV of the students as Canvas, Moodle,
// Gradescope or a plain id,name,email,section table gives them; each submission matched to its
// students by its folder's or file's name, or by Gradescope's submission_metadata.json; the
// gradebook's roster columns; an LMS import CSV (Canvas's format, and one for Moodle's CSV
// import) with the points scaled to the assignment's; a report of what did not match.
// Host-only: unit-tested with g++.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.h"
#include "intake/submissions.h"

namespace grading {

struct RosterEntry {
    int line = 0;             // its line in the roster file
    std::string id;           // the student's id: SIS User ID, ID number, SID, student id, id (else login, else email)
    std::string name;         // as the roster writes it ("Last, First" in Canvas's exports)
    std::string email, section;
    std::string pseudonym;    // the leaderboard's name for them, when the roster chooses one
    std::string canvas_id;    // Canvas's own user id (the "ID" column of a Canvas export)
    std::string sis_id;       // the institution's id (SIS User ID / ID number; the id elsewhere)
    std::string login;        // SIS Login ID / username
};

struct Roster {
    std::string path;
    std::string form;  // "canvas", "moodle", "gradescope" or "plain": which export it looks like
    std::string encoding;  // what its bytes were read as: "UTF-8", "UTF-16LE", "UTF-16BE" or "Windows-1252"
    std::vector<std::string> notes;  // a column that looks misspelled ("Emial"): said when the run starts
    std::vector<RosterEntry> entries;
};

// A roster that cannot be read: the message names the file and the line.
struct RosterError : cudalabs::UsageError {
    using cudalabs::UsageError::UsageError;
};

// Parses a roster CSV (comma, semicolon or tab separated; CR LF line ends are fine) from its bytes:
// UTF-8 (with or without a byte-order mark), UTF-16 with a byte-order mark, or else Windows-1252
// (what Excel writes as "CSV" on Windows); a byte none of them reads is refused, naming its line. The header names the columns, in any order and case: an id (SIS User ID, ID,
// ID number, SID, student id, username), the name (Student, Name, or First name and Last
// name/Surname), Email (address), Section(s)/Group(s), and optionally Pseudonym. Canvas's
// "Points Possible" row and its Test Student are skipped, as are rows whose Role is not a
// student's. Throws RosterError ("FILE:LINE: ...") for a roster without an id column, a row
// without an id, an id or a pseudonym given twice, or a quoted cell left open.
Roster parse_roster(const std::string& text, const std::string& path);

// One submitter named by Gradescope's submission_metadata.json ("users").
struct GradescopeUser {
    std::string name, email, sid, id;
};
// The users of a submission_metadata.json text. Throws RosterError (naming `source`) when it is
// not JSON or has no "users" list.
std::vector<GradescopeUser> parse_gradescope_metadata(const std::string& json_text, const std::string& source);

// The submitters of each submission in Gradescope's "Export Submissions" (its
// submission_metadata.yml, beside the submission_NNN folders): folder name -> users (name, SID,
// email). Reads the export's own layout only (":submitters:" lists of ":name:", ":sid:",
// ":email:"); other keys are skipped.
std::map<std::string, std::vector<GradescopeUser>> parse_gradescope_export(const std::string& yml);

// What is known of one submission when it is matched.
struct SubmissionName {
    std::string id;    // the grader's id for it (a gradebook row, feedback/ID.md)
    std::string name;  // its folder's or file's name as submitted
    bool has_metadata = false;
    std::vector<GradescopeUser> users;  // from its submission_metadata.json
    std::string metadata_problem = "";  // why a submission_metadata.json there was not used
};

// Each submission's name, and its Gradescope submitters where it has any: its entry in the
// submission_metadata.yml of the folder above (Gradescope's "Export Submissions"), else the
// folder's own submission_metadata.json (as Gradescope's autograder gets it; believed as it is:
// use it where students cannot write it), both as taken in (submissions.h). A
// submission_metadata.json that is not Gradescope's, or not a regular file, is that submission's
// alone: it is matched by its name, and its problem is said among the unmatched.
std::vector<SubmissionName> submission_names(const std::vector<SubmissionSource>& sources);

struct RosterMatch {
    std::map<std::string, std::vector<size_t>> students;  // submission id -> its roster entries (indices)
    std::vector<std::pair<std::string, std::string>> unmatched;  // submission id, why it matches no one
    std::vector<size_t> without_submission;              // roster entries no submission matched
    std::map<size_t, std::vector<std::string>> contested;  // roster entry -> the several submissions that matched it
};

// Matches each submission to the roster: by Gradescope's metadata when it has some (each user by
// SID, then email, then name), else by its name: the id (or Canvas's user id), the email or the
// login (or their part before '@'), Canvas's download names (lastfirst_[late_]USERID_..._file)
// and Moodle's (Full Name_NNN_assignsubmission_file_), and the name in any order of its words,
// with any separators (jane_doe, Doe-Jane, janedoe, "Doe, Jane"). A name that fits several
// entries matches none (it is listed, saying which).
RosterMatch match_roster(const Roster& roster, const std::vector<SubmissionName>& submissions);

// A roster that matches none of the class's `submissions` submissions (the wrong roster, or
// submissions named in a way the matching does not know): throws std::runtime_error saying so,
// and what to do.
void require_some_match(const Roster& roster, const RosterMatch& match, size_t submissions);

// The gradebook's roster columns (after "student", see gradebook_head and gradebook_row): their
// names, and one submission's cells (a group's students joined with "; ").
std::vector<std::string> roster_column_names();
std::vector<std::string> roster_cells(const Roster& roster, const RosterMatch& match, const std::string& submission);

// What the LMS files need besides the roster: the assignment's name there, its points, the
// rubric's points (scores are scaled by points / rubric_points).
struct LmsAssignment {
    std::string name;
    double points = 0, rubric_points = 0;
};

// OUT/roster.json: the roster, the match and the assignment, written by a run with --roster (the
// same in every shard of a class: submissions are matched over the whole class).
std::string roster_record_json(const Roster& roster, const RosterMatch& match, const LmsAssignment& assignment);
void parse_roster_record(const std::string& text, const std::string& source, Roster& roster, RosterMatch& match,
                         LmsAssignment& assignment);

// One submission's grade, as the audit log has it.
struct SubmissionGrade {
    double total = 0;
    bool graded = false;  // false: its tests were not run (--compile-only)
};
// The submission lines of the last run block of an audit.jsonl text: submission id -> grade.
std::map<std::string, SubmissionGrade> audit_grades(const std::string& audit_jsonl, const std::string& source);

// Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, the assignment;
// a "Points Possible" row; one row per roster entry matched by exactly one submission, its score
// scaled to the assignment's points (empty where the tests were not run).
std::string lms_canvas_csv(const Roster& roster, const RosterMatch& match, const LmsAssignment& assignment,
                           const std::map<std::string, SubmissionGrade>& grades);
// The same rows for Moodle's "Import: CSV file": ID number, Email address, Username, Full name,
// the assignment (no Points Possible row).
std::string lms_moodle_csv(const Roster& roster, const RosterMatch& match, const LmsAssignment& assignment,
                           const std::map<std::string, SubmissionGrade>& grades);
// The report of what did not match: submissions not on the roster, roster entries without a
// submission, entries matched by several submissions.
std::string roster_report(const Roster& roster, const RosterMatch& match);

// From OUT/roster.json and OUT/audit.jsonl: writes OUT/lms-canvas.csv, OUT/lms-moodle.csv and
// OUT/roster.txt; returns the report. Does nothing ("") where OUT has no roster.json.
std::string write_roster_outputs(const std::string& out);

// The roster an audit log's last run line names (a regrade reuses it), "" when none.
std::string roster_of_run(const std::string& audit_jsonl);

}  // namespace grading
