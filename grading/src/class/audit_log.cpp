#include "class/audit_log.h"

#include <sstream>

namespace grading {

AuditRun last_audit_run(const std::string& audit_jsonl) {
    AuditRun log;
    std::istringstream in(audit_jsonl);
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            log.readable = false;
            continue;
        }
        const std::string event = j.value("event", "");
        if (event == "run") {
            log.run = std::move(j);
            log.submissions.clear();
        } else if (event == "submission") {
            log.submissions.push_back(std::move(j));
        }
    }
    return log;
}

}  // namespace grading
