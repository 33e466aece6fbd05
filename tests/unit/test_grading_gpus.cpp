// Grading on several GPUs (grading/src/gpu/gpus.h, class_results.h): the --gpus list and its
// refusals, the GPUs it names against those CUDA shows (within CUDA_VISIBLE_DEVICES), the value
// that pins a run to one GPU, the handing out of a class to one worker per GPU (each submission
// exactly once), and the class's files written in class order whatever order the submissions
// finish in.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include "args.h"
#include "grading/src/class/class_results.h"
#include "grading/src/gpu/gpus.h"
#include "grading/src/class/results.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"
#include "grading_fixtures.h"

using namespace grading;
using namespace grading_fixtures;
using nlohmann::json;

namespace {

std::string usage_error(const std::string& text) {
    return error_from<cudalabs::UsageError>([&] { parse_gpu_list(text); });
}

std::string resolve_error(const std::string& text, int count, const char* visible = nullptr) {
    return error_from<cudalabs::UsageError>([&] { resolve_gpus(parse_gpu_list(text), count, visible); });
}

Rubric sample_rubric() {
    return rubric_of({test_spec("correct", "Correctness", 20), test_spec("perf", "Performance", 10, TestKind::Performance)});
}

// A class of `n` results, with rejections and multi-line outputs among them.
std::vector<StudentResult> sample_class(size_t n) {
    std::vector<StudentResult> c;
    for (size_t i = 0; i < n; ++i) {
        StudentResult r;
        r.student = "s" + std::to_string((i * 37) % 101) + "_" + std::to_string(i);  // not in sorted order
        r.file = "vector_add.cu";
        r.sha256 = std::string(64, static_cast<char>('a' + i % 6));
        r.compiled = i % 7 != 3;
        if (!r.compiled) r.rejected = "compile error:\nline " + std::to_string(i) + ", \"quoted\"";
        r.tests = {{"correct", "Correctness", static_cast<double>(i % 21), 20, Visibility::Visible, "rows of " + r.student + "\n", false},
                   {"perf", "Performance", static_cast<double>(i % 11), 10, Visibility::Hidden, "timed\n", false}};
        r.execution_time_s = 2.0 + static_cast<double>(i);
        c.push_back(r);
    }
    return c;
}

// Writes the class with ClassResults, `workers` at once, each submission after a random delay.
void write_class(const std::string& dir, const std::vector<StudentResult>& c, const Rubric& rubric, size_t workers,
                 std::vector<size_t>* finish_order = nullptr) {
    make_dirs(dir + "/feedback");
    make_dirs(dir + "/results");
    ClassResults book(dir, rubric, "Lab 01", ids_of(c));
    book.begin(R"({"event":"run","seed":42})");
    std::mutex m;
    distribute(c.size(), workers, [&](size_t worker, size_t i) {
        if (workers > 1) {
            std::mt19937 rng(static_cast<unsigned>(i * 7919 + worker));
            std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
        }
        book.finish(i, c[i], audit_line(c[i]));
        std::lock_guard<std::mutex> lock(m);
        if (finish_order) finish_order->push_back(i);
    });
    book.end();
}

}  // namespace

TEST_CASE("--gpus takes all or a list of indices") {
    CHECK(parse_gpu_list("all").all);
    CHECK(parse_gpu_list(" all ").all);
    CHECK(parse_gpu_list("all").given);
    CHECK(parse_gpu_list("0").indices == std::vector<int>{0});
    CHECK(parse_gpu_list("0,2,3").indices == std::vector<int>{0, 2, 3});
    CHECK(parse_gpu_list("3,1").indices == std::vector<int>{3, 1});  // the order given
    CHECK(parse_gpu_list("1, 3").indices == std::vector<int>{1, 3});
    CHECK(parse_gpu_list("0,2").text == "0,2");
    CHECK_FALSE(parse_gpu_list("0").all);
    CHECK_FALSE(GpuRequest().given);
}

TEST_CASE("a bad --gpus list is refused, saying what is wrong") {
    for (const char* bad : {"", " ", ",", "0,", ",1", "0,,1", "a", "all,1", "-1", "1.5", "0x1", "+1", "0,0", "2,1,2", "1024", "99999", "1 2"})
        CHECK_MESSAGE(!usage_error(bad).empty(), "accepted: '" << bad << "'");
    CHECK(usage_error("0,0").find("GPU 0 is given twice") != std::string::npos);
    CHECK(usage_error("2,1,2").find("GPU 2 is given twice") != std::string::npos);
    CHECK(usage_error("0,,1").find("empty entry") != std::string::npos);
    CHECK(usage_error("x").find("'x' is not a GPU index") != std::string::npos);
    CHECK(usage_error("-1").find("'-1' is not a GPU index") != std::string::npos);
    CHECK(usage_error("1024").find("too large") != std::string::npos);
    CHECK(usage_error("").find("--gpus takes 'all'") != std::string::npos);
}

TEST_CASE("only where sharing is allowed may a GPU take several workers, and the request says so") {
    const GpuRequest shared = parse_gpu_list("0,0", true);
    CHECK(shared.indices == std::vector<int>{0, 0});
    CHECK(shared.shared);
    CHECK(parse_gpu_list("1,0,1", true).indices == std::vector<int>{1, 0, 1});
    CHECK_FALSE(parse_gpu_list("0,1", true).shared);  // allowed, not used
    CHECK_FALSE(parse_gpu_list("all", true).shared);
    CHECK_FALSE(parse_gpu_list("0,1").shared);
    CHECK(usage_error("0,0").find("given twice") != std::string::npos);  // not allowed: refused as before
    CHECK(resolve_gpus(parse_gpu_list("0,0", true), 1, nullptr) == std::vector<int>{0, 0});
    CHECK_THROWS_AS(resolve_gpus(parse_gpu_list("0,1,1", true), 1, nullptr), cudalabs::UsageError);  // GPU 1 is still checked
}

TEST_CASE("the GPUs --gpus names are checked against those CUDA shows") {
    CHECK(resolve_gpus(parse_gpu_list("all"), 2, nullptr) == std::vector<int>{0, 1});
    CHECK(resolve_gpus(parse_gpu_list("all"), 1, nullptr) == std::vector<int>{0});
    CHECK(resolve_gpus(parse_gpu_list("1,0"), 2, nullptr) == std::vector<int>{1, 0});
    CHECK(resolve_gpus(parse_gpu_list("0,2,3"), 8, nullptr) == std::vector<int>{0, 2, 3});
    const std::string none = resolve_error("0,2", 2);
    CHECK(none.find("there is no GPU 2") != std::string::npos);
    CHECK(none.find("2 GPUs (indices 0 to 1)") != std::string::npos);
    CHECK(resolve_error("1", 1).find("1 GPU (index 0)") != std::string::npos);
    CHECK(resolve_error("all", 0).find("no GPU") != std::string::npos);
    // Within CUDA_VISIBLE_DEVICES, indices count its entries, as CUDA does.
    const std::string within = resolve_error("2", 2, "4,6");
    CHECK(within.find("there is no GPU 2") != std::string::npos);
    CHECK(within.find("CUDA_VISIBLE_DEVICES=4,6") != std::string::npos);
    CHECK(resolve_gpus(parse_gpu_list("1"), 2, "4,6") == std::vector<int>{1});
}

TEST_CASE("a run is pinned to its GPU through CUDA_VISIBLE_DEVICES, relative to the grader's own") {
    CHECK(pinned_device(0, nullptr) == "0");
    CHECK(pinned_device(3, nullptr) == "3");
    CHECK(pinned_device(1, "4,6") == "6");
    CHECK(pinned_device(0, " GPU-8f6e , GPU-1a2b") == "GPU-8f6e");
    CHECK(pinned_device(1, "MIG-aa,MIG-bb") == "MIG-bb");
    CHECK(visible_device_entries("").empty());
    CHECK(visible_device_entries(" ").empty());
    CHECK(visible_device_entries("0,1").size() == 2);
    std::vector<std::string> env = {"PATH=/bin", "CUDA_VISIBLE_DEVICES=0,1", "CUDA_VISIBLE_DEVICES_X=7"};
    set_env(env, "CUDA_VISIBLE_DEVICES", "1");
    CHECK(env == std::vector<std::string>{"PATH=/bin", "CUDA_VISIBLE_DEVICES_X=7", "CUDA_VISIBLE_DEVICES=1"});
    set_env(env, "HOME", "/w");
    CHECK(env.back() == "HOME=/w");
}

TEST_CASE("the GPUs are counted from the harness's message, or from nvidia-smi -L") {
    // common/gpu.cu's message for a --device that does not exist.
    CHECK(parse_device_count("error: --device 1023 does not exist: this machine has 2 CUDA device(s), numbered from 0\n") == 2);
    CHECK(parse_device_count("this machine has 8 CUDA device(s)") == 8);
    CHECK(parse_device_count("no usable CUDA GPU (no CUDA device found)") == -1);
    CHECK(parse_device_count("") == -1);
    const std::string smi =
        "GPU 0: NVIDIA H200 (UUID: GPU-8f6e0000)\n"
        "GPU 1: NVIDIA H200 (UUID: GPU-1a2b0000)\n"
        "  MIG 3g.71gb     Device  0: (UUID: MIG-aa)\n";
    CHECK(count_nvidia_smi_gpus(smi) == 2);
    CHECK(count_nvidia_smi_gpus("No devices were found\n") == 0);
}

TEST_CASE("the class is handed out: every submission exactly once, to every worker") {
    for (size_t workers : {1, 2, 3, 8}) {
        CAPTURE(workers);
        const size_t n = 150;
        std::vector<std::atomic<int>> times(n);
        std::mutex m;
        std::map<size_t, size_t> per_worker;
        std::set<std::thread::id> threads;
        std::vector<size_t> order;
        distribute(n, workers, [&](size_t w, size_t i) {
            std::this_thread::sleep_for(std::chrono::microseconds(200 + (i * 31 + w * 17) % 500));
            ++times[i];
            std::lock_guard<std::mutex> lock(m);
            ++per_worker[w];
            threads.insert(std::this_thread::get_id());
            order.push_back(i);
        });
        for (size_t i = 0; i < n; ++i) CHECK(times[i] == 1);
        CHECK(order.size() == n);
        CHECK(per_worker.size() == workers);  // each GPU graded some
        for (const auto& kv : per_worker) CHECK(kv.first < workers);
        if (workers == 1) {
            CHECK(std::is_sorted(order.begin(), order.end()));  // one GPU: in class order, on the caller's thread
            CHECK(threads == std::set<std::thread::id>{std::this_thread::get_id()});
        }
    }
    // A class smaller than the number of GPUs, and an empty one.
    std::atomic<int> calls{0};
    distribute(2, 4, [&](size_t, size_t) { ++calls; });
    CHECK(calls == 2);
    distribute(0, 4, [&](size_t, size_t) { ++calls; });
    CHECK(calls == 2);
}

TEST_CASE("a worker's failure stops the handing out and is raised once the others have finished") {
    std::atomic<int> calls{0}, running{0};
    bool thrown = false;
    try {
        distribute(1000, 4, [&](size_t, size_t i) {
            ++running;
            ++calls;
            std::this_thread::sleep_for(std::chrono::microseconds(300));
            --running;
            if (i == 5) throw std::runtime_error("GPU fell off the bus");
        });
    } catch (const std::runtime_error& e) {
        thrown = std::string(e.what()) == "GPU fell off the bus";
        CHECK(running == 0);  // every call under way had ended
    }
    CHECK(thrown);
    CHECK(calls < 1000);
}

TEST_CASE("results are written in class order whatever order the submissions finish in") {
    const Rubric rubric = sample_rubric();
    const std::vector<StudentResult> c = sample_class(40);
    TempDir t;
    // An earlier run's block in the same folder stays as it was.
    const std::string earlier = "{\"event\":\"run\",\"seed\":7}\n{\"event\":\"submission\",\"student\":\"old\"}\n";
    for (const char* d : {"/one", "/many"}) {
        make_dirs(t.path + d);
        write_file(t.path + d + "/audit.jsonl", earlier);
    }
    write_class(t.path + "/one", c, rubric, 1);
    std::vector<size_t> order;
    write_class(t.path + "/many", c, rubric, 4, &order);
    CHECK_FALSE(std::is_sorted(order.begin(), order.end()));  // they did finish out of order
    const auto one = tree_of(t.path + "/one"), many = tree_of(t.path + "/many");
    CHECK(one.size() == 2 * c.size() + 2);  // feedback and results per student, gradebook, audit log
    CHECK(many.size() == one.size());
    for (const auto& kv : one) {
        CAPTURE(kv.first);
        REQUIRE(many.count(kv.first));
        CHECK(many.at(kv.first) == kv.second);
    }
    CHECK(one.at("audit.jsonl").rfind(earlier, 0) == 0);
    std::ostringstream csv;
    write_gradebook(csv, c, rubric);
    CHECK(one.at("gradebook.csv") == csv.str());
}

TEST_CASE("while a class is graded, the gradebook holds those finished so far, in class order") {
    const Rubric rubric = sample_rubric();
    const std::vector<StudentResult> c = sample_class(6);
    TempDir t;
    make_dirs(t.path + "/feedback");
    make_dirs(t.path + "/results");
    ClassResults book(t.path, rubric, "Lab 01", ids_of(c));
    book.begin("{\"event\":\"run\"}");
    CHECK(book.finish(4, c[4], audit_line(c[4])) == 1);
    CHECK(book.finish(1, c[1], audit_line(c[1])) == 2);
    std::ostringstream so_far;
    write_gradebook(so_far, {c[1], c[4]}, rubric);
    CHECK(read_file(t.path + "/gradebook.csv") == so_far.str());
    CHECK(exists(t.path + "/feedback/" + c[4].student + ".md"));
    CHECK_FALSE(exists(t.path + "/feedback/" + c[0].student + ".md"));
    // The audit log holds them as they finished until the end.
    CHECK(read_file(t.path + "/audit.jsonl") == "{\"event\":\"run\"}\n" + audit_line(c[4]) + "\n" + audit_line(c[1]) + "\n");
    CHECK_THROWS(book.finish(4, c[4], audit_line(c[4])));  // never twice
    CHECK_THROWS(book.end());                            // not before the class has finished
    // A row that comes last in class order is appended, one before it rewrites the file: either
    // way it holds those finished so far, in class order.
    std::vector<StudentResult> finished = {c[1], c[4]};
    for (size_t i : {5, 0, 3, 2}) {
        book.finish(i, c[i], audit_line(c[i]));
        finished.push_back(c[i]);
        std::vector<StudentResult> in_class_order;
        for (const StudentResult& r : c)
            if (std::any_of(finished.begin(), finished.end(), [&](const StudentResult& f) { return f.student == r.student; }))
                in_class_order.push_back(r);
        std::ostringstream now;
        write_gradebook(now, in_class_order, rubric);
        CHECK(read_file(t.path + "/gradebook.csv") == now.str());
    }
    book.end();
    std::string in_order = "{\"event\":\"run\"}\n";
    for (const StudentResult& r : c) in_order += audit_line(r) + "\n";
    CHECK(read_file(t.path + "/audit.jsonl") == in_order);
    CHECK_FALSE(exists(t.path + "/audit.jsonl.tmp"));
    CHECK(book.results().size() == c.size());
    CHECK(book.results()[2].student == c[2].student);
}

TEST_CASE("a class with no submission (an empty shard) has a gradebook of its head alone") {
    const Rubric rubric = sample_rubric();
    TempDir t;
    ClassResults book(t.path, rubric, "Lab 01", {});
    book.begin("{\"event\":\"run\"}");
    book.end();
    std::ostringstream head;
    write_gradebook(head, {}, rubric);
    CHECK(read_file(t.path + "/gradebook.csv") == head.str());
}
