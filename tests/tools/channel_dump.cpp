// Runs a lab program with a result channel and prints what came through it: per case the
// outputs, the kernels outside and inside each timed repetition, the transfers, the faults.
// For people checking the harness, the trace library and the grading shims on a GPU machine:
//
//   build/tools/channel_dump [--out DIR] [--trace LIB] [--brief] -- build/grading/sol01 --variant fast --size 1000
//
// The program must be one the grader builds (with the grading harness: build/grading/solNN), as
// --channel 3 is added to its arguments. --out keeps the stored outputs in DIR (the folder the
// verifier reads: build/grading/sol01 --verify-outputs DIR ...); --trace LIB loads the kernel
// trace library into the program (LD_PRELOAD and CUDA_INJECTION64_PATH); --brief leaves out the
// kernels one by one. Exit code: 0 when the log is complete, 1 when not, 2 for a bad command
// line.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "grading/src/runs/channel.h"

using namespace cudalabs::channel;

namespace {

void usage() {
    std::fprintf(stderr, "usage: channel_dump [--out DIR] [--trace LIB] [--brief] -- PROGRAM [ARGS...]\n");
    std::exit(2);
}

double ms(const KernelRec& k) { return k.end_ns > k.start_ns ? (k.end_ns - k.start_ns) / 1e6 : 0.0; }

void print_kernels(const char* indent, const std::vector<KernelRec>& kernels) {
    for (const KernelRec& k : kernels)
        std::printf("%s%-50s %10.4f ms%s%s\n", indent, k.name.c_str(), ms(k), k.truncated ? " (name cut)" : "",
                    k.end_ns <= k.start_ns ? " (no timestamps)" : "");
}

void print_transfers(const char* indent, const std::vector<TransferRec>& transfers) {
    for (const TransferRec& t : transfers)
        std::printf("%stransfer %-22s %-16s %12llu bytes%s\n", indent, t.api.c_str(), direction_name(t.direction),
                    static_cast<unsigned long long>(t.bytes),
                    t.rep >= 0 ? (" in repetition " + std::to_string(t.rep)).c_str() : "");
}

}  // namespace

int main(int argc, char** argv) {
    std::string out_dir, trace_lib;
    bool brief = false;
    int i = 1;
    for (; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "--out" && i + 1 < argc) out_dir = argv[++i];
        else if (a == "--trace" && i + 1 < argc) trace_lib = argv[++i];
        else if (a == "--brief") brief = true;
        else usage();
    }
    if (i >= argc) usage();
    bool keep = !out_dir.empty();
    if (!keep) {
        char tmpl[] = "/tmp/channel-dump-XXXXXX";
        if (!mkdtemp(tmpl)) {
            std::perror("mkdtemp");
            return 1;
        }
        out_dir = tmpl;
    } else {
        mkdir(out_dir.c_str(), 0700);
    }

    int p[2];
    if (pipe(p) != 0) {
        std::perror("pipe");
        return 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        // The child: the write end becomes descriptor 3; nothing else of ours stays open.
        close(p[0]);
        if (p[1] != 3) {
            dup2(p[1], 3);
            close(p[1]);
        }
        if (!trace_lib.empty()) {
            setenv("LD_PRELOAD", trace_lib.c_str(), 1);
            setenv("CUDA_INJECTION64_PATH", trace_lib.c_str(), 1);
        }
        std::vector<char*> args(argv + i, argv + argc);
        std::string channel_flag = "--channel", fd = "3";
        args.push_back(channel_flag.data());
        args.push_back(fd.data());
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::perror(args[0]);
        _exit(127);
    }
    close(p[1]);
    grading::ChannelReader reader(p[0], out_dir);
    int status = 0;
    waitpid(pid, &status, 0);
    RunLog log = reader.finish(5);

    std::printf("== channel: %s (%llu records, %llu bytes); program %s %d; kernel trace %s\n",
                log.complete ? "complete" : "INCOMPLETE", static_cast<unsigned long long>(log.records),
                static_cast<unsigned long long>(log.bytes), WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), log.trace_ready ? "ready" : "absent");
    if (!log.error.empty()) std::printf("   error: %s\n", log.error.c_str());
    std::printf("   kernels outside cases: %zu\n", log.kernels_outside_cases.size());
    print_transfers("   ", log.transfers_outside_cases);
    for (const std::string& f : log.faults_outside_cases) std::printf("   fault: %s\n", f.c_str());
    for (const CaseLog& c : log.cases) {
        std::printf("-- case %s at %s%s\n", c.variant.c_str(), c.size.c_str(), c.ended ? "" : " (not ended)");
        for (const auto& o : c.outputs)
            std::printf("   output %u: %llu bytes -> %s\n", o.k, static_cast<unsigned long long>(o.bytes), o.file.c_str());
        print_transfers("   ", c.transfers);
        std::printf("   kernels outside repetitions: %zu\n", c.kernels.size());
        if (!brief) print_kernels("     ", c.kernels);
        double sum = 0, lo = 0, hi = 0;
        size_t timed = 0;
        for (const RepLog& r : c.reps) {
            double t = 0;
            for (const KernelRec& k : r.kernels) t += ms(k);
            if (!r.warmup) {
                lo = timed == 0 ? t : std::min(lo, t);
                hi = std::max(hi, t);
                sum += t;
                ++timed;
            }
            if (brief) continue;
            std::printf("   repetition %u%s%s: %zu kernels\n", r.rep, r.warmup ? " (warm-up)" : "", r.ended ? "" : " (not ended)",
                        r.kernels.size());
            print_kernels("     ", r.kernels);
        }
        if (timed)
            std::printf("   %zu repetitions (%zu timed): kernel time per timed repetition %.4f ms mean, %.4f min, %.4f max\n",
                        c.reps.size(), timed, sum / static_cast<double>(timed), lo, hi);
        for (const auto& t : c.timed)
            std::printf("   timed output %u of repetition %u: %llu bytes -> %s\n", t.k, t.rep,
                        static_cast<unsigned long long>(t.bytes), t.file.c_str());
        for (const std::string& f : c.faults) std::printf("   fault: %s\n", f.c_str());
    }
    if (keep) std::printf("== outputs kept in %s\n", out_dir.c_str());
    else if (std::system(("rm -rf '" + out_dir + "'").c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", out_dir.c_str());
    return log.complete ? 0 : 1;
}
