// Grading throughput (grading/src/gpu/gpu_turns.h, build/build_cache.h, util/breakdown.h):
// lanes that share a GPU for untimed tests while a timed test has it alone, scheduled with a fake
// runner; a run that fails while shared settled alone; the lanes --per-gpu auto picks; the
// machine-wide lock taken shared; the key of a reused build and the cache's hand-over between
// compile threads; the time breakdown's line and table.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "grading/src/compile/build.h"
#include "grading/src/compile/build_cache.h"
#include "grading/src/judge/timing.h"
#include "grading/src/gpu/gpu_turns.h"
#include "grading/src/gpu/gpus.h"
#include "grading/src/gpu/gpu_locks.h"
#include "grading/src/util/breakdown.h"
#include "grading/src/isolation/isolation.h"
#include "grading/src/util/files.h"
#include "grading/src/util/text.h"

using namespace grading;

namespace {

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// What a fake GPU saw: how many runs at once, and whether a timed run ever had company.
struct FakeGpu {
    std::mutex m;
    int shared_now = 0, alone_now = 0, most_shared = 0;
    bool timed_with_company = false, shared_beside_alone = false;
    void begin(bool alone) {
        std::lock_guard<std::mutex> lock(m);
        if (alone) {
            if (shared_now > 0 || alone_now > 0) timed_with_company = true;
            ++alone_now;
        } else {
            if (alone_now > 0) shared_beside_alone = true;
            most_shared = std::max(most_shared, ++shared_now);
        }
    }
    void end(bool alone) {
        std::lock_guard<std::mutex> lock(m);
        --(alone ? alone_now : shared_now);
    }
};

// One untimed run on the fake GPU, as the lane's turn has it (a turn kept alone shared again, and
// making way first, as run_program does).
void fake_run(GpuTurn& turn, FakeGpu& gpu, int ms) {
    turn.share_again();
    turn.make_way();
    const bool alone = !turn.sharing();
    gpu.begin(alone);
    pause_ms(ms);
    gpu.end(alone);
}

// Grades `subs` fake submissions of `tests` (true: timed) on `lanes` lanes of one GPU, as the
// grader does: distribute() hands them out, each test takes test_turn() (a timed test's with the
// GPU's ticket), a timed test takes the
// GPU alone around each timed process and verifies it shared; with one lane the submission holds
// the GPU alone for all its tests.
std::vector<int> fake_class(size_t subs, size_t lanes, const std::vector<bool>& tests, FakeGpu& gpu) {
    GpuGate gate("fake-gpu", "");
    std::vector<int> graded(subs, 0);
    std::mutex m;
    distribute(subs, lanes, [&](size_t, size_t i) {
        GpuTurn whole;
        if (lanes == 1) whole = GpuTurn(gate, true);
        for (bool timed : tests) {
            GpuTurn turn = test_turn(gate, &whole, timed);
            GpuTurn& mine = turn.held() ? turn : whole;
            CHECK(mine.sharing() == (lanes > 1));
            for (int run = 0; run < 2; ++run) {
                if (timed)  // the reference's run and the student's, back to back in one turn alone
                    for (int process = 0; process < 2; ++process)
                        mine.run_alone(
                            [&] {
                                gpu.begin(true);
                                pause_ms(2);
                                gpu.end(true);
                            },
                            true);
                fake_run(mine, gpu, 2);
                CHECK(mine.sharing() == (lanes > 1));  // the verifier shares the GPU again
            }
        }
        std::lock_guard<std::mutex> lock(m);
        ++graded[i];
    });
    return graded;
}

}  // namespace

TEST_CASE("lanes: tests share the GPU up to the lanes, a timed process always has it alone") {
    FakeGpu gpu;
    const std::vector<int> graded = fake_class(24, 4, {false, false, true, false}, gpu);
    CHECK(std::all_of(graded.begin(), graded.end(), [](int n) { return n == 1; }));  // each exactly once
    CHECK_FALSE(gpu.timed_with_company);
    CHECK_FALSE(gpu.shared_beside_alone);
    CHECK(gpu.most_shared > 1);   // they did share
    CHECK(gpu.most_shared <= 4);  // bounded by the lanes
}

TEST_CASE("lanes: a shared turn makes way between its runs for a turn waiting to be alone") {
    GpuGate gate("fake-gpu", "");
    GpuTurn lane(gate, false);
    lane.make_way();  // no one waits: it keeps its turn
    CHECK(gate.sharing() == 1);
    std::atomic<bool> timed_done{false};
    std::thread timed([&] {
        GpuTurn t(gate, true);
        CHECK(gate.sharing() == 0);
        pause_ms(20);
        timed_done = true;
    });
    while (!gate.alone_waiting()) pause_ms(1);
    CHECK_FALSE(timed_done.load());  // it waits for the lane's run under way
    lane.make_way();                 // between runs: it steps out, the timed turn goes, it shares again
    CHECK(timed_done.load());
    CHECK(lane.sharing());
    CHECK(gate.sharing() == 1);
    timed.join();
}

namespace {
// A clock reader that notes whether the GPU was alone when it was read.
class GateClocks : public ClockReader {
public:
    GateClocks(const GpuGate& gate, std::vector<std::string>& order) : gate_(gate), order_(order) {}
    GpuClocks read() override {
        order_.push_back(gate_.alone() && gate_.sharing() == 0 ? "clocks alone" : "clocks shared");
        return {};
    }

private:
    const GpuGate& gate_;
    std::vector<std::string>& order_;
};
}  // namespace

namespace {
// The lane's AloneTurn as the performance test has it (run_with_gpu_alone): gated on a shared
// turn, made again whole where the gate was not opened.
AloneTurn lane_alone(GpuTurn& turn) {
    return [&turn](const GatedRun& process, const std::function<void()>& on_alone, const std::function<void()>& on_done) {
        run_timed_alone(
            &turn,
            [&](const std::function<void()>& take) {
                TimingGate gate;
                gate.open = [&] {
                    take();
                    on_alone();
                };
                process(&gate);
                if (gate.opened) on_done();
                return gate.opened;
            },
            [&] {
                on_alone();
                process(nullptr);
                on_done();
            });
    };
}

const char* where(const GpuGate& gate) { return gate.alone() && gate.sharing() == 0 ? "alone" : "shared"; }
}  // namespace

TEST_CASE("a timed run: started shared with the ticket, the GPU alone from its gate to its end, the clocks read inside, its verifier shared") {
    GpuGate gate("fake-gpu", "");
    GpuTurn turn(gate, false);
    GpuTurn other(gate, false);  // another lane's run under way
    std::vector<std::string> order;
    GateClocks clocks(gate, order);
    std::atomic<bool> setup_done{false};
    std::thread other_lane([&] {
        while (!setup_done) pause_ms(1);
        pause_ms(20);
        order.push_back("other lane's run ended");
        other.release();
    });
    std::vector<TimedSample> samples;
    const bool timed = sample_between_clock_readings(clocks, 1, false, lane_alone(turn), [&](double& ms, const TimedProcess& process) {
        CHECK(turn.sharing());
        process([&](TimingGate* g) {
            REQUIRE(g != nullptr);
            order.push_back(std::string("setup ") + where(gate));
            setup_done = true;
            g->open();  // as the channel's reader does at TIMING_READY
            g->opened = true;
            order.push_back(std::string("repetitions ") + where(gate));
        });
        turn.share_again();  // as the verifier's run does first (run_program)
        order.push_back(turn.sharing() && !gate.alone() ? "verifier shared" : "verifier alone");
        ms = 1.5;
        return true;
    }, samples);
    other_lane.join();
    CHECK(timed);
    CHECK(order == std::vector<std::string>{"setup shared", "other lane's run ended", "clocks alone", "repetitions alone", "clocks alone",
                                            "verifier shared"});
    REQUIRE(samples.size() == 1);
    CHECK(samples[0].ms_per_rep == 1.5);
    CHECK(gate.sharing() == 1);  // the lane's own shared turn, taken again
}

TEST_CASE("a timed run that did not wait at its gate is made again, with the GPU alone from its start") {
    GpuGate gate("fake-gpu", "");
    GpuTurn turn(gate, false);
    std::vector<std::string> order;
    GateClocks clocks(gate, order);
    int made = 0;
    std::vector<TimedSample> samples;
    sample_between_clock_readings(clocks, 1, false, lane_alone(turn), [&](double& ms, const TimedProcess& process) {
        process([&](TimingGate* g) {
            ++made;
            // The first run began timing without asking (or failed before it): its gate stays shut.
            order.push_back(std::string(g ? "gated run " : "whole run ") + where(gate));
        });
        ms = 1;
        return true;
    }, samples);
    CHECK(made == 2);
    CHECK(order == std::vector<std::string>{"gated run shared", "clocks alone", "whole run alone", "clocks alone"});
}

TEST_CASE("run_timed_alone: without a shared turn the process runs whole, gated never") {
    GpuGate gate("fake-gpu", "");
    GpuTurn whole(gate, true);  // one lane a GPU: the submission has it alone
    GpuTurn none;               // its tests' turns
    int gated = 0, whole_runs = 0;
    run_timed_alone(&none, [&](const std::function<void()>&) { return ++gated > 0; }, [&] { ++whole_runs; });
    run_timed_alone(nullptr, [&](const std::function<void()>&) { return ++gated > 0; }, [&] { ++whole_runs; });
    CHECK(gated == 0);
    CHECK(whole_runs == 2);
}

TEST_CASE("lanes: one lane a GPU grades one submission at a time, every test alone") {
    FakeGpu gpu;
    const std::vector<int> graded = fake_class(6, 1, {false, true}, gpu);
    CHECK(std::count(graded.begin(), graded.end(), 1) == 6);
    CHECK(gpu.most_shared == 0);
    CHECK_FALSE(gpu.timed_with_company);
}

TEST_CASE("lanes: a turn waiting to be alone keeps new shared turns out (a timed test is not starved)") {
    GpuGate gate("fake-gpu", "");
    GpuTurn first(gate, false);
    std::atomic<bool> alone_had{false}, later_shared_had{false};
    std::thread timed([&] {
        GpuTurn t(gate, true);
        alone_had = true;
        CHECK(gate.sharing() == 0);
        pause_ms(30);
    });
    pause_ms(30);  // the timed turn now waits for `first`
    std::thread later([&] {
        GpuTurn t(gate, false);
        later_shared_had = true;
        CHECK(alone_had.load());  // it came after the timed turn, not before
    });
    pause_ms(30);
    CHECK_FALSE(alone_had.load());
    CHECK_FALSE(later_shared_had.load());
    first.release();
    timed.join();
    later.join();
    CHECK(later_shared_had.load());
}

TEST_CASE("a run that fails while the GPU is shared is settled with the GPU alone; a clean one counts as it is") {
    GpuGate gate("fake-gpu", "");
    GpuTurn turn(gate, false);
    GpuTurn other(gate, false);  // another lane's test under way
    std::atomic<bool> other_done{false};
    int once = 0, settled = 0;
    const std::function<bool(const std::string&)> clean = [](const std::string& r) { return r == "pass"; };

    // A clean run made while shared counts; the run alone is never made.
    std::string r = shared_or_alone<std::string>(&turn, [&] { ++once; return std::string("pass"); },
                                                 [&] { ++settled; return std::string("alone"); }, clean);
    CHECK(r == "pass");
    CHECK(once == 1);
    CHECK(settled == 0);

    // A time-out while shared (a busy GPU) is not the student's: the run alone decides.
    std::thread finish_other([&] {
        pause_ms(30);
        other_done = true;
        other.release();
    });
    r = shared_or_alone<std::string>(&turn, [&] { ++once; return std::string("timed out"); },
                                     [&] {
                                         ++settled;
                                         CHECK(other_done.load());  // it waited for the other lane's test
                                         CHECK(gate.alone());
                                         CHECK(gate.sharing() == 0);
                                         return std::string("pass");
                                     },
                                     clean);
    finish_other.join();
    CHECK(r == "pass");
    CHECK(once == 2);
    CHECK(settled == 1);
    CHECK(turn.sharing());  // shared again afterwards
    CHECK(gate.sharing() == 1);

    // Without a shared turn (alone, or no turn) the settled path alone runs.
    GpuTurn none;
    r = shared_or_alone<std::string>(&none, [&] { ++once; return std::string("pass"); }, [&] { ++settled; return std::string("alone"); }, clean);
    CHECK(r == "alone");
    CHECK(once == 2);
    r = shared_or_alone<std::string>(nullptr, [&] { ++once; return std::string("pass"); }, [&] { ++settled; return std::string("alone"); }, clean);
    CHECK(r == "alone");
    CHECK(once == 2);
}

TEST_CASE("--per-gpu auto: bounded by memory, SMs, CPUs and 8; one where the compute mode is not Default") {
    CHECK(auto_lanes_per_gpu(79.1, 132, 16, 1, "Default") == 7);   // an H100 with 16 CPUs: memory bounds it
    CHECK(auto_lanes_per_gpu(139.8, 132, 64, 1, "Default") == 8);  // an H200: at most 8
    CHECK(auto_lanes_per_gpu(79.1, 132, 16, 2, "Default") == 4);   // 16 CPUs for two GPUs
    CHECK(auto_lanes_per_gpu(79.1, 132, 2, 1, "Default") == 1);
    CHECK(auto_lanes_per_gpu(15.6, 40, 32, 1, "Default") == 1);    // a T4: 15 GiB, 40 SMs
    CHECK(auto_lanes_per_gpu(23.6, 58, 32, 1, "Default") == 2);
    CHECK(auto_lanes_per_gpu(79.1, 132, 16, 1, "Exclusive_Process") == 1);
    CHECK(auto_lanes_per_gpu(79.1, 132, 16, 1, "Prohibited") == 1);
    CHECK(auto_lanes_per_gpu(79.1, 132, 16, 1, "") == 1);  // nvidia-smi could not say
}

TEST_CASE("the GPU's machine-wide lock: shared holders together, an exclusive one alone") {
    const std::string folder = "/tmp/cudalabs-throughput-locks-" + std::to_string(getpid());
    make_dirs(folder);
    bool waited = false;
    TurnLocks a = lock_gpu("GPU-1", folder, TurnKind::Shared, [&] { waited = true; });
    TurnLocks b = lock_gpu("GPU-1", folder, TurnKind::Shared, [&] { waited = true; });
    CHECK_FALSE(waited);  // two shared holders at once
    std::atomic<bool> exclusive_waited{false}, exclusive_got{false};
    std::thread exclusive([&] {
        TurnLocks e = lock_gpu("GPU-1", folder, TurnKind::Alone, [&] { exclusive_waited = true; });
        exclusive_got = true;
    });
    pause_ms(100);
    CHECK(exclusive_waited.load());
    CHECK_FALSE(exclusive_got.load());
    a.release();
    pause_ms(50);
    CHECK_FALSE(exclusive_got.load());  // b still shares it
    b.release();
    exclusive.join();
    CHECK(exclusive_got.load());
    // Through the gate: a shared turn takes the file shared, so an exclusive holder elsewhere waits.
    GpuGate gate("GPU-2", folder);
    GpuTurn t1(gate, false), t2(gate, false);
    bool other_waited = false;
    std::thread other([&] { TurnLocks e = lock_gpu("GPU-2", folder, TurnKind::Alone, [&] { other_waited = true; }); });
    pause_ms(100);
    t1.release();
    t2.release();
    other.join();
    CHECK(other_waited);
    remove_tree(folder);
}

TEST_CASE("the GPU's machine-wide lock: shared takers who come after an exclusive one wait behind it") {
    const std::string folder = "/tmp/cudalabs-throughput-door-" + std::to_string(getpid());
    make_dirs(folder);
    TurnLocks first = lock_gpu("GPU-1", folder, TurnKind::Shared);
    std::atomic<bool> exclusive_got{false}, exclusive_done{false}, later_got{false};
    std::thread exclusive([&] {
        TurnLocks e = lock_gpu("GPU-1", folder, TurnKind::Alone);
        exclusive_got = true;
        pause_ms(100);
        exclusive_done = true;
    });
    pause_ms(100);
    std::thread later([&] {  // a shared taker who comes while the exclusive one waits
        TurnLocks s = lock_gpu("GPU-1", folder, TurnKind::Shared);
        later_got = true;
        CHECK(exclusive_done.load());
    });
    pause_ms(100);
    CHECK_FALSE(later_got.load());  // flock alone would let it share with `first`
    CHECK_FALSE(exclusive_got.load());
    first.release();
    exclusive.join();
    later.join();
    CHECK(exclusive_got.load());
    CHECK(later_got.load());

    // A shared holder made exclusive: the same for shared takers who come while it waits.
    TurnLocks mine = lock_gpu("GPU-2", folder, TurnKind::Ticketed), other = lock_gpu("GPU-2", folder, TurnKind::Shared);
    CHECK(mine.ticket.held());
    CHECK_THROWS_AS(make_gpu_lock_exclusive(other, "GPU-2", folder), std::logic_error);  // no ticket: not its to upgrade
    std::atomic<bool> upgraded{false}, after_got{false};
    std::thread upgrade([&] {
        make_gpu_lock_exclusive(mine, "GPU-2", folder);
        upgraded = true;
    });
    pause_ms(100);
    std::thread after([&] {
        TurnLocks s = lock_gpu("GPU-2", folder, TurnKind::Shared);
        after_got = true;
    });
    pause_ms(100);
    CHECK_FALSE(upgraded.load());  // `other` still shares it
    CHECK_FALSE(after_got.load());
    other.release();
    upgrade.join();
    CHECK(upgraded.load());
    pause_ms(50);
    CHECK_FALSE(after_got.load());  // exclusive now
    mine.release();
    after.join();
    CHECK(after_got.load());
    remove_tree(folder);
}

TEST_CASE("the GPU's machine-wide lock: a ticketed turn made alone in place is never held up by another run waiting to take the GPU alone") {
    // Run X grades: a timed test's turn holds the ticket and shares the GPU. Run Y starts on the
    // same GPU and takes it alone to check it. X then makes its turn alone in place: Y, who must
    // take the ticket before the GPU's lock, waits for the ticket and not at the GPU's door, so X
    // passes the door, times alone, and lets Y in when it is done. In a child process, which
    // ends at once where the two would hold each other up.
    const std::string folder = "/tmp/cudalabs-throughput-no-deadlock-" + std::to_string(getpid());
    make_dirs(folder);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        TurnLocks x = lock_gpu("GPU-4", folder, TurnKind::Ticketed);
        std::atomic<bool> y_waited{false}, y_got{false}, x_alone{false};
        std::thread y([&] {
            TurnLocks alone = lock_gpu("GPU-4", folder, TurnKind::Alone, [&] { y_waited = true; });
            y_got = true;
        });
        for (int i = 0; i < 500 && !y_waited.load(); ++i) pause_ms(10);
        if (!y_waited.load()) _exit(2);
        std::thread upgrade([&] {
            make_gpu_lock_exclusive(x, "GPU-4", folder);
            x_alone = true;
        });
        for (int i = 0; i < 1000 && !x_alone.load(); ++i) pause_ms(10);
        if (!x_alone.load()) _exit(3);  // X waits for Y, who waits for X
        if (y_got.load()) _exit(4);     // Y beside X's timing
        upgrade.join();
        x.release();
        y.join();
        _exit(y_got.load() ? 0 : 5);
    }
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK_MESSAGE(WEXITSTATUS(status) == 0, "3: the two runs hold each other up; 2, 4, 5: see the child's exits");
    remove_tree(folder);
}

TEST_CASE("the GPU's door: shut for a moment (another lane passing) it says nothing; behind another run's exclusive taker it says so once") {
    const std::string folder = "/tmp/cudalabs-throughput-quiet-door-" + std::to_string(getpid());
    make_dirs(folder);
    // The door held for 50 ms, as a taker passing it holds it.
    const int door = open((folder + "/gpu-GPU-3.door").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(door >= 0);
    REQUIRE(flock(door, LOCK_EX) == 0);
    std::thread passing([&] {
        pause_ms(50);
        flock(door, LOCK_UN);
    });
    int said = 0;
    { TurnLocks s = lock_gpu("GPU-3", folder, TurnKind::Shared, [&] { ++said; }); }
    passing.join();
    close(door);
    CHECK(said == 0);

    // Behind an exclusive taker, who holds the door while it waits for the lock.
    TurnLocks holder = lock_gpu("GPU-3", folder, TurnKind::Shared);
    std::thread exclusive([&] { TurnLocks e = lock_gpu("GPU-3", folder, TurnKind::Alone); });
    pause_ms(100);
    std::atomic<int> later_said{0};
    std::thread later([&] { TurnLocks s = lock_gpu("GPU-3", folder, TurnKind::Shared, [&] { ++later_said; }); });
    pause_ms(static_cast<int>(kDoorQuietWait.count()) + 300);
    CHECK(later_said.load() == 1);
    holder.release();
    exclusive.join();
    later.join();
    CHECK(later_said.load() == 1);
    remove_tree(folder);
}

namespace {

BuildSpec key_spec() {
    BuildSpec b;
    b.lab_dir = "labs/01-vector-add";
    b.topic_file = "vector_add.cu";
    b.nvcc = "/usr/local/cuda/bin/nvcc";
    b.cuda_home = "/usr/local/cuda";
    b.nvcc_flags = {"-O3", "-std=c++17"};
    b.arch_flags = {"-arch=sm_90"};
    b.ldlibs = {"-lcuda"};
    b.trusted_objects = {"compile/grading/driver01.o"};
    b.rules.allowed_imports = {"cuda*"};
    b.rules.forbid_symbols = {"thrust::*"};
    b.import_renames = {{"cudaMemcpy", "grading_cudaMemcpy"}};
    b.output_program = "/work/alice/bin/program";
    b.stage_dir = "/work/alice/build";
    return b;
}

}  // namespace

TEST_CASE("the key of a reused build: the file's content and every build input, not the student's folders") {
    const BuildSpec base = key_spec();
    const std::string key = build_cache_key(base, "sha-a", "inputs-1");
    CHECK(key == build_cache_key(base, "sha-a", "inputs-1"));
    BuildSpec bob = base;  // another student's folders, the same file: the same build
    bob.stage_dir = "/work/bob/build";
    bob.output_program = "/work/bob/bin/program";
    CHECK(build_cache_key(bob, "sha-a", "inputs-1") == key);

    std::set<std::string> keys = {key};
    auto differs = [&](const BuildSpec& b, const std::string& sha, const std::string& inputs) {
        const bool fresh = keys.insert(build_cache_key(b, sha, inputs)).second;
        CHECK(fresh);
    };
    differs(base, "sha-b", "inputs-1");  // another file
    differs(base, "sha-a", "inputs-2");  // another toolchain or trusted header/object content
    BuildSpec b = base;
    b.lab_dir = "labs/02-reduction";
    differs(b, "sha-a", "inputs-1");
    b = base;
    b.nvcc_flags.push_back("-G");
    differs(b, "sha-a", "inputs-1");
    b = base;
    b.arch_flags = {"-arch=sm_80"};
    differs(b, "sha-a", "inputs-1");
    b = base;
    b.nvcc = "/opt/cuda-12/bin/nvcc";
    differs(b, "sha-a", "inputs-1");
    b = base;
    b.rules.forbid_symbols.push_back("cublas*");
    differs(b, "sha-a", "inputs-1");
    b = base;
    b.trusted_objects.push_back("compile/grading/shim.o");
    differs(b, "sha-a", "inputs-1");
    b = base;
    b.import_renames.clear();
    differs(b, "sha-a", "inputs-1");
}

TEST_CASE("build inputs digest: the toolchain and the contents of the files read") {
    const std::string dir = "/tmp/cudalabs-throughput-digest-" + std::to_string(getpid());
    make_dirs(dir);
    write_file(dir + "/common.h", "int a;");
    write_file(dir + "/driver.o", "object");
    const std::vector<std::string> files = {dir + "/common.h", dir + "/driver.o"};
    const std::string d = build_inputs_digest("nvcc 13.0", files);
    CHECK(d == build_inputs_digest("nvcc 13.0", files));
    CHECK(d != build_inputs_digest("nvcc 12.4", files));
    write_file(dir + "/common.h", "int b;");
    CHECK(d != build_inputs_digest("nvcc 13.0", files));
    remove_tree(dir);
}

TEST_CASE("the build cache: the first caller of a key builds it, the others wait and reuse it; an abandoned key is built again") {
    const std::string dir = "/tmp/cudalabs-throughput-cache-" + std::to_string(getpid());
    BuildCache cache(dir);
    CHECK(cache.take("k1") == nullptr);  // this caller builds k1
    std::atomic<int> reused{0};
    std::vector<std::thread> waiting;
    for (int i = 0; i < 4; ++i)
        waiting.emplace_back([&] {
            auto kept = cache.take("k1");
            if (kept && kept->keep_name == "obj-1") ++reused;
        });
    CHECK(cache.take("k2") == nullptr);  // another key is not held up
    pause_ms(30);
    CHECK(reused.load() == 0);
    CachedBuild b;
    b.keep_name = "obj-1";
    cache.store("k1", b);
    for (std::thread& t : waiting) t.join();
    CHECK(reused.load() == 4);

    cache.abandon("k2");  // k2 did not compile: the next caller builds it
    CHECK(cache.take("k2") == nullptr);
    cache.abandon("k2");
    CHECK(cache.files_folder("k1") != cache.files_folder("k2"));
    remove_tree(dir);
}

TEST_CASE("the time breakdown: a submission's line, and the class's table") {
    SubmissionTiming t;
    t.student = "alice";
    t.lane = "GPU 0 lane 1";
    t.compile_s = 4;
    t.audit_s = 0.5;
    t.link_s = 0.25;
    t.wait_gpu_s = 1;
    t.add_run(RunKind::Program, 9);  // outside any test: not counted
    t.tests.resize(2);
    t.tests[0].id = "correct";
    t.current = &t.tests[0];
    t.add_run(RunKind::Program, 2);
    t.add_run(RunKind::Program, 1);
    t.add_run(RunKind::Verifier, 0.5);
    t.add_verifier_processes(1);
    t.tests[0].wall_s = 4;
    t.tests[1].id = "memcheck";
    t.current = &t.tests[1];
    t.add_run(RunKind::Sanitizer, 1.5);
    t.add_run(RunKind::Reference, 0.5);
    t.tests[1].wall_s = 2;
    const nlohmann::json j = nlohmann::json::parse(breakdown_json(t));
    CHECK(j["student"] == "alice");
    CHECK(j["compile_s"] == 4);
    CHECK(j["tests"].size() == 2);
    CHECK(j["tests"][0]["program_s"] == 3);
    CHECK(j["tests"][0]["program_runs"] == 2);
    CHECK(j["tests"][0]["verifier_s"] == 0.5);
    CHECK(j["tests"][0]["verifier_processes"] == 1);
    CHECK(j["tests"][1]["sanitizer_runs"] == 1);
    CHECK(j["tests"][1]["reference_s"] == 0.5);

    SubmissionTiming reused = t;
    reused.build_reused = true;
    reused.compile_s = 0;
    const std::string table = breakdown_table({t, reused}, 36);
    CHECK(table.find("2 submissions, 1 builds reused") != std::string::npos);
    CHECK(table.find("compile                       4.0         2.00") != std::string::npos);
    CHECK(table.find("program runs                  6.0         3.00") != std::string::npos);
    CHECK(table.find("tests, other                  1.0         0.50") != std::string::npos);  // 4 - 3.5 in the first test, 0 in the second
    CHECK(table.find("200 submissions an hour") != std::string::npos);
    CHECK(table.find("sandbox starts") == std::string::npos);  // not measured: not shown
    // Each run opens the GPU: 2 program runs in its tests and 1 of each other kind, a submission.
    CHECK(table.find("GPU processes: 10, 5.0 a submission (program 4, sanitizer 2, reference 2, verifier 2 for 2 verifications)") !=
          std::string::npos);
    // A kept verifier (the default) answers several verifications from one process.
    SubmissionTiming kept = t;
    kept.current = &kept.tests[1];
    kept.add_run(RunKind::Verifier, 0.1);
    kept.add_run(RunKind::Verifier, 0.1);
    kept.add_verifier_processes(0);
    CHECK(breakdown_table({kept}, 36).find("(program 2, sanitizer 1, reference 1, verifier 1 for 3 verifications)") != std::string::npos);
    CHECK(breakdown_table({SubmissionTiming()}, 6).find("GPU processes") == std::string::npos);
    const std::string with_starts = breakdown_table({t, reused}, 36, 0.1);
    CHECK(with_starts.find("sandbox starts, est.          0.6         0.30   (6 runs x 0.100 s") != std::string::npos);
}

TEST_CASE("the time breakdown: a timed process's turn alone, its wait, and the class's line for them") {
    SubmissionTiming t;
    t.student = "bob";
    t.add_alone(5, 5);  // outside any test: not counted
    t.tests.resize(1);
    t.tests[0].id = "perf";
    t.current = &t.tests[0];
    t.tests[0].wait_gpu_s = 0.25;  // its shared turn's wait
    t.add_run(RunKind::Program, 1.5);
    t.add_alone(0.5, 1.5);
    t.add_run(RunKind::Reference, 1.5);
    t.add_alone(1, 1.5);
    t.add_wait(0.25);  // a run that made way for another lane's timed process
    t.tests[0].wall_s = 6;
    const nlohmann::json j = nlohmann::json::parse(breakdown_json(t));
    CHECK(j["tests"][0]["alone_s"] == 3);
    CHECK(j["tests"][0]["alone_turns"] == 2);
    CHECK(j["tests"][0]["wait_gpu_s"] == 2);
    CHECK(j["wait_gpu_s"] == 1.75);
    const std::string table = breakdown_table({t}, 6);
    CHECK(table.find("waiting for the GPU           1.8         1.75") != std::string::npos);
    CHECK(table.find("GPU alone, timed              3.0         3.00   (2 timed processes") != std::string::npos);
    CHECK(table.find("tests, other                  1.0") != std::string::npos);  // 6 - 2 waited - 3 run
    CHECK(breakdown_table({SubmissionTiming()}, 6).find("GPU alone") == std::string::npos);
}

TEST_CASE("breakdown: each run's start to its GPU open, where the run said when it opened the GPU") {
    SubmissionTiming t;
    t.tests.push_back({});
    t.current = &t.tests[0];
    t.add_run(RunKind::Program, 2, 0.75);
    t.add_run(RunKind::Reference, 1.5, 0.25);
    t.add_run(RunKind::Program, 3);  // never opened the GPU: no start to count
    const nlohmann::json j = nlohmann::json::parse(breakdown_json(t));
    CHECK(j["tests"][0]["cuda_start_s"] == 1);
    CHECK(j["tests"][0]["cuda_starts"] == 2);
    CHECK(j["tests"][0]["program_runs"] == 2);
    const std::string table = breakdown_table({t}, 7);
    CHECK(table.find("starts to the GPU open        1.0         1.00   (2 runs") != std::string::npos);
    CHECK(breakdown_table({SubmissionTiming()}, 6).find("GPU open") == std::string::npos);
}

TEST_CASE("a timed process's run inside its turn alone is settled at once (shared_or_alone), and the turn is shared again after") {
    GpuGate gate("fake-gpu", "");
    GpuTurn turn(gate, false);
    int once = 0, settled = 0;
    std::string r;
    turn.run_alone([&] {
        // As run_student sees the lane's turn while its timed process runs.
        r = shared_or_alone<std::string>(&turn, [&] { ++once; return std::string("shared"); },
                                         [&] {
                                             ++settled;
                                             CHECK(gate.alone());
                                             return std::string("alone");
                                         },
                                         [](const std::string&) { return true; });
    });
    CHECK(r == "alone");
    CHECK(once == 0);
    CHECK(settled == 1);
    CHECK(turn.sharing());
    CHECK_FALSE(gate.alone());
}

TEST_CASE("a turn kept alone: timed processes back to back wait once, and the next untimed run shares the GPU again") {
    GpuGate gate("fake-gpu", "");
    GpuTurn turn(gate, false);
    turn.run_alone(
        [&] {
            CHECK(gate.alone());
            turn.share_again();  // as a run inside the timed process does: it must keep the GPU alone
            CHECK(gate.alone());
        },
        true);
    CHECK(gate.alone());  // kept for the next timed process
    CHECK_FALSE(turn.sharing());
    std::atomic<bool> other_shared{false};
    std::thread other_lane([&] {
        GpuTurn t(gate, false);
        other_shared = true;
    });
    pause_ms(30);
    CHECK_FALSE(other_shared.load());  // kept out while the turn is alone
    bool second_alone = false;
    turn.run_alone(
        [&] {
            second_alone = gate.alone() && gate.sharing() == 0;
            turn.share_again();
            CHECK(gate.alone());
        },
        true);
    CHECK(second_alone);
    CHECK_FALSE(other_shared.load());
    turn.share_again();  // the verifier's run: shared again, the other lane goes on
    CHECK(turn.sharing());
    other_lane.join();
    CHECK(other_shared.load());
    turn.share_again();  // shared already: nothing changes
    CHECK(turn.sharing());
    CHECK(gate.sharing() == 1);

    // A turn kept alone and then given up (the test ends) frees the GPU.
    turn.run_alone([] {}, true);
    CHECK(gate.alone());
    turn.release();
    CHECK_FALSE(gate.alone());
    CHECK(gate.sharing() == 0);
    // Without keep_alone, the turn is shared again at once; with the GPU alone for the whole
    // submission (--per-gpu 1), nothing is kept or given back.
    GpuTurn shared_turn(gate, false);
    shared_turn.run_alone([] {});
    CHECK(shared_turn.sharing());
    shared_turn.release();
    GpuTurn whole(gate, true);
    whole.run_alone([] {}, true);
    whole.share_again();
    CHECK(gate.alone());
    CHECK_FALSE(whole.sharing());
}

TEST_CASE("the ticket: one timed process alive on a GPU; another waits for it before it starts, holding no turn") {
    GpuGate gate("fake-gpu", "");
    GpuTurn first(gate, false), second(gate, false), plain(gate, false);
    first.take_ticket();
    CHECK(gate.ticket_held());
    CHECK(gate.sharing() == 3);  // the ticketed turn shares the GPU with ordinary runs
    std::atomic<bool> second_ticketed{false};
    std::thread other([&] {
        second.take_ticket();  // its shared turn is left while it waits: no process of it is alive
        second_ticketed = true;
    });
    pause_ms(30);
    CHECK_FALSE(second_ticketed.load());
    CHECK(gate.sharing() == 2);
    std::thread upgrade([&] { first.take_alone(); });  // waits for the ordinary run to make way
    while (!gate.alone_waiting()) pause_ms(1);
    std::atomic<bool> plain_back{false};
    std::thread plain_lane([&] {
        plain.make_way();  // steps out; back once no timed process is alive or waits
        plain_back = true;
    });
    upgrade.join();
    CHECK(gate.alone());
    CHECK(gate.sharing() == 0);
    CHECK_FALSE(second_ticketed.load());
    first.share_again();  // its process still in the gated flow: it keeps the GPU and the ticket
    CHECK(gate.alone());
    first.end_gated();
    first.release();  // the timed process has ended, and its test: the ticket goes to the next one
    other.join();
    CHECK(second_ticketed.load());
    CHECK(gate.ticket_held());
    // The next timed process is alive: the ordinary run does not start beside it, so its gate
    // will not wait for it.
    pause_ms(30);
    CHECK_FALSE(plain_back.load());
    second.share_again();  // a ticketed turn keeps its ticket until its process has ended
    CHECK(gate.ticket_held());
    second.release();
    CHECK_FALSE(gate.ticket_held());
    plain_lane.join();
    CHECK(plain.sharing());
}

TEST_CASE("timed processes in a row: while the ticket is held or waited for no shared turn starts, so the next one waits for no new run") {
    GpuGate gate("fake-gpu", "");
    GpuTurn under_way(gate, false);  // another lane's long run (a sanitizer's, say)
    std::mutex m;
    std::vector<std::string> order;
    const auto say = [&](const std::string& what) {
        std::lock_guard<std::mutex> lock(m);
        order.push_back(what);
    };
    // Two performance tests (their turns hold the ticket from their start), each with a student's
    // timed process made alone at its gate.
    const auto timed = [&](const std::string& who) {
        GpuTurn t = test_turn(gate, nullptr, true);
        t.take_ticket();  // (held already)
        t.take_alone();
        say(who + " alone, " + std::to_string(gate.sharing()) + " sharing");
        pause_ms(10);
        t.end_gated();
        t.release();
    };
    std::thread first(timed, "first");
    while (!gate.ticket_held()) pause_ms(1);
    std::thread second(timed, "second");
    std::thread later([&] {
        pause_ms(10);  // comes while both timed processes are queued
        GpuTurn t(gate, false);
        say("new shared run");
    });
    pause_ms(40);
    CHECK(order.empty());  // the first waits for the run under way; nothing new starts beside it
    CHECK(gate.timed_waiting());
    under_way.release();  // the long run ends: the first is alone, then the second, then the rest
    first.join();
    second.join();
    later.join();
    CHECK(order == std::vector<std::string>{"first alone, 0 sharing", "second alone, 0 sharing", "new shared run"});
    CHECK_FALSE(gate.timed_waiting());
}

TEST_CASE("the ticket: a turn alone holds it too, so no timed process starts beside it") {
    GpuGate gate("fake-gpu", "");
    GpuTurn lane(gate, false);
    std::atomic<bool> ticketed{false};
    std::thread timed;
    lane.run_alone([&] {
        CHECK(gate.ticket_held());
        timed = std::thread([&] {
            GpuTurn t(gate, false);
            t.take_ticket();
            ticketed = true;
        });
        pause_ms(30);
        CHECK_FALSE(ticketed.load());
    });
    timed.join();
    CHECK(ticketed.load());
}

TEST_CASE("the ticket: a timed run made again (a retry) keeps the GPU and the ticket; they go back once the timed process is done") {
    GpuGate gate("fake-gpu", "");
    GpuTurn turn(gate, false);
    int runs = 0;
    run_timed_alone(
        &turn,
        [&](const std::function<void()>& take) {
            take();  // the first run's gate opened, then the run failed (the environment's)
            turn.share_again();  // as run_program does before the retry: nothing is given back
            CHECK(gate.alone());
            CHECK(gate.ticket_held());
            ++runs;  // the retry runs alone from its start
            return true;
        },
        [&] { FAIL("not made again whole: the gated run counted"); });
    CHECK(runs == 1);
    CHECK(gate.alone());  // kept alone after the timed process, until the next untimed run
    turn.share_again();
    CHECK(turn.sharing());
    CHECK_FALSE(gate.ticket_held());
}

TEST_CASE("back to back: a student's timed process right after the reference's runs alone from its start, with no second wait") {
    GpuGate gate("fake-gpu", "");
    GpuTurn turn(gate, false);
    std::vector<std::string> order;
    int gated_runs = 0, whole_runs = 0;
    const auto gated = [&](const std::function<void()>& take) {
        ++gated_runs;
        take();
        order.push_back(std::string("gated, timed ") + where(gate));
        return true;
    };
    const auto whole = [&] {
        ++whole_runs;
        order.push_back(std::string("whole ") + where(gate) + (gate.ticket_held() ? " with the ticket" : ""));
    };
    run_timed_alone(&turn, gated, whole);  // the reference's
    std::atomic<bool> other_shared{false};
    std::thread other_lane([&] {
        GpuTurn t(gate, false);
        other_shared = true;
    });
    pause_ms(20);
    run_timed_alone(&turn, gated, whole);  // the student's, next
    CHECK_FALSE(other_shared.load());  // no other lane's run between the two
    CHECK(order == std::vector<std::string>{"gated, timed alone", "whole alone with the ticket"});
    turn.share_again();  // its verifier: shared again, the other lane goes on
    other_lane.join();
    CHECK(other_shared.load());
    run_timed_alone(&turn, gated, whole);  // after an untimed run: started shared, gated
    CHECK(gated_runs == 2);
    CHECK(whole_runs == 1);
    turn.share_again();
    CHECK_FALSE(gate.ticket_held());
}

namespace {

// What runs on one fake GPU at a time, across every grader sharing its locks.
struct MachineGpu {
    std::atomic<int> shared_runs{0}, timed_alive{0}, timed_alone{0};
    std::atomic<bool> broken{false};
    std::atomic<int> timed_done{0}, shared_done{0}, performance_tests{0};
};

// A run settled with the GPU alone (GpuTurn::run_alone): nothing else on the GPU meanwhile.
void timed_part_alone(MachineGpu& gpu) {
    ++gpu.timed_alone;
    if (gpu.shared_runs.load() > 0 || gpu.timed_alone.load() > 1 || gpu.timed_alive.load() > 0) gpu.broken = true;
    std::this_thread::sleep_for(std::chrono::microseconds(400));
    --gpu.timed_alone;
}

// A student's timed process: its start shared holding the ticket, then its timed part alone
// (`waits`), or one that never asks at its gate and is made again whole.
void fake_student_timed(GpuTurn& turn, MachineGpu& gpu, bool waits) {
    const auto timed_part = [&] {
        ++gpu.timed_alone;
        if (gpu.shared_runs.load() > 0 || gpu.timed_alone.load() > 1) gpu.broken = true;
        std::this_thread::sleep_for(std::chrono::microseconds(500));
        --gpu.timed_alone;
    };
    run_timed_alone(
        &turn,
        [&](const std::function<void()>& take) {
            if (++gpu.timed_alive > 1) gpu.broken = true;  // two timed processes alive at once
            std::this_thread::sleep_for(std::chrono::microseconds(300));  // its start, shared
            if (waits) {
                take();
                timed_part();
            }
            --gpu.timed_alive;
            return waits;
        },
        [&] {
            if (++gpu.timed_alive > 1) gpu.broken = true;
            timed_part();
            --gpu.timed_alive;
        });
    ++gpu.timed_done;
}

// The reference's timed process: the course's own, which asks at its gate.
void fake_reference_timed(GpuTurn& turn, MachineGpu& gpu) {
    run_timed_alone(
        &turn,
        [&](const std::function<void()>& take) {
            ++gpu.shared_runs;  // its start is work on the GPU, shared
            if (gpu.timed_alone.load() > 0) gpu.broken = true;
            std::this_thread::sleep_for(std::chrono::microseconds(300));
            --gpu.shared_runs;
            take();
            timed_part_alone(gpu);  // no other timed process alive, nothing shared
            return true;
        },
        [&] { timed_part_alone(gpu); });
    ++gpu.timed_done;
}

// An untimed run in a lane's turn (stepping out first where a timed process waits).
void fake_shared_run(GpuTurn& turn, MachineGpu& gpu, int us) {
    turn.share_again();
    turn.make_way();
    ++gpu.shared_runs;
    if (gpu.timed_alone.load() > 0) gpu.broken = true;  // a run beside timed repetitions
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    --gpu.shared_runs;
    ++gpu.shared_done;
}

// A performance test: its turn holds the ticket from its start; a fresh reference sample (or the
// pool's: none), the student's timed process, then the verifier's run, shared.
void fake_performance_test(GpuGate& gate, MachineGpu& gpu, bool fresh_reference) {
    ++gpu.performance_tests;
    GpuTurn turn = test_turn(gate, nullptr, true);
    if (fresh_reference) fake_reference_timed(turn, gpu);
    fake_student_timed(turn, gpu, true);
    fake_shared_run(turn, gpu, 300);
}

// One lane of one grader: tests in turn, each a shared turn of untimed runs (stepping out between
// them), then now and then a student's timed process, the reference's, the two back to back (as a
// performance test with a fresh reference sample has them), or a run settled alone; or a
// performance test, its turn ticketed from its start.
void fake_lane(GpuGate& gate, MachineGpu& gpu, unsigned seed, int tests) {
    for (int test = 0; test < tests; ++test) {
        const unsigned pick = (seed * 2654435761u + static_cast<unsigned>(test) * 40503u) % 10;
        if (pick == 7 || pick == 8) {
            fake_performance_test(gate, gpu, pick == 7);
            continue;
        }
        GpuTurn turn(gate, false);
        for (int run = 0; run < 2; ++run) fake_shared_run(turn, gpu, 300 + (seed + run) % 5 * 200);
        if (pick < 4) fake_student_timed(turn, gpu, pick != 3);  // one in four never asks: made again whole
        else if (pick == 4) turn.run_alone([&] { timed_part_alone(gpu); });
        else if (pick == 5) fake_reference_timed(turn, gpu);
        else if (pick == 6) {
            fake_reference_timed(turn, gpu);
            fake_student_timed(turn, gpu, true);
        }
    }
}

}  // namespace

TEST_CASE("the ticket under load: two graders of 6 lanes on one GPU's locks, every kind of turn, no deadlock, no run beside timed work") {
    const std::string folder = "/tmp/cudalabs-throughput-load-" + std::to_string(getpid());
    make_dirs(folder);
    MachineGpu gpu;
    GpuGate first("GPU-load", folder), second("GPU-load", folder);  // two grading runs, one GPU
    std::vector<std::thread> lanes;
    std::atomic<int> finished{0};
    for (unsigned lane = 0; lane < 12; ++lane)
        lanes.emplace_back([&, lane] {
            fake_lane(lane % 2 ? second : first, gpu, lane + 1, 40);
            ++finished;
        });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (finished.load() < 12 && std::chrono::steady_clock::now() < deadline) pause_ms(20);
    REQUIRE_MESSAGE(finished.load() == 12, "lanes still waiting after 60 s: a deadlock");
    for (std::thread& t : lanes) t.join();
    CHECK_FALSE(gpu.broken.load());
    CHECK(gpu.timed_done.load() > 20);
    const int performance = gpu.performance_tests.load();  // one untimed run each, the others two
    CHECK(performance > 20);
    CHECK(gpu.shared_done.load() == (12 * 40 - performance) * 2 + performance);
    remove_tree(folder);
}
