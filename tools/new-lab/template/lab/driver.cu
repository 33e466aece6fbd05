// Lab @NN@ driver: owns main(), the data, the check and the timing. Do not edit: your work goes in
// @TOPIC@.cu. The same driver builds the starter (./lab@NN@), the solution (./sol@NN@) and the
// grader's build, so the check cannot be edited away.
//
// TEMPLATE (make new-lab): a vector scale, y = a x, to be replaced by the lab's own work. Its
// description (./sol@NN@ --describe) is what the rubric, the bench targets and the profile are
// checked against: the variants, check sizes and targets below.
#include <climits>
#include <functional>
#include <vector>

#include "@TOPIC@.h"
#include "main.h"
#include "reference.h"

using namespace cudalabs;

namespace {

const float kFactor = 2.5f;

// One correctly rounded multiplication on both sides.
const Tolerance kTolerance = Tolerance::elementwise(kFloatRoundoff);

Outcome run_scale(const Length& len, RunContext& ctx) {
    const int n = static_cast<int>(len.n);
    std::vector<float> x(n), expected(n);
    fill_uniform(x.data(), n, ctx.seed(), 1);
    @TOPIC@_reference(kFactor, x.data(), expected.data(), n);
    DeviceBuffer<float> dx(n), dy(n);
    dx.upload(x.data());
    Outcome out;
    out.bytes = 2.0 * sizeof(float) * n;  // read x, write y
    out.roofline_bytes = out.bytes;        // the roofline places the row by both counts
    out.roofline_flops = n;                // one multiplication per element
    ctx.run_checked(out, [&] { @TOPIC@_scale(kFactor, dx.data(), dy.data(), n, 0); }, dy, expected.data(),
                    kTolerance, out.bytes);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Length> lab = declare_lab<Length>(
        "@NAME@ (template: a vector scale, y = a x)",
        // checked by default: 1, a prime, a non-multiple of 256, and a large size.
        {{{1}, {7}, {1000}, {1000003}},
         // --bench
         {{1 << 24}},
         // --quick
         {{1}, {1000}}},
        "N = number of float elements (1 to 2147483647)");
    lab.variants = {
        {"scale", "@TOPIC@_scale: one element per thread, 256-thread blocks", run_scale},
    };
    lab.check = [](const Length& len) {
        require_at_most({len.n}, INT_MAX, "N must be at most 2147483647 (the kernel indexes with int)");
    };
    lab.device_bytes = [](const Length& len, const Options&) { return 2.0 * sizeof(float) * len.n; };
    return run_lab(lab, argc, argv);
}
