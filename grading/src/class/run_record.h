// A grading run's own record, kept in OUT/.resume/ so that a run cut short (kill -9, a lost
// machine, a full disk) is finished by `grading/grade --resume OUT` as if it had never stopped:
// run.json says what the run is (its options, submissions, rubric and seed), written before
// anything is built and so before the first submission is graded; submissions/ID.json holds each
// submission's result and audit line, written whole (a temporary file renamed) before any of the
// class files are made from it. The class files are rendered from these results, so a resumed
// run writes what the uninterrupted run would have. Host-only: unit-tested with g++.
#pragma once
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "class/results.h"
#include "runs/context.h"

namespace grading {

struct RunRecord {
    // The options that redo the run (lab, rubric, submissions, --compile-only, --shard, --gpus,
    // --roster, ...): what --resume reads, and what tells another run's folder apart.
    nlohmann::json command = nlohmann::json::object();
    unsigned long long seed = 0;
    std::string rubric_sha256;
    std::string tree;                   // the trusted tree's revision ("" until it is known)
    std::string run_line;               // the audit log's run line ("" until grading begins)
    long long audit_prefix = -1;        // bytes of audit.jsonl before this run's block (-1: not begun)
    std::vector<std::string> class_ids; // the submissions it grades, in class order
    bool finished = false;              // its summary is written: nothing to resume
};

// One submission's result as it was graded.
struct SubmissionRecord {
    StudentResult result;
    std::string audit_line;  // its line of the audit log (JSON, no newline)
    bool ran = false;        // its tests ran (it counts to its worker's submissions graded)
    size_t worker = 0;       // which worker (with --gpus, its place in the list)
};

std::string run_record_path(const std::string& out);  // OUT/.resume/run.json
bool has_run_record(const std::string& out);
// Throws std::runtime_error naming the file when it cannot be read.
RunRecord load_run_record(const std::string& out);
void save_run_record(const std::string& out, const RunRecord& record);  // atomic; throws StorageError

// The options of `cfg` that make the run what it is (all but --jobs, --root and the seed, which
// is recorded on its own), paths made absolute; and back into a Config, for --resume.
nlohmann::json run_command_json(const Config& cfg);
void apply_run_command(const nlohmann::json& command, Config& cfg);

// Why a run of `command` (and `seed_given`, 0: none) may not go on with the run recorded in `out`
// (another lab, rubric, class, options or seed), as one sentence that says what to do; "" when
// it is the same run.
std::string resume_refusal(const RunRecord& recorded, const nlohmann::json& command, const std::string& rubric_sha256,
                           unsigned long long seed_given, const std::string& out);

// A submission's result as a record and back (every field the class files are made from).
nlohmann::json result_record_json(const StudentResult& r);
StudentResult result_from_record(const nlohmann::json& j);

// Writes OUT/.resume/submissions/ID.json whole. A submission recorded already is a grader bug
// (it would be graded twice): std::logic_error. Throws StorageError when the disk refuses.
void save_submission_record(const std::string& out, const std::string& id, const SubmissionRecord& record);
// Removes submission `id`'s record (it is then graded, or written, again).
void forget_submission_record(const std::string& out, const std::string& id);
// The submissions recorded so far, by id. A file that is not a whole record (none should be:
// they are renamed into place, but a disk can damage one) is left out, so that its submission is
// graded again, and its id is added to `damaged`.
std::map<std::string, SubmissionRecord> load_submission_records(const std::string& out, std::vector<std::string>* damaged = nullptr);
// A fresh run in the folder: the records of the run before it go.
void clear_submission_records(const std::string& out);

}  // namespace grading
