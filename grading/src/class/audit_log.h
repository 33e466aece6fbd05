// Reading the audit log (OUT/audit.jsonl) the grader wrote: a `run` line, then one line per
// submission; a folder graded again appends another such block, and the last one is what the
// folder holds now. The merge, the LMS files and the leaderboard are made from these lines.
// Host-only: unit-tested with g++.
#pragma once
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

}  // namespace grading
