// Lab 07 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in coalescing.cu. Sizes are N, the number of points (or floats, for strided and offset).
#include <climits>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "coalescing.h"
#include "main.h"
#include "reference.h"

using namespace cudalabs;

namespace {

const Tolerance kTolerance = Tolerance::elementwise(kFloatRoundoff);

using Gather = void (*)(const float* in, float* out, int n, cudaStream_t stream);

// strided and offset: out[i] = f(in[i * stride + offset]) on float arrays.
std::function<Outcome(const Length&, RunContext&)> gather_by(Gather launch, size_t stride, size_t offset,
                                                             std::string note) {
    return [=](const Length& len, RunContext& ctx) {
        const int n = static_cast<int>(len.n);
        const size_t un = static_cast<size_t>(n), in_count = un * stride + offset;
        std::vector<float> in(in_count), expected(un);
        fill_uniform(in.data(), in_count, ctx.seed(), 4);
        for (size_t i = 0; i < un; ++i) expected[i] = affine_reference(in[i * stride + offset], kScale, kShiftX);
        DeviceBuffer<float> din(in_count), dout(un);
        din.upload(in.data());
        Outcome out;
        out.bytes = 2.0 * sizeof(float) * un;  // the bytes the computation needs
        out.roofline_bytes = out.bytes;  // the skipped elements of a stride are not the problem's
        out.roofline_flops = 2.0 * un;   // one multiply-add per element
        ctx.run_checked(out, [&] { launch(din.data(), dout.data(), n, 0); }, dout, expected.data(), kTolerance,
                        out.bytes);
        out.note = note;
        return out;
    };
}

// The points of one size, component by component, and the expected results interleaved as
// x, y, z per point (the layout every variant's output is compared in).
struct Points {
    int n = 0;
    size_t count = 0;
    std::vector<float> x, y, z, expected;
    std::vector<size_t> shape;  // messages name [point, component]
    double bytes() const { return 2.0 * 3 * sizeof(float) * count; }  // 12 bytes in, 12 out per point
    double flops() const { return 2.0 * 3 * count; }  // a multiply-add per component
};

Points points_for(const Length& len, RunContext& ctx) {
    Points p;
    p.n = static_cast<int>(len.n);
    p.count = static_cast<size_t>(p.n);
    p.x.resize(p.count);
    p.y.resize(p.count);
    p.z.resize(p.count);
    p.expected.resize(3 * p.count);
    p.shape = {p.count, 3};
    fill_uniform(p.x.data(), p.count, ctx.seed(), 1);
    fill_uniform(p.y.data(), p.count, ctx.seed(), 2);
    fill_uniform(p.z.data(), p.count, ctx.seed(), 3);
    for (size_t i = 0; i < p.count; ++i) {
        p.expected[3 * i] = affine_reference(p.x[i], kScale, kShiftX);
        p.expected[3 * i + 1] = affine_reference(p.y[i], kScale, kShiftY);
        p.expected[3 * i + 2] = affine_reference(p.z[i], kScale, kShiftZ);
    }
    return p;
}

// aos and aos16: an array of structures, vec3 (12 bytes) or vec3a (16, a 4-byte hole).
template <class Point>
std::function<Outcome(const Length&, RunContext&)> aos_by(void (*launch)(const Point*, Point*, int, cudaStream_t),
                                                          std::string note) {
    return [=](const Length& len, RunContext& ctx) {
        const Points p = points_for(len, ctx);
        std::vector<Point> in(p.count), res(p.count);
        for (size_t i = 0; i < p.count; ++i) {
            in[i].x = p.x[i];
            in[i].y = p.y[i];
            in[i].z = p.z[i];
        }
        DeviceBuffer<Point> din(p.count), dout(p.count);
        din.upload(in.data());
        dout.poison();
        Outcome out;
        out.bytes = p.bytes();  // useful bytes: the holes of vec3a move too but do not count
        out.roofline_bytes = p.bytes();
        out.roofline_flops = p.flops();
        ctx.run_checked(
            out, [&] { launch(din.data(), dout.data(), p.n, 0); },
            [&] {
                dout.download(res.data());
                std::vector<float> got(3 * p.count);
                for (size_t i = 0; i < p.count; ++i) {
                    got[3 * i] = res[i].x;
                    got[3 * i + 1] = res[i].y;
                    got[3 * i + 2] = res[i].z;
                }
                ctx.check(out, got.data(), p.expected.data(), got.size(), kTolerance, p.shape);
            },
            out.bytes);
        out.note = note;
        return out;
    };
}

Outcome run_soa(const Length& len, RunContext& ctx) {
    const Points p = points_for(len, ctx);
    const size_t count = p.count;
    DeviceBuffer<float> ix(count), iy(count), iz(count), ox(count), oy(count), oz(count);
    ix.upload(p.x.data());
    iy.upload(p.y.data());
    iz.upload(p.z.data());
    ox.poison();
    oy.poison();
    oz.poison();
    Outcome out;
    out.bytes = p.bytes();
    out.roofline_bytes = p.bytes();
    out.roofline_flops = p.flops();
    ctx.run_checked(
        out, [&] { transform_soa(ix.data(), iy.data(), iz.data(), ox.data(), oy.data(), oz.data(), p.n, 0); },
        [&] {
            std::vector<float> gx(count), gy(count), gz(count), got(3 * count);
            ox.download(gx.data());
            oy.download(gy.data());
            oz.download(gz.data());
            for (size_t i = 0; i < count; ++i) {
                got[3 * i] = gx[i];
                got[3 * i + 1] = gy[i];
                got[3 * i + 2] = gz[i];
            }
            ctx.check(out, got.data(), p.expected.data(), got.size(), kTolerance, p.shape);
        },
        out.bytes);
    out.note = "three arrays: every warp access is one 128-byte line";
    return out;
}

// Why the variants differ: what one warp-wide load instruction touches, from the pattern alone.
void explain_patterns(RunContext&, std::ostream& out) {
    struct Pattern { const char* variant; const char* access; size_t first, stride, bytes, useful; };
    const Pattern patterns[] = {
        {"soa", "in_x[i]: 4 B, 4 B apart", 0, 4, 4, 4},
        {"aos", "in[i].x: 4 B, 12 B apart", 0, 12, 4, 4},
        {"aos16", "in[i]: 16 B, 16 B apart", 0, 16, 16, 12},
        {"strided", "in[8 i]: 4 B, 32 B apart", 0, 4 * kStride, 4, 4},
        {"offset", "in[i + 1]: 4 B, from byte 4", 4 * kOffset, 4, 4, 4},
    };
    out << "What one warp-wide load asks of memory (32 lanes, 32-byte sectors, aligned arrays):\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s %-28s %11s %8s %9s\n", "variant", "access", "useful B",
                  "sectors", "useful %");
    out << line;
    for (const Pattern& p : patterns) {
        const size_t sectors = sectors_touched(p.first, p.stride, p.bytes);
        const double useful = 32.0 * p.useful;
        std::snprintf(line, sizeof line, "  %-8s %-28s %11.0f %8zu %8.0f%%\n", p.variant, p.access,
                      useful, sectors, 100.0 * useful / (32.0 * sectors));
        out << line;
    }
    out << "soa needs 4 sectors per load (3 loads per point); aos needs 12 per load, and its .y and "
           ".z loads find their sectors in L1 only if nothing evicted them; aos16 moves a 4-byte "
           "hole with every 12-byte point; strided fetches 8x the bytes it uses. Rates below count "
           "only the useful bytes.\n\n";
}

// What the SoA contrasts (after the table) show, and what they do not.
void explain_layouts(const Report& report, std::ostream& out) {
    if (report.contrast_results.empty()) return;
    out << "With all three fields used, the 12-byte AoS can come close to SoA on GPUs whose L1 "
           "keeps the lines between the .x, .y and .z loads; the bytes are the same, only the "
           "requests are three times as many. A kernel that uses fewer fields pays the whole "
           "stride (the strided row). The 16-byte layout always moves a third more bytes.\n";
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Length> lab = declare_lab<Length>(
        "coalescing: one computation on an array of 12-byte and of 16-byte structures and on a structure of "
        "arrays; strided and misaligned reads",
        // checked by default
        {{{1}, {7}, {997}, {1000}, {65537}, {1000003}},
         // --bench
         {{1 << 20}, {1 << 24}},
         // --quick
         {{1}, {7}, {997}, {4099}}},
        "N = number of points (1 to 268435455)");
    lab.variants = {
        {"aos", "transform_aos: array of 12-byte vec3",
         aos_by<vec3>(transform_aos, "12-byte points: 3 loads of 12 sectors each per warp")},
        {"aos16", "transform_aos16: array of __align__(16) vec3a",
         aos_by<vec3a>(transform_aos16, "16-byte points: a quarter of every byte moved is the hole")},
        {"soa", "transform_soa: three arrays x[], y[], z[]", run_soa},
        {"strided", "scale_strided: out[i] = f(in[8 i]), one float per 32-byte sector",
         gather_by(scale_strided, kStride, 0, "in[8 i]: one 32-byte sector per float read")},
        {"offset", "scale_offset: out[i] = f(in[i + 1]), misaligned by 4 bytes",
         gather_by(scale_offset, 1, kOffset, "in[i + 1]: each warp's reads straddle two 128-byte lines")},
    };
    // The layout target is against the 16-byte AoS, which moves more bytes whatever the cache
    // does; against the 12-byte one, L1 can make up the difference.
    lab.bench_targets = {{"soa", "16777216", 0.85, kCopyYardstick}, {"soa", "16777216", 1.10, "aos16"}};
    lab.contrasts = {{"soa", "aos", "SoA against the 12-byte AoS"}, {"soa", "aos16", "SoA against the 16-byte AoS"}};
    lab.check = [](const Length& len) {
        // The strided input holds 8 N floats, indexed with size_t; N itself must fit an int.
        require_at_most({len.n}, INT_MAX / kStride, "N must be at most 268435455 (8 N floats for strided)");
    };
    lab.device_bytes = [](const Length& len, const Options&) { return 4.0 * (kStride + 1) * len.n; };
    lab.prologue = explain_patterns;
    lab.epilogue = explain_layouts;
    return run_lab(lab, argc, argv);
}
