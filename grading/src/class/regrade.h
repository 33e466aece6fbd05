// Regrades: an earlier run's audit log gives the seed and each student's scores; a new run with
// that seed says, per student, whether the results are the same, differ (and how), or the
// submission changed. Host-only: unit-tested with g++.
#pragma once
#include <map>
#include <string>

#include "class/results.h"

namespace grading {

struct RegradeBaseline {
    unsigned long long seed = 0;  // the earlier run's seed (0: none recorded)
    struct Earlier {
        std::string sha256;
        std::map<std::string, double> scores;  // test id -> points
    };
    std::map<std::string, Earlier> students;
};

// Reads an audit.jsonl text; `source` names it in errors. Throws cudalabs::UsageError when it
// holds no graded submission or a line is not JSON.
RegradeBaseline parse_regrade_baseline(const std::string& audit_jsonl, const std::string& source);

// "" when `now` has the same scores as the earlier run, else one line saying what changed.
std::string regrade_difference(const StudentResult& now, const RegradeBaseline& before);

}  // namespace grading
