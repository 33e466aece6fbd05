#include "compile/build_cache.h"

#include <nlohmann/json.hpp>

#include "compile/build.h"
#include "util/sha256.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

BuildCache::BuildCache(std::string folder) : folder_(std::move(folder)) { make_dirs(folder_); }

std::shared_ptr<const CachedBuild> BuildCache::take(const std::string& key) {
    std::unique_lock<std::mutex> lock(m_);
    changed_.wait(lock, [&] { return !building_.count(key); });
    auto it = built_.find(key);
    if (it != built_.end()) return it->second;
    building_.insert(key);
    return nullptr;
}

void BuildCache::store(const std::string& key, const CachedBuild& build) {
    std::lock_guard<std::mutex> lock(m_);
    built_[key] = std::make_shared<const CachedBuild>(build);
    building_.erase(key);
    changed_.notify_all();
}

void BuildCache::abandon(const std::string& key) {
    std::lock_guard<std::mutex> lock(m_);
    building_.erase(key);
    changed_.notify_all();
}

std::string BuildCache::files_folder(const std::string& key) const { return folder_ + "/" + key.substr(0, 32); }

std::string build_cache_key(const BuildSpec& spec, const std::string& source_sha256, const std::string& inputs_digest) {
    nlohmann::json renames = nlohmann::json::array();
    for (const auto& [from, to] : spec.import_renames) renames.push_back({from, to});
    const nlohmann::json key = {
        {"source", source_sha256},         {"inputs", inputs_digest},
        {"lab_dir", spec.lab_dir},         {"topic_file", spec.topic_file},
        {"nvcc", spec.nvcc},               {"cuda_home", spec.cuda_home},
        {"nvcc_flags", spec.nvcc_flags},   {"arch_flags", spec.arch_flags},
        {"ldlibs", spec.ldlibs},           {"trusted_objects", spec.trusted_objects},
        {"forbid_symbols", spec.rules.forbid_symbols},
        {"allowed_imports", spec.rules.allowed_imports},
        {"allow_imports", spec.rules.allow_imports},
        {"import_renames", renames},
    };
    return sha256_hex(json_text(key));
}

std::string build_inputs_digest(const std::string& toolchain, const std::vector<std::string>& files) {
    nlohmann::json j = {{"toolchain", toolchain}, {"files", nlohmann::json::array()}};
    for (const std::string& f : files) j["files"].push_back({f, sha256_hex(read_file(f))});
    return sha256_hex(json_text(j));
}

}  // namespace grading
