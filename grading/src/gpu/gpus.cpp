#include "gpu/gpus.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include "args.h"
#include "util/files.h"
#include "util/text.h"

using cudalabs::UsageError;

namespace grading {

namespace {

std::string count_text(int count) {
    if (count == 0) return "no GPU";
    if (count == 1) return "1 GPU (index 0)";
    return std::to_string(count) + " GPUs (indices 0 to " + std::to_string(count - 1) + ")";
}

}  // namespace

std::vector<std::string> visible_device_entries(const std::string& value) {
    std::vector<std::string> out;
    if (trim(value).empty()) return out;
    for (const std::string& part : split_list(value)) out.push_back(part);
    return out;
}

int parse_device_count(const std::string& text) {
    static const std::regex count(R"(this machine has ([0-9]{1,6}) CUDA device)");
    std::smatch m;
    if (!std::regex_search(text, m, count)) return -1;
    return std::stoi(m[1].str());
}

std::vector<std::string> parse_device_uuids(const std::string& text) {
    static const std::regex entry(R"(([0-9]{1,6}): [^;()]*, (GPU-[0-9a-f-]{36}))");
    std::vector<std::string> uuids;
    for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it) {
        const size_t index = std::stoul((*it)[1].str());
        if (index != uuids.size()) return {};  // listed in order, from 0
        uuids.push_back((*it)[2].str());
    }
    return uuids;
}

int count_nvidia_smi_gpus(const std::string& listing) {
    std::istringstream in(listing);
    int n = 0;
    for (std::string line; std::getline(in, line);)
        if (line.compare(0, 4, "GPU ") == 0 && line.find(':') != std::string::npos) ++n;
    return n;
}

std::vector<int> resolve_gpus(const GpuRequest& request, int count, const char* visible) {
    const std::string within =
        visible ? std::string(" (counted within CUDA_VISIBLE_DEVICES=") + visible + ", as CUDA counts them)" : std::string();
    std::vector<int> out;
    if (request.all) {
        if (count <= 0) throw UsageError("--gpus all: CUDA shows no GPU here" + within);
        for (int i = 0; i < count; ++i) out.push_back(i);
        return out;
    }
    for (int index : request.indices)
        if (index >= count)
            throw UsageError("--gpus " + request.text + ": there is no GPU " + std::to_string(index) + ": CUDA shows " + count_text(count) +
                             within);
    return request.indices;
}

std::string pinned_device(int index, const char* visible) {
    if (!visible) return std::to_string(index);
    const std::vector<std::string> entries = visible_device_entries(visible);
    if (index < 0 || static_cast<size_t>(index) >= entries.size()) return std::to_string(index);
    return entries[static_cast<size_t>(index)];
}


void distribute(size_t count, size_t workers, const std::function<void(size_t, size_t)>& grade) {
    if (workers <= 1) {
        for (size_t i = 0; i < count; ++i) grade(0, i);
        return;
    }
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr first;
    std::mutex failure;
    std::vector<std::thread> pool;
    for (size_t w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            while (!stop) {
                const size_t i = next++;
                if (i >= count) break;
                try {
                    grade(w, i);
                } catch (...) {
                    std::lock_guard<std::mutex> lock(failure);
                    if (!first) first = std::current_exception();
                    stop = true;
                }
            }
        });
    for (std::thread& t : pool) t.join();
    if (first) std::rethrow_exception(first);
}

}  // namespace grading
