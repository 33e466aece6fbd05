// Lab 07 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in coalescing.cu. Sizes are N, the number of points (or floats, for strided and offset).
#include <climits>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "coalescing.h"
#include "main.h"
#include "reference.h"

using namespace cudalabs;

namespace {

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const int n = static_cast<int>(dims[0]);
    const size_t un = static_cast<size_t>(n);
    const Tolerance tol = Tolerance::elementwise(kFloatRoundoff);
    Outcome out;
    auto timed = [&](const std::function<void()>& launch, double bytes) {
        out.bytes = bytes;
        if (out.check.ok()) out.time_ms = ctx.time_gpu(launch, bytes);
    };

    if (variant == "strided" || variant == "offset") {
        const bool strided = variant == "strided";
        const size_t in_count = strided ? un * kStride : un + kOffset;
        std::vector<float> in(in_count), got(un), expected(un);
        fill_uniform(in.data(), in_count, ctx.seed(), 4);
        for (size_t i = 0; i < un; ++i)
            expected[i] = affine_reference(in[strided ? i * kStride : i + kOffset], kScale, kShiftX);
        DeviceBuffer<float> din(in_count), dout(un);
        din.upload(in.data());
        dout.poison();
        auto launch = [&] {
            if (strided) scale_strided(din.data(), dout.data(), n, 0);
            else scale_offset(din.data(), dout.data(), n, 0);
        };
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        dout.download(got.data());
        ctx.check(out, got.data(), expected.data(), un, tol);
        timed(launch, 2.0 * sizeof(float) * un);  // the bytes the computation needs
        out.note = strided ? "in[8 i]: one 32-byte sector per float read"
                           : "in[i + 1]: each warp's reads straddle two 128-byte lines";
        return out;
    }

    // The points, component by component; expected results interleaved as x, y, z per point.
    std::vector<float> px(un), py(un), pz(un), expected(3 * un), got(3 * un);
    fill_uniform(px.data(), un, ctx.seed(), 1);
    fill_uniform(py.data(), un, ctx.seed(), 2);
    fill_uniform(pz.data(), un, ctx.seed(), 3);
    for (size_t i = 0; i < un; ++i) {
        expected[3 * i] = affine_reference(px[i], kScale, kShiftX);
        expected[3 * i + 1] = affine_reference(py[i], kScale, kShiftY);
        expected[3 * i + 2] = affine_reference(pz[i], kScale, kShiftZ);
    }
    const std::vector<size_t> shape = {un, 3};  // messages name [point, component]
    const double bytes = 2.0 * 3 * sizeof(float) * un;  // 12 bytes in, 12 bytes out per point

    if (variant == "aos") {
        std::vector<vec3> in(un), res(un);
        for (size_t i = 0; i < un; ++i) in[i] = {px[i], py[i], pz[i]};
        DeviceBuffer<vec3> din(un), dout(un);
        din.upload(in.data());
        dout.poison();
        auto launch = [&] { transform_aos(din.data(), dout.data(), n, 0); };
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        dout.download(res.data());
        for (size_t i = 0; i < un; ++i) {
            got[3 * i] = res[i].x;
            got[3 * i + 1] = res[i].y;
            got[3 * i + 2] = res[i].z;
        }
        ctx.check(out, got.data(), expected.data(), 3 * un, tol, shape);
        timed(launch, bytes);
        out.note = "12-byte points: 3 loads of 12 sectors each per warp";
        return out;
    }

    if (variant == "aos16") {
        std::vector<vec3a> in(un), res(un);
        for (size_t i = 0; i < un; ++i) {
            in[i].x = px[i];
            in[i].y = py[i];
            in[i].z = pz[i];
        }
        DeviceBuffer<vec3a> din(un), dout(un);
        din.upload(in.data());
        dout.poison();
        auto launch = [&] { transform_aos16(din.data(), dout.data(), n, 0); };
        launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        dout.download(res.data());
        for (size_t i = 0; i < un; ++i) {
            got[3 * i] = res[i].x;
            got[3 * i + 1] = res[i].y;
            got[3 * i + 2] = res[i].z;
        }
        ctx.check(out, got.data(), expected.data(), 3 * un, tol, shape);
        timed(launch, bytes);  // useful bytes: the 4-byte holes move too but do not count
        out.note = "16-byte points: a quarter of every byte moved is the hole";
        return out;
    }

    // soa
    DeviceBuffer<float> ix(un), iy(un), iz(un), ox(un), oy(un), oz(un);
    ix.upload(px.data());
    iy.upload(py.data());
    iz.upload(pz.data());
    ox.poison();
    oy.poison();
    oz.poison();
    auto launch = [&] {
        transform_soa(ix.data(), iy.data(), iz.data(), ox.data(), oy.data(), oz.data(), n, 0);
    };
    launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> gx(un), gy(un), gz(un);
    ox.download(gx.data());
    oy.download(gy.data());
    oz.download(gz.data());
    for (size_t i = 0; i < un; ++i) {
        got[3 * i] = gx[i];
        got[3 * i + 1] = gy[i];
        got[3 * i + 2] = gz[i];
    }
    ctx.check(out, got.data(), expected.data(), 3 * un, tol, shape);
    timed(launch, bytes);
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

// How much faster SoA is than each AoS layout, per size (time of AoS / time of SoA).
void compare_layouts(const Report& report, std::ostream& out) {
    std::map<std::string, std::map<std::string, double>> ms;
    std::vector<std::string> order;
    for (const Row& r : report.rows) {
        if (r.status != Status::Pass || r.time_ms <= 0) continue;
        if (!ms.count(r.size)) order.push_back(r.size);
        ms[r.size][r.variant] = r.time_ms;
    }
    bool header = false, judged = false, met = true;
    for (const std::string& size : order) {
        auto& t = ms[size];
        if (!t.count("soa")) continue;
        if (!header) {
            out << "\nSoA speed-up (AoS time / SoA time):\n  size          vs aos  vs aos16\n";
            header = true;
        }
        auto gain = [&](const char* v) { return t.count(v) ? t[v] / t["soa"] : -1.0; };
        char line[96];
        std::snprintf(line, sizeof line, "  %-12s %7s  %8s\n", size.c_str(),
                      format_number(gain("aos"), 2).c_str(), format_number(gain("aos16"), 2).c_str());
        out << line;
        if (report.mode == "bench" && std::stod(size) >= (1 << 24) && t.count("aos16")) {
            judged = true;
            if (gain("aos16") < 1.1) met = false;
        }
    }
    if (!header) return;
    out << "With all three fields used, the 12-byte AoS can come close to SoA on GPUs whose L1 "
           "keeps the lines between the .x, .y and .z loads; the bytes are the same, only the "
           "requests are three times as many. A kernel that uses fewer fields pays the whole "
           "stride (the strided row). The 16-byte layout always moves a third more bytes.\n";
    if (judged)
        out << "target: SoA at least 1.10x faster than the aligned AoS (aos16) at 16M points: "
            << (met ? "MET" : "MISSED") << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "07";
    lab.name = "07-coalescing";
    lab.title = "coalescing: one computation on an array of 12-byte and of 16-byte structures and "
                "on a structure of arrays; strided and misaligned reads";
    lab.size_help = "N = number of points (1 to 268435455)";
    lab.variants = {
        {"aos", "transform_aos: array of 12-byte vec3"},
        {"aos16", "transform_aos16: array of __align__(16) vec3a"},
        {"soa", "transform_soa: three arrays x[], y[], z[]"},
        {"strided", "scale_strided: out[i] = f(in[8 i]), one float per 32-byte sector"},
        {"offset", "scale_offset: out[i] = f(in[i + 1]), misaligned by 4 bytes"},
    };
    lab.check_sizes = {{1}, {7}, {997}, {1000}, {65537}, {1000003}};
    lab.bench_sizes = {{1 << 20}, {1 << 24}};
    lab.quick_sizes = {{1}, {7}, {997}, {4099}};
    lab.bench_targets = {{"soa", "16777216", 0.85, "copy bandwidth"}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 1, 1, "one extent, N");
        // The strided input holds 8 N floats, indexed with size_t; N itself must fit an int.
        require_at_most(d, INT_MAX / kStride, "N must be at most 268435455 (8 N floats for strided)");
    };
    lab.device_bytes = [](const Dims& d) { return 4.0 * (kStride + 1) * d[0]; };
    lab.prologue = explain_patterns;
    lab.epilogue = compare_layouts;
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
