#include "class/audit_log.h"

#include <regex>
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

std::string utc_timestamp(std::time_t when) {
    std::tm utc{};
    gmtime_r(&when, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buf;
}

std::string graded_at_of(const nlohmann::json& line) {
    if (!line.is_object() || !line.contains("graded_at") || !line["graded_at"].is_string()) return "";
    const std::string date = line["graded_at"].get<std::string>();
    static const std::regex form(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
    return std::regex_match(date, form) ? date : "";
}

}  // namespace grading
