#include "gpu/gpu_nodes.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "util/files.h"
#include "util/text.h"

namespace grading {

namespace {

// The value of a "Key: value" line of the driver's information file ("" when absent).
std::string field(const std::string& information, const std::string& key) {
    std::istringstream lines(information);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind(key + ":", 0) == 0) return trim(line.substr(key.size() + 1));
    return "";
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "nvidia0", "nvidia12": one GPU's own node (the driver's other nodes have a dash or letters).
bool is_one_gpus_node(const std::string& name) { return name.rfind("nvidia", 0) == 0 && all_digits(name.substr(6)); }

}  // namespace

int gpu_minor_number(const std::string& gpu_uuid, const std::string& driver_gpus) {
    if (gpu_uuid.empty()) return -1;
    for (const std::string& gpu : list_dir(driver_gpus)) {
        const std::string information = read_file(driver_gpus + "/" + gpu + "/information");
        if (field(information, "GPU UUID") != gpu_uuid) continue;
        const std::string minor = field(information, "Device Minor");
        return all_digits(minor) && minor.size() < 6 ? std::stoi(minor) : -1;
    }
    return -1;
}

std::vector<std::string> gpu_device_nodes(const std::string& gpu_uuid, const std::string& driver_gpus, const std::string& dev) {
    const int minor = gpu_minor_number(gpu_uuid, driver_gpus);
    if (minor < 0) return {};
    const std::string own = dev + "/nvidia" + std::to_string(minor);
    if (!exists(own) || is_dir(own)) return {};  // (a character device on a real machine)
    std::vector<std::string> nodes = {own};
    for (const std::string& name : list_dir(dev))
        if (name.rfind("nvidia", 0) == 0 && !is_one_gpus_node(name)) nodes.push_back(dev + "/" + name);
    std::sort(nodes.begin(), nodes.end());
    return nodes;
}

}  // namespace grading
