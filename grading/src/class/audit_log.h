// Reading the audit log (OUT/audit.jsonl) the grader wrote: a `run` line, then one line per
// submission; a folder graded again appends another such block, and the last one is what the
// folder holds now. The merge, the LMS files and the leaderboard are made from these lines.
// Each line records when it was written: "graded_at" (see utc_timestamp). Host-only: unit-tested
// with g++.
#pragma once
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace grading {

struct AuditRun {
    nlohmann::json run;                        // the last run line; null when the log has none
    std::vector<nlohmann::json> submissions;   // the submission lines after it
    bool readable = true;                      // false: a line is not a JSON object (it is skipped)
};

// The last run block of an audit.jsonl text.
AuditRun last_audit_run(const std::string& audit_jsonl);

// A date as the audit log records it: UTC, ISO 8601 to the second ("2026-03-04T09:30:00Z"), so
// that dates compare as text.
std::string utc_timestamp(std::time_t when);
// A line's "graded_at" (the run line's: when the run began grading; a submission line's: when its
// results were written), or "" where it has none (a log written before the grader recorded the
// date) or holds anything but such a date.
std::string graded_at_of(const nlohmann::json& line);

}  // namespace grading
