#include "class/regrade.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "args.h"
#include "util/text.h"

namespace grading {

RegradeBaseline parse_regrade_baseline(const std::string& text, const std::string& source) {
    RegradeBaseline b;
    std::istringstream in(text);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.empty()) continue;
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            throw cudalabs::UsageError(source + ":" + std::to_string(number) + ": not an audit log line (JSON)");
        const std::string event = j.value("event", "");
        if (event == "run" && j.contains("seed") && j["seed"].is_number_unsigned()) b.seed = j["seed"].get<unsigned long long>();
        if (event != "submission" || !j.contains("student")) continue;
        RegradeBaseline::Earlier e;
        e.sha256 = j.value("sha256", "");
        if (j.contains("scores") && j["scores"].is_object())
            for (auto it = j["scores"].begin(); it != j["scores"].end(); ++it)
                if (it.value().is_number()) e.scores[it.key()] = it.value().get<double>();
        b.students[j["student"].get<std::string>()] = e;
    }
    if (b.students.empty()) throw cudalabs::UsageError(source + " holds no graded submission");
    return b;
}

std::string regrade_difference(const StudentResult& now, const RegradeBaseline& before) {
    auto it = before.students.find(now.student);
    if (it == before.students.end()) return now.student + ": not in the earlier run";
    if (it->second.sha256 != now.sha256) return now.student + ": the submission changed since the earlier run";
    std::vector<std::string> diffs;
    for (const TestResult& t : now.tests) {
        if (t.not_run) continue;  // no score now (--compile-only): nothing to compare
        auto s = it->second.scores.find(t.id);
        double earlier = s == it->second.scores.end() ? -1.0 : s->second;
        if (std::fabs(earlier - t.score) > 1e-6)
            diffs.push_back(t.id + " " + (earlier < 0 ? std::string("missing") : format_points(earlier)) + " -> " +
                            format_points(t.score));
    }
    return diffs.empty() ? "" : now.student + ": results differ from the earlier run: " + join(diffs, ", ");
}

}  // namespace grading
