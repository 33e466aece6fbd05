#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "labs/05-device-malloc/reference.h"

TEST_CASE("lab 05 fill pattern is never zero and checksums add it up") {
    for (unsigned t = 0; t < 300; ++t)
        for (size_t j = 0; j < 600; ++j) REQUIRE(fill_byte(t, j) != 0);
    CHECK(block_checksum(0, 1) == fill_byte(0, 0));
    CHECK(block_checksum(5, 3) == unsigned(fill_byte(5, 0)) + fill_byte(5, 1) + fill_byte(5, 2));
    CHECK(block_checksum(3, 0) == 0);
    // The largest block allowed cannot reach the poison value 0xFFFFFFFF.
    CHECK(255.0 * kMaxBlockBytes < 4294967295.0);
}

TEST_CASE("lab 05 heap estimate covers every block with room to spare") {
    CHECK(heap_estimate(1, 1) >= (size_t(16) << 20));
    CHECK(heap_estimate(100000, 1000) >= 2 * 100000 * size_t(1000));
    CHECK(heap_estimate(8, 24) < (size_t(17) << 20));
}

TEST_CASE("lab 05 pointer summary: NULLs, distinct pointers, range and usual spacing") {
    const std::vector<uint64_t> p = {0x1000, 0x1050, 0x10a0, 0, 0x10f0, 0x1050};
    PointerSummary s = summarize_pointers(p.data(), p.size());
    CHECK(s.count == 6);
    CHECK(s.nulls == 1);
    CHECK(s.distinct == 4);
    CHECK(s.lowest == 0x1000);
    CHECK(s.highest == 0x10f0);
    CHECK(s.common_step == 0x50);
    const std::vector<uint64_t> none = {0, 0};
    s = summarize_pointers(none.data(), none.size());
    CHECK(s.nulls == 2);
    CHECK(s.distinct == 0);
}

TEST_CASE("lab 05 describes few pointers one by one and many as a summary") {
    const std::vector<uint64_t> two = {0x2013ffb20, 0x2013ffb70};
    CHECK(describe_pointers(two.data(), 2) == "thread 0: 0x2013ffb20, thread 1: 0x2013ffb70");
    std::vector<uint64_t> many;
    for (int i = 0; i < 8; ++i) many.push_back(0x2013ffb20 + 80 * i);
    const std::string text = describe_pointers(many.data(), many.size());
    CHECK(text.find("8 blocks: 8 distinct, 0 NULL") == 0);
    CHECK(text.find("most 80 B apart") != std::string::npos);
}

TEST_CASE("lab 05 sizes: NTHREADSxBYTES, an int of threads, blocks of at most 16 MiB") {
    using cudalabs::UsageError;
    const Blocks b = Blocks::parse({8, 24});
    CHECK(b.threads == 8);
    CHECK(b.bytes == 24);
    CHECK(Blocks::parse({2147483647LL, kMaxBlockBytes}).bytes == kMaxBlockBytes);
    CHECK_THROWS_WITH_AS(Blocks::parse({8}), "size '8' does not fit this lab: expected NTHREADSxBYTES (for example 8x24)",
                         UsageError);
    CHECK_THROWS_WITH_AS(Blocks::parse({3000000000LL, 1}), "size '3000000000' is too large: at most 2147483647 threads",
                         UsageError);
    CHECK_THROWS_WITH_AS(Blocks::parse({8, 20000000}),
                         "size '8x20000000': a block may be at most 16777216 bytes (16 MiB) so that its checksum fits in 32 bits",
                         UsageError);
}

TEST_CASE("lab 05 command line: <nthreads> <size> [<heap MiB>]") {
    using cudalabs::UsageError;
    CHECK(blocks_from_arguments({"8", "24"}) == cudalabs::Dims{8, 24});
    CHECK(blocks_from_arguments({"100000", "1000", "3"}) == cudalabs::Dims{100000, 1000});
    CHECK_THROWS_WITH_AS(blocks_from_arguments({"8"}), "expected <nthreads> <size> [<heap MiB>], got 1 argument(s)", UsageError);
    CHECK_THROWS_WITH_AS(blocks_from_arguments({"8", "24", "5", "6"}), "expected <nthreads> <size> [<heap MiB>], got 4 argument(s)",
                         UsageError);
    CHECK_THROWS_WITH_AS(blocks_from_arguments({"abc", "24"}), "<nthreads> must be a positive whole number, got 'abc'", UsageError);
    CHECK_THROWS_WITH_AS(blocks_from_arguments({"8", "20000000"}),
                         "<size> (bytes per thread) is too large: 20000000 (at most 16777216)", UsageError);
    CHECK_THROWS_WITH_AS(blocks_from_arguments({"8", "24", "0"}), "<heap MiB> must be at least 1, got '0'", UsageError);
}

TEST_CASE("lab 05 heap: the third argument, else room for the largest size of the run") {
    CHECK(heap_argument_bytes({"8", "24"}) == 0);
    CHECK(heap_argument_bytes({"8", "24", "3"}) == (size_t(3) << 20));
    CHECK(heap_for_run({"97", "13", "3"}, {{97, 13}}) == (size_t(3) << 20));
    CHECK(heap_for_run({}, {{8, 24}, {100000, 1000}, {1, 1}}) == heap_estimate(100000, 1000));
}
