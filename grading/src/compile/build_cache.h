// Builds reused within a grading run: a file whose content and build inputs (the lab, the flags,
// the toolchain, the trusted headers and objects, the audit's rules: build_cache_key) were built
// before in this run is not compiled again. Its copy of the compiler's files is audited as every
// submission's is (the audit runs for every submission), and its program is reused only where the
// audited, localised object is the one linked before. Only compiles that worked are kept: a
// compile error or a time-out is made again for each file that has it. Host-only: unit-tested.
#pragma once
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace grading {

struct BuildSpec;

// One build kept for reuse.
struct CachedBuild {
    std::string keep_name;          // the compiler's folder's name inside the stage (its files name it)
    std::string files;              // where the compiler's files are kept (a private folder)
    std::string compiler_output;    // the compiler's messages, the build's own folders taken out
    std::string final_object_sha256, program;  // the linked object's hash and a copy of its program ("": not linked)
};

class BuildCache {
public:
    explicit BuildCache(std::string folder);  // a private folder of the run's (made when missing)
    const std::string& folder() const { return folder_; }
    // The build of `key`, once made; nullptr when the caller is to make it (then store() or
    // abandon() follows). Waits while another caller is making it.
    std::shared_ptr<const CachedBuild> take(const std::string& key);
    void store(const std::string& key, const CachedBuild& build);
    void abandon(const std::string& key);  // not kept: the next caller of `key` builds it
    // Where the builder of `key` keeps its files.
    std::string files_folder(const std::string& key) const;

private:
    std::string folder_;
    std::mutex m_;
    std::condition_variable changed_;
    std::set<std::string> building_;
    std::map<std::string, std::shared_ptr<const CachedBuild>> built_;
};

// The key of a build: the file's content hash and every input of its build that is not the file
// (`inputs_digest`: the toolchain, the staged headers' and trusted objects' contents, see
// build_inputs_digest), with the spec's flags, folders and rules.
std::string build_cache_key(const BuildSpec& spec, const std::string& source_sha256, const std::string& inputs_digest);

// The digest of what a build reads besides the file: the toolchain's description (nvcc --version),
// and the contents of the staged headers and the trusted objects (paths and bytes).
std::string build_inputs_digest(const std::string& toolchain, const std::vector<std::string>& files);

}  // namespace grading
