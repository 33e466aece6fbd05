#include "intake/seeds.h"

#include <algorithm>
#include <cstdint>
#include <random>

#include "random.h"

namespace grading {

unsigned long long derive_seed(unsigned long long base, const std::string& test, int trial) {
    uint64_t h = base;
    for (char c : test) h = cudalabs::mix64(h ^ static_cast<unsigned char>(c));
    return 1 + cudalabs::mix64(h + static_cast<uint64_t>(trial)) % 2147483646ull;
}

std::vector<std::string> sizes_for(const TestSpec& t, unsigned long long seed) {
    std::vector<std::string> sizes = t.sizes;
    std::mt19937_64 rng(seed);
    for (int k = 0; k < t.random_sizes.count; ++k) {
        std::string s;
        for (size_t e = 0; e < t.random_sizes.min.size(); ++e) {
            std::uniform_int_distribution<long long> d(t.random_sizes.min[e], t.random_sizes.max[e]);
            s += (e ? "x" : "") + std::to_string(d(rng));
        }
        sizes.push_back(s);
    }
    // A size twice would be one case twice: the program's records of it would collide.
    std::vector<std::string> unique;
    for (const std::string& s : sizes)
        if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
    return unique;
}

}  // namespace grading
