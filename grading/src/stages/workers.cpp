#include "stages/workers.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "exit_codes.h"
#include "gpu/gpus.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

bool Workers::set_up() {
    std::vector<int> gpus;  // with --gpus: the GPUs to grade on (CUDA's indices in the grader)
    if (!choose_gpus_and_self_test(gpus)) return false;
    set_up_workers(gpus);
    return true;
}

// The GPUs to grade on, and the self-test on the first of them (with --compile-only, neither).
// False when there is no usable GPU.
bool Workers::choose_gpus_and_self_test(std::vector<int>& gpus) {
    const Config& cfg = setup_.cfg;
    if (!cfg.compile_only) {
        gpus = gpus_to_grade_on();
        if (have_gpu_) {
            std::fprintf(stderr, "grade: checking the sandbox with the reference solution...\n");
            have_gpu_ = self_test_.run();
        }
        if (!have_gpu_) {
            std::fprintf(stderr, "grade: no usable CUDA GPU: grading needs one to run the programs (--compile-only builds and audits without)\n");
            return false;
        }
    } else {
        setup_.isolation_text = setup_.iso.describe() + " (compile only)";
        if (cfg.gpus.given) std::fprintf(stderr, "grade: --compile-only runs nothing on a GPU: --gpus %s is not used\n", cfg.gpus.text.c_str());
    }
    std::fprintf(stderr, "grade: isolation: %s\n", setup_.isolation_text.c_str());
    announce_gpus(gpus);
    return true;
}

// The GPUs --gpus names, the first of them the self-test's; without --gpus, the one CUDA picks.
// Their UUIDs come first (no context is made): a GPU is locked by its UUID before anything of
// this run uses it.
std::vector<int> Workers::gpus_to_grade_on() {
    std::vector<int> gpus;
    if (setup_.cfg.gpus.given) {
        gpus = choose_gpus();
        if (gpus.empty()) have_gpu_ = false;
        else sandbox_.own.cuda_visible_devices = pinned_device(gpus[0], std::getenv("CUDA_VISIBLE_DEVICES"));
        if (!gpus.empty() && static_cast<size_t>(gpus[0]) < gpu_uuids_.size()) sandbox_.own.gpu_uuid = gpu_uuids_[static_cast<size_t>(gpus[0])];
    } else if (count_gpus() > 0 && !gpu_uuids_.empty()) {
        sandbox_.own.gpu_uuid = gpu_uuids_[0];  // the one CUDA picks
    }
    return gpus;
}


void Workers::announce_gpus(const std::vector<int>& gpus) const {
    const Config& cfg = setup_.cfg;
    if (!gpus.empty() && cfg.gpus.shared)
        std::fprintf(stderr, "grade: %s=1: %zu workers on the GPUs of --gpus %s, some sharing one: their timings disturb each other, "
                             "so the performance scores are not fair (for testing the grader, not for grading a class)\n",
                     kSharedGpusVariable, gpus.size(), cfg.gpus.text.c_str());
    else if (!gpus.empty())
        std::fprintf(stderr, "grade: grading on %zu GPU%s (--gpus %s), one worker each; checking each GPU with the reference...\n",
                     gpus.size(), gpus.size() == 1 ? "" : "s", cfg.gpus.text.c_str());
}

// How many GPUs CUDA shows the grader (within CUDA_VISIBLE_DEVICES when it is set), asked of the
// trusted reference (a --device that no machine has: the harness names the count), so that the
// grader itself needs no CUDA; nvidia-smi -L where the answer cannot be read. 0: no usable GPU.
int Workers::count_gpus() {
    const auto [variant, small] = self_test_.reference_case();
    RunResult r = run_trusted({setup_.info.sol, "--device", "1023", "--variant", variant, "--size", small, "--reps", "1"}, setup_.priv, 120,
                              setup_.priv);
    if (r.exit_code == cudalabs::kExitNoGpu) return 0;
    const int n = parse_device_count(r.out + "\n" + r.err);
    gpu_uuids_ = parse_device_uuids(r.out + "\n" + r.err);
    if (gpu_uuids_.size() != static_cast<size_t>(std::max(n, 0))) gpu_uuids_.clear();
    if (n >= 0) return n;
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) return static_cast<int>(visible_device_entries(visible).size());
    RunResult smi = run_trusted({"nvidia-smi", "-L"}, setup_.priv, 60, setup_.priv);
    if (smi.ok()) return count_nvidia_smi_gpus(smi.out);
    throw std::runtime_error("cannot count the GPUs: " + setup_.info.sol + " --device 1023 (" + r.describe() + ") named no count (" +
                             clip(r.out + r.err, 300) + ") and nvidia-smi -L failed (" + smi.describe() + ")");
}

// The GPUs --gpus names, checked against those CUDA shows (empty: no usable GPU at all).
std::vector<int> Workers::choose_gpus() {
    const int count = count_gpus();
    if (count == 0) return {};
    return resolve_gpus(setup_.cfg.gpus, count, std::getenv("CUDA_VISIBLE_DEVICES"));
}


std::string Workers::gpu_label(const Worker& w) const {
    std::string label = worker_name(w);
    const std::string& visible = w.setup.cuda_visible_devices;
    if (visible != std::to_string(w.gpu) && visible != w.setup.gpu_uuid) label += " (CUDA_VISIBLE_DEVICES=" + visible + ")";
    return label;
}

// "GPU 2", or where workers share a GPU (GRADING_SHARED_GPUS) "GPU 0 worker 1" (its place in the list).
std::string Workers::worker_name(const Worker& w) const {
    std::string name = "GPU " + std::to_string(w.gpu);
    if (setup_.cfg.gpus.shared) name += " worker " + std::to_string(w.slot);
    return name;
}

// One worker per GPU, each with its own setup: its GPU (CUDA_VISIBLE_DEVICES in every run's
// environment, the reference's and the verifier's too), its own private folder (outputs,
// verdicts, the reference's timing runs), its own sandbox user where the sandbox changes user
// (from the machine's pool of identities: runs under way at once cannot reach each other's
// processes or run folders, nor share a process limit) and its own device name. Without --gpus,
// one worker with the grader's own setup.
void Workers::set_up_workers(const std::vector<int>& gpus) {
    workers_.clear();
    if (gpus.empty()) {
        Worker w;
        w.setup = sandbox_.own;
        workers_.push_back(std::move(w));
        set_up_lanes();
        return;
    }
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    for (size_t k = 0; k < gpus.size(); ++k) {
        Worker w;
        w.slot = k;
        w.gpu = gpus[k];
        w.setup = sandbox_.own;
        w.setup.cuda_visible_devices = pinned_device(gpus[k], visible);
        w.setup.gpu_uuid = static_cast<size_t>(gpus[k]) < gpu_uuids_.size() ? gpu_uuids_[static_cast<size_t>(gpus[k])] : "";
        self_test_.show_only_its_gpu(w.setup);
        w.setup.priv = setup_.priv + "/worker" + std::to_string(k);
        make_dirs(w.setup.priv);
        chmod(w.setup.priv.c_str(), 0700);
        if (w.setup.iso.changes_user() && k > 0) {
            // A user of its own, from the machine's pool: runs under way at once cannot reach
            // each other, nor share a process limit (the first worker has the run's).
            w.identity = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, sandbox_.lock_dir);
            w.setup.iso.uid = w.identity.uid;
            w.setup.iso.gid = w.identity.gid;
        }
        workers_.push_back(std::move(w));
    }
    for (Worker& w : workers_) check_gpu(w);
    set_up_lanes();
}

// How many submissions at once on a worker's GPU: --per-gpu N, or auto from what the GPU's check
// found (its memory and SMs, in the reference's device.json), the CPUs and the GPU's compute mode.
size_t Workers::lanes_per_gpu(const Worker& w) {
    const Config& cfg = setup_.cfg;
    if (cfg.compile_only) return 1;
    if (cfg.per_gpu > 0) return cfg.per_gpu;
    double memory_gib = 0;
    int sms = 0;
    const std::string device_json = (w.gpu >= 0 ? w.setup.priv : setup_.priv) + "/device.json";
    try {
        const json d = json::parse(read_file(device_json)).at("device");
        memory_gib = d.value("memory_gib", 0.0);
        sms = d.value("sms", 0);
    } catch (const std::exception&) {
        return 1;  // nothing known of the GPU: one at a time
    }
    std::vector<std::string> query = {"nvidia-smi", "--query-gpu=compute_mode", "--format=csv,noheader"};
    if (!w.setup.gpu_uuid.empty()) query.insert(query.end(), {"-i", w.setup.gpu_uuid});
    const RunResult smi = run_trusted(query, setup_.priv, 60, setup_.priv);
    const std::vector<std::string> words = smi.ok() ? split_ws(smi.out) : std::vector<std::string>();
    const std::string mode = words.size() == 1 ? words[0] : "";
    return auto_lanes_per_gpu(memory_gib, sms, std::max(1u, std::thread::hardware_concurrency()), workers_.size(), mode);
}

// Each worker's lanes (--per-gpu) and its GPU's gate. The first lane is the worker's own setup;
// the others have their own private folder, sandbox user and copy of the reference (what decides
// a failure that persists, run as their user), made from the worker's checked setup.
void Workers::set_up_lanes() {
    lanes_.clear();
    lanes_per_gpu_ = lanes_per_gpu(workers_[0]);
    std::map<std::string, std::shared_ptr<GpuGate>> gates;  // by the GPU's lock name
    std::map<std::string, std::shared_ptr<ReferencePool>> pools;
    for (size_t k = 0; k < workers_.size(); ++k) {
        Worker& w = workers_[k];
        const std::string label = w.gpu >= 0 ? gpu_label(w) : "the GPU";
        const std::string name = gpu_lock_name(w.setup);
        std::shared_ptr<GpuGate>& gate = gates[name];
        if (!gate)
            gate = std::make_shared<GpuGate>(name, sandbox_.lock_dir, [label, name] {
                std::fprintf(stderr, "grade: %s (%s) is in use by another grading run on this machine: waiting for it\n", label.c_str(), name.c_str());
            });
        w.gate = gate;
        std::shared_ptr<ReferencePool>& pool = pools[name];
        if (!pool) pool = std::make_shared<ReferencePool>();
        w.reference_pool = pool;
        w.setup.reference_pool = pool.get();  // (each lane's setup is a copy of it)
        for (size_t j = 0; j < lanes_per_gpu_; ++j) {
            Lane lane;
            lane.worker = k;
            lane.index = j;
            lane.setup = w.setup;
            if (j > 0) {
                lane.setup.priv = w.setup.priv + "/lane" + std::to_string(j);
                make_dirs(lane.setup.priv);
                chmod(lane.setup.priv.c_str(), 0700);
                if (lane.setup.iso.changes_user()) {
                    lane.identity = claim_sandbox_identity(kSandboxUid, kSandboxGid, kSandboxIdentities, sandbox_.lock_dir);
                    lane.setup.iso.uid = lane.identity.uid;
                    lane.setup.iso.gid = lane.identity.gid;
                }
                if (!w.setup.reference.program.empty())
                    place_reference(lane.setup, setup_.work + "/.selftest-worker" + std::to_string(k) + "-lane" + std::to_string(j), setup_.info.sol,
                                    w.setup.reference.args[1], w.setup.reference.args[3]);
            }
            lanes_.push_back(std::move(lane));
        }
    }
    if (lanes_per_gpu_ > 1)
        std::fprintf(stderr, "grade: %zu submissions at once on each GPU (--per-gpu %s): untimed tests share it, timed tests have it alone\n",
                     lanes_per_gpu_, setup_.cfg.per_gpu ? std::to_string(setup_.cfg.per_gpu).c_str() : "auto");
}

// Before grading, each GPU runs the reference: outside the sandbox (its name and driver, for the
// reports), and in the sandbox as a student's program will run there (the first GPU's was the
// self-test). A GPU that fails is named, and grading does not start.
void Workers::check_gpu(Worker& w) {
    const auto [variant, small] = self_test_.reference_case();
    const std::string label = gpu_label(w), device_json = w.setup.priv + "/device.json";
    const std::string leave_out = ": check it (nvidia-smi), or leave it out of --gpus";
    unlink(device_json.c_str());
    TurnLocks gpu = lock_gpu_of(w.setup, sandbox_.lock_dir, label);
    const RunResult plain =
        self_test_.run_reference_outside_sandbox(w.setup, variant, small, device_json, {"CUDA_VISIBLE_DEVICES=" + w.setup.cuda_visible_devices});
    if (plain.exit_code == cudalabs::kExitNoGpu)
        throw std::runtime_error(label + ": CUDA cannot use it (" + clip(plain.err, 500) + ")" + leave_out);
    if (!plain.ok())
        throw std::runtime_error(label + ": the reference solution fails on it (" + plain.describe() + "): " + clip(plain.out + plain.err, 1500) +
                                 leave_out);
    try {
        read_device(w.setup, device_json);
        w.name = json::parse(read_file(device_json)).at("device").at("name").get<std::string>();
    } catch (const std::exception& e) {
        throw std::runtime_error(label + ": " + e.what());
    }
    // Each worker's own reference run in the sandbox (as its user, on its GPU): the self-test's
    // for the first, and what decides a failure that persists (runs.h, reference_runs_in_sandbox).
    place_reference(w.setup, setup_.work + "/.selftest-worker" + std::to_string(w.slot), setup_.info.sol, variant, small);
    if (w.slot > 0) {
        SandboxCheck check = run_reference_in_sandbox({setup_, w.setup, self_test_.no_submission()});
        if (const std::string failure = self_test_.why_not_working(check); !failure.empty() && !w.setup.iso.devices.empty()) {
            // As in the self-test: with the whole /dev rather than not at all.
            std::fprintf(stderr, "grade: %s: %s\n", label.c_str(), whole_dev_because(failure).c_str());
            w.setup.iso.devices.clear();
            w.setup.cuda_visible_devices = pinned_device(w.gpu, std::getenv("CUDA_VISIBLE_DEVICES"));
            check = run_reference_in_sandbox({setup_, w.setup, self_test_.no_submission()});
        }
        if (!check.failure.empty())
            throw std::runtime_error(label + " (" + w.name + "): " + check.failure + " (" + w.setup.iso.describe() + ")\n" + leave_out.substr(2));
        if (setup_.trace_ok && !self_test_.reference_kernels_seen(check.run))
            throw std::runtime_error(label + " (" + w.name + "): the kernel trace recorded no kernel of the reference there, as it did on GPU " +
                                     std::to_string(workers_[0].gpu) + leave_out);
    }
    std::fprintf(stderr, "grade: %s: %s: the reference runs there%s\n", label.c_str(), w.setup.device.c_str(),
                 w.slot > 0 ? " in the sandbox" : "");
}

// "GPU 1 lane 2" (with --gpus), "lane 2" (without), "GPU 1" (one lane a GPU).
std::string Workers::lane_name(const Worker& w, const Lane& lane) const {
    std::string name = w.gpu >= 0 ? worker_name(w) : "";
    if (lanes_per_gpu_ > 1) name += (name.empty() ? "" : " ") + std::string("lane ") + std::to_string(lane.index);
    return name.empty() ? "GPU" : name;
}

}  // namespace grading
