// The results of one run: the aligned table, the verdict, JSON and Markdown. Host-only.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace cudalabs {

enum class Status { Pass, Fail, Skip, Reference };
const char* status_name(Status s);  // "PASS", "FAIL", "SKIP", "REF"

struct Row {
    std::string variant;
    std::string size;
    double time_ms = -1;   // median; < 0: not timed
    double bytes = 0;      // bytes moved through device memory (for GB/s)
    double flops = 0;      // floating-point operations (for GFLOP/s); wins over bytes
    double ratio = -1;     // rate / yardstick rate; < 0: none
    // The roofline's counts: the problem's compulsory device-memory traffic and its FP
    // operations, both counted whatever `bytes`/`flops` measure (their intensity places the row
    // on the roofline); 0: not counted. They change no rate, ratio or column.
    double roofline_bytes = 0;
    double roofline_flops = 0;
    Status status = Status::Skip;
    std::string note;

    double gbs() const { return time_ms > 0 && bytes > 0 ? bytes / (time_ms * 1e6) : -1; }
    double gflops() const { return time_ms > 0 && flops > 0 ? flops / (time_ms * 1e6) : -1; }
    // The figure the ratio compares: GFLOP/s where flops are counted, else GB/s.
    double rate() const { return flops > 0 ? gflops() : gbs(); }
};

struct DeviceSummary {
    std::string name;
    std::string compute_capability;  // "9.0"
    int sms = 0;
    double memory_gib = 0;
    int l2_mib = 0;
    double copy_gbs = 0;  // measured device-to-device copy, bytes read + written
    std::string cuda_runtime, cuda_driver;
    std::string uuid;  // "GPU-xxxxxxxx-...", as nvidia-smi prints it: names the card machine-wide
};

// A speed target checked in benchmark runs: variant at size reaches min_ratio of the yardstick.
constexpr const char* kCopyYardstick = "copy bandwidth";

struct Target {
    std::string variant;
    std::string size;
    double min_ratio = 0;
    // What the ratio is against: kCopyYardstick (the row's GB/s over the measured copy
    // bandwidth), or another variant of the lab, a yardstick or not (rate over its rate at the
    // same size: see rate_ratio).
    std::string yardstick;
    // Filled in after the run:
    double ratio = -1;
    bool met = false;
    bool measured = false;
};

// Two variants a lesson sets side by side (padded against conflicting tiles, pinned against
// pageable memory...): after the table, how much faster `variant` is than `over` at every size
// where both passed. A contrast with a required gain is a Target with `over` as its yardstick.
struct Contrast {
    std::string variant, over;
    std::string label;  // what the comparison shows: "padding the tile (32 x 32)"
};
struct ContrastResult {
    std::string label, variant, over, size;
    double gain = -1;
};

struct Report {
    std::string lab;       // "01-vector-add"
    std::string program;   // "sol01"
    std::string mode;      // "check", "bench" or "quick"
    std::string date;      // ISO 8601, UTC
    uint64_t seed = 0;
    std::string ratio_to;  // what the ratio column compares with
    DeviceSummary device;
    std::vector<Row> rows;
    std::vector<Target> targets;
    std::vector<Contrast> contrasts;
    std::vector<ContrastResult> contrast_results;  // filled by evaluate_contrasts

    bool passed() const;        // no row failed and at least one ran
    int count(Status s) const;
};

void print_device_header(std::ostream& out, const DeviceSummary& dev);
void print_table(std::ostream& out, const Report& report);
void print_targets(std::ostream& out, const Report& report);
std::string verdict_line(const Report& report);
void write_json(std::ostream& out, const Report& report);
void write_markdown(std::ostream& out, const Report& report);

std::string json_escape(const std::string& text);
// Fixed-point with `digits` decimals; "-" for negative (unmeasured) values.
std::string format_number(double value, int digits);
// A row's GB/s over the measured copy bandwidth; < 0 when either is unknown.
double copy_ratio(const Row& row, const DeviceSummary& device);
// How much faster `row` is than `other`: rate over rate when both have one of the same kind
// (GFLOP/s or GB/s), else the time of `other` over the time of `row`; < 0 when not measured.
double rate_ratio(const Row& row, const Row& other);
// The passed row of `variant` at `size`, or nullptr.
const Row* passed_row(const Report& report, const std::string& variant, const std::string& size);
// Fills each target's ratio/met/measured from the matching rows.
void evaluate_targets(Report& report);
// Fills contrast_results: every contrast at every size where both of its variants passed.
void evaluate_contrasts(Report& report);
void print_contrasts(std::ostream& out, const Report& report);

}  // namespace cudalabs
