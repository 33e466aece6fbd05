// The outputs the grader stored, judged by the verifier (stored_outputs.h).
#include "stored_outputs.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>

#include "channel_format.h"

namespace cudalabs {

std::vector<StoredOutput> StoredOutputs::judged_instead(const std::string& case_key, int k, size_t bytes,
                                                        bool with_repetitions) const {
    const std::string path = output_path(case_key, k);
    // An output missing because the program's case failed first (a crash of its kernel, which
    // ends the GPU context) is explained by that failure, not by the missing file alone.
    const std::vector<std::string> failed = faults(case_key);
    const std::string missing = "no output of the expected size in " + path + (failed.empty() ? "" : ": the case failed first: " + failed.front());
    std::vector<StoredOutput> judged{{"", missing,
                                      [path, bytes](std::vector<unsigned char>& data) { return read(path, bytes, data); }}};
    if (!with_repetitions) return judged;
    for (const auto& [rep, timed] : timed_output_paths(case_key, k))
        judged.push_back({"timed repetition " + std::to_string(rep),
                          "timed repetition " + std::to_string(rep) + " produced no output of the expected size",
                          [path = timed, bytes](std::vector<unsigned char>& data) { return read(path, bytes, data); }});
    return judged;
}

std::vector<std::string> StoredOutputs::faults(const std::string& case_key) const {
    std::vector<std::string> found;
    std::ifstream f(dir_ + "/" + channel::faults_file_name(case_key));
    for (std::string line; std::getline(f, line);)
        if (!line.empty()) found.push_back(line);
    return found;
}

std::string StoredOutputs::timed_output_path(const std::string& case_key, int k, int rep) const {
    return dir_ + "/" + channel::timed_output_file_name(case_key, static_cast<uint32_t>(k), static_cast<uint32_t>(rep));
}

bool StoredOutputs::read(const std::string& path, size_t bytes, std::vector<unsigned char>& data) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f || static_cast<size_t>(f.tellg()) != bytes) return false;
    data.resize(bytes);
    f.seekg(0);
    return static_cast<bool>(f.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes)));
}

std::string StoredOutputs::output_path(const std::string& case_key, int k) const {
    return dir_ + "/" + channel::output_file_name(case_key, static_cast<uint32_t>(k));
}

std::vector<std::pair<int, std::string>> StoredOutputs::timed_output_paths(const std::string& case_key, int k) const {
    // <case>_<k>.rep<r>.bin: the grader stores only the repetitions whose output differed.
    const std::string prefix = case_key + "_" + std::to_string(k) + ".rep", suffix = ".bin";
    std::vector<std::pair<int, std::string>> found;
    DIR* dir = opendir(dir_.c_str());
    if (!dir) return found;
    while (dirent* e = readdir(dir)) {
        const std::string name = e->d_name;
        if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        found.emplace_back(std::stoi(digits), dir_ + "/" + name);
    }
    closedir(dir);
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace cudalabs
