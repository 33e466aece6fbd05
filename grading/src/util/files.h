// Files and folders: the grader's reads and writes, and the checks of a disk before a run. Depends on nothing of the grader. Host-only: unit-tested
// with g++ on temporary folders.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace grading {

// A write of the grader's own files that failed (a full disk, a folder that cannot be written):
// the environment's failure, never a student's, so it stops the run; what was recorded stays.
struct StorageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string read_file(const std::string& path);  // "" when it cannot be read
// Writes `text` to `path` (created or truncated). Throws StorageError naming the file and why.
void write_file(const std::string& path, const std::string& text);
// Writes a temporary file beside `path`, flushes it to the disk and renames it over `path`: a run
// killed at any moment leaves the old text or the new, never half of it. Throws StorageError.
void write_file_atomic(const std::string& path, const std::string& text);
// Appends `line` and a newline in one write, flushed to the disk: a kill leaves at most a torn
// last line, which complete_lines drops. Throws StorageError.
void append_line_synced(const std::string& path, const std::string& line);
// The text up to its last newline: a last line without one was cut by a kill (`torn` says so).
std::string complete_lines(const std::string& text, bool* torn = nullptr);

// A file the person running the grader names (a roster, a rubric, an earlier run's audit log):
// its bytes, at most `max_bytes`. Anything but a readable regular file of at most that size (a
// folder, a FIFO, a device, a file too large) is refused without blocking or reading it:
// cudalabs::UsageError naming `what` and the path, and saying what to give instead.
std::string read_given_file(const std::string& path, size_t max_bytes, const std::string& what);

// The free space on the disk that holds `path` (bytes an unprivileged user may still write).
unsigned long long free_bytes(const std::string& path);
// The most a process of a build may write in one file (its RLIMIT_FSIZE: compile/build.h).
constexpr long kBuildFileMiB = 64;
// The free space a run needs on the disks of its folders before it starts, before each build and
// after any build or write that failed: GRADING_MIN_FREE_MB (MiB) where that is set, else 1024
// MiB, and never less than kBuildFileMiB for each build that may run at once
// (set_builds_at_once): a build that failed while the disk had that much free did not fail for
// want of space.
unsigned long long required_free_bytes();
void set_builds_at_once(int builds);
// Throws StorageError, naming the folder, what is free and what is needed, when the disk that
// holds `dir` has less than required_free_bytes() free.
void check_free_space(const std::string& dir);
// Writes and removes a probe file of 64 KiB in `dir`, then check_free_space: throws StorageError,
// naming the folder and why, when the folder cannot be written or its disk is (nearly) full.
void check_writable(const std::string& dir);

bool exists(const std::string& path);
bool is_dir(const std::string& path);
void make_dirs(const std::string& path);  // mkdir -p; throws when the folder cannot be made
// rm -rf that follows no link (a link is removed, never what it names); never a path shorter
// than 8 characters. What it cannot remove stays.
void remove_tree(const std::string& path);
std::string absolute(const std::string& path);
std::string real_path(const std::string& path);  // realpath(3); "" when the path does not resolve
// Whether `inner` is `outer` or lies inside it (both as real paths, each resolved as far as it
// exists).
bool is_within(const std::string& inner, const std::string& outer);
std::vector<std::string> list_dir(const std::string& dir);  // sorted, without . and ..
std::string basename_of(const std::string& path);
std::string folder_of(const std::string& path);  // "." for a bare name

}  // namespace grading
