// Writing a class's results as its submissions finish, in whatever order they finish (several
// GPUs grade at once): each submission's audit line, feedback and results.json at once, its
// gradebook row rendered once from its result and the gradebook of those finished so far kept in
// class order on disk (the row appended where it comes last, else the file rewritten from the
// rows), so that a run cut short keeps what it graded; at the end this run's audit lines put in
// class order, so that the files are those of a run that graded the class one submission after
// the other. Every write is whole: a file is written beside and renamed into place, an audit line
// appended in one write and flushed to the disk, so that a kill leaves no half record; a run
// resumed from its records (run_record.h) renders the same files. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "class/results.h"
#include "class/roofline_picture.h"
#include "class/roster.h"
#include "intake/rubric.h"

namespace grading {

class ClassResults {
public:
    // `out` holds feedback/ and results/; `ids` are the submissions' ids in class order (the
    // file names under feedback/ and results/).
    ClassResults(std::string out, const Rubric& rubric, std::string title, std::vector<std::string> ids);
    // The bytes of OUT/audit.jsonl that this run's block will follow: the lines of earlier runs,
    // without a torn last line a killed run left.
    long long audit_prefix() const;
    // Starts this run's block of OUT/audit.jsonl with its first line (the lines of earlier runs
    // stay). Returns audit_prefix(), which a resumed run starts from.
    long long begin(const std::string& run_line);
    // Goes on with a run that was cut short: the audit log is its first `audit_prefix` bytes,
    // the run's line and the lines of the submissions it recorded (`restored`, by index), and
    // their feedback, results and gradebook rows are rendered again from their results. Call it
    // instead of begin.
    struct Restored {
        StudentResult result;
        std::string audit_line;
    };
    void resume(long long audit_prefix, const std::string& run_line, const std::map<size_t, Restored>& restored);
    // Writes submission `index`'s audit line (JSON, no newline), feedback and results.json, and
    // its row of the gradebook, which then holds every submission finished so far, in class
    // order. Thread-safe. Returns how many have finished, this one included.
    size_t finish(size_t index, const StudentResult& result, const std::string& audit_line);
    // Every submission has finished: puts this run's audit lines in class order (where they
    // were written in another).
    void end();
    // The results in class order (those finished so far).
    std::vector<StudentResult> results() const;
    // With --roster: the gradebook gains the roster's columns (both must outlive this object).
    // Call it before the first submission finishes.
    void use_roster(const Roster* roster, const RosterMatch* match);
    // How each submission's roofline picture is drawn (roofline_picture.h); without it, a
    // feedback with timed figures says it was not drawn. Call it before the first one finishes.
    void use_roofline_drawer(RooflineDrawer draw);
    // Submission `index`'s picture, as its files show it (none before it finished).
    RooflinePicture roofline_picture(size_t index) const;

private:
    std::string out_, title_;
    const Rubric& rubric_;
    std::vector<std::string> ids_;
    mutable std::mutex mutex_;
    std::string audit_path_;
    long long block_start_ = 0;           // where this run's submission lines begin in audit.jsonl
    std::vector<bool> done_;
    std::vector<StudentResult> results_;  // by index
    std::vector<std::string> lines_;      // audit lines, by index
    std::vector<std::string> rows_;       // gradebook rows, by index
    std::vector<RooflinePicture> pictures_;  // by index
    RooflineDrawer draw_roofline_;
    size_t last_row_in_file_ = 0;         // the class index of the gradebook's last row (when it has any)
    std::vector<size_t> finish_order_;
    const Roster* roster_ = nullptr;
    const RosterMatch* match_ = nullptr;
    std::string gradebook_head_locked() const;
    std::string gradebook_row_locked(size_t index) const;
    void add_gradebook_row_locked(size_t index);
    void record_locked(size_t index, const StudentResult& result, const std::string& audit_line);
    void write_submission_files_locked(size_t index);
};

}  // namespace grading
