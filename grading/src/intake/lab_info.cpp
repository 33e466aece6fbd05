#include "intake/lab_info.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "args.h"
#include "process/process.h"
#include "util/files.h"
#include "util/locks.h"
#include "util/text.h"

namespace grading {

std::map<std::string, std::string> parse_grading_info(const std::string& text) {
    std::map<std::string, std::string> kv;
    std::istringstream in(text);
    const std::string prefix = "grading-info:";
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(prefix, 0) != 0) continue;
        size_t eq = line.find('=');
        if (eq != std::string::npos) kv[line.substr(prefix.size(), eq - prefix.size())] = line.substr(eq + 1);
    }
    return kv;
}

LabInfo load_lab_info(const std::string& root, const std::string& lab, const std::string& scratch, const std::string& target) {
    const HeldLock building = lock_build_folder(build_folder_of(root));  // (other runs build here too)
    RunResult r = run_trusted({"make", "-s", "--no-print-directory", "-C", root, target, "LAB=" + lab}, root, 1800, scratch);
    if (!r.ok())
        throw std::runtime_error("building the trusted tree failed (make " + target + " LAB=" + lab + "): " + r.describe() + "\n" +
                                 clip(r.out + r.err, 4000));
    std::map<std::string, std::string> kv = parse_grading_info(r.out);
    if (kv["LABDIR"].empty()) throw std::runtime_error("lab " + lab + " does not exist in " + root);
    auto in_root = [&](const std::string& p) { return p.empty() || p[0] == '/' ? p : root + "/" + p; };
    LabInfo info;
    info.dir = kv["LABDIR"];
    info.topic_file = kv["STUDENT"];
    info.nvcc = kv["NVCC"];
    info.nvcc_flags = kv["NVCCFLAGS"];
    info.arch_flags = kv["ARCH_FLAGS"];
    info.ldlibs = kv["LDLIBS"];
    info.cuda_home = absolute(kv["CUDA_HOME"]);
    info.sol = in_root(kv["SOL"]);
    info.sol_object = in_root(kv["SOL_OBJECT"]);
    info.driver_object = in_root(kv["DRIVER_OBJECT"]);
    info.student_source_object = in_root(kv["STUDENT_SOURCE_OBJECT"]);
    info.shim_object = kv["SHIM_OBJECT"].empty() ? "" : in_root(kv["SHIM_OBJECT"]);
    info.trace_lib = kv["TRACE_LIB"].empty() ? "" : in_root(kv["TRACE_LIB"]);
    for (const std::string& o : split_ws(kv["OBJS"])) info.objects.push_back(in_root(o));
    if (!info.trace_lib.empty() && !exists(info.trace_lib)) info.trace_lib.clear();
    return info;
}

LabDeclaration parse_lab_declaration(const std::string& json, const std::string& source) {
    LabDeclaration lab;
    try {
        const nlohmann::json d = nlohmann::json::parse(json);
        for (const auto& v : d.at("variants")) {
            lab.variants.push_back(v.at("name").get<std::string>());
            if (v.at("yardstick").get<bool>()) lab.yardsticks.push_back(lab.variants.back());
        }
        for (const auto& s : d.at("check_sizes")) lab.check_sizes.push_back(s.get<std::string>());
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(source + " did not print the lab's description: " + e.what());
    }
    if (lab.variants.empty()) throw std::runtime_error(source + " declares no variants");
    return lab;
}

}  // namespace grading
