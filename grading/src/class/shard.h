// Grading a class in shards (one per GPU node) and merging them: `grading/grade --shard K/N`
// grades the K-th of N slices of the class, fixed by the sorted list of student ids only (the
// i-th id in sorted order goes to shard i % N), so every node computes the same slices; each
// shard's folder holds its usual results and a shard.json; `grading/grade merge OUT DIR...`
// assembles them into what one run with that seed writes. Host-only: unit-tested with g++.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "intake/command_line.h"  // ShardSpec

namespace grading {

// The ids of shard k of n, in the order of `class_ids` (the order a single run grades them).
// Which shard an id goes to depends only on the sorted set of ids, not on their order here.
std::vector<std::string> shard_members(const std::vector<std::string>& class_ids, int k, int n);

// A shard's shard.json: what it was asked for, what it graded, and what the merge needs to
// write the class's summary (the table's rows, a regrade's notes).
struct ShardRecord {
    int k = 0, n = 0;
    bool finished = false;  // false while the shard runs (or when it died)
    unsigned long long seed = 0;
    std::string lab, rubric, rubric_sha256, tree, tools, isolation, device, regrade_of;
    bool compile_only = false;
    std::vector<std::string> class_ids;  // every student of the class, in the order a single run grades them
    std::vector<std::string> assigned;   // this shard's, in that order
    std::vector<std::string> gpus;       // with --gpus: one line per GPU (which, its device, how many it graded)
    std::vector<std::string> summary_head;
    std::map<std::string, std::vector<std::string>> summary_rows;  // student -> summary row
    std::map<std::string, std::string> regrade_notes;              // student -> "" (same) or what changed
};

std::string shard_record_json(const ShardRecord& r);
// Throws cudalabs::UsageError when `text` is not a shard.json (`source` names it).
ShardRecord parse_shard_record(const std::string& text, const std::string& source);

// Merges the shard folders into OUT (a new or empty folder): feedback/, results/, gradebook.csv,
// audit.jsonl and summary.txt as one run with that seed writes them. Refuses (cudalabs::UsageError,
// saying what to do) shards of different runs (seed, rubric, tree, lab, N, class, compile-only),
// a missing, unfinished or duplicated shard, a student in two shards, and a shard whose files do
// not hold what its shard.json says. Never changes a shard folder. Returns the summary text.
std::string merge_shards(const std::string& out, const std::vector<std::string>& shard_dirs);

// The records of a CSV text (RFC 4180: a quoted cell may hold line breaks), each with its
// line break; the merge moves gradebook rows as they are.
std::vector<std::string> csv_records(const std::string& text);

}  // namespace grading
