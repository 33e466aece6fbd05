#include "stages/run.h"

#include <chrono>

namespace grading {

std::vector<std::string> ids_of(const std::vector<Submission>& subs) {
    std::vector<std::string> ids;
    for (const Submission& s : subs) ids.push_back(s.source.id);
    return ids;
}

double run_elapsed() {
    static const auto start = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace grading
