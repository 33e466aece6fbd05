// The class leaderboard (`grading/grade leaderboard OUT RUN_DIR...`): from the grader's own
// audit logs only (never anything a student reports), the submissions with full correctness and
// sanitizer marks ranked by the grader's median ratio of their kernel time to the
// reference's, per lab and GPU model, under pseudonyms; a self-contained HTML page and a CSV.
// Also each submission's figures for the audit log and Gradescope's results.json "leaderboard".
// Host-only: unit-tested with g++.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "class/results.h"
#include "intake/rubric.h"

namespace grading {

// HMAC-SHA256 (RFC 2104) of `message` under `key`, as lowercase hex.
std::string hmac_sha256_hex(const std::string& key, const std::string& message);

// A readable pseudonym derived from a student's id with the course's secret: an adjective, an
// animal and 4 hex digits of HMAC-SHA256(secret, id) ("brisk-otter-3f2a"). The same id and
// secret always give the same pseudonym; without the secret the id cannot be recovered from it.
std::string derived_pseudonym(const std::string& secret, const std::string& id);

// What the leaderboard needs of one graded submission: the performance tests'
// median ratios (the student's kernel time over the reference's; test id -> ratio), their
// geometric mean, and whether it may be ranked: every correctness and sanitizer test of the
// rubric at full marks, and every performance test timed (not forged).
// With each ratio, its 95% bootstrap interval (performance_timing), and for the figure the
// geometric means of the intervals' ends (no narrower than the tests' own intervals allow).
struct LeaderboardFigures {
    bool ranked = false;
    std::string why;  // when not ranked
    std::map<std::string, double> slowdown;
    std::map<std::string, std::pair<double, double>> interval;  // test id -> (low, high)
    double figure = 0;  // geometric mean of `slowdown`
    double figure_low = 0, figure_high = 0;
};
LeaderboardFigures leaderboard_figures(const StudentResult& r, const Rubric& rubric);
// The audit line's "leaderboard" object; null where no performance test was timed (nothing to rank).
nlohmann::json leaderboard_audit(const StudentResult& r, const Rubric& rubric);
// Gradescope's results.json text with its "leaderboard" entries added (the geometric mean, then
// each performance test's ratio, "order": "asc") where the submission is ranked; else unchanged.
std::string with_gradescope_leaderboard(const std::string& results_json, const StudentResult& r, const Rubric& rubric);

// One ranked row of the leaderboard.
struct LeaderboardRow {
    std::string lab, gpu, pseudonym, submission, run;
    double figure = 0;
    double low = 0, high = 0;  // the figure's interval (the figure itself where the audit log has none)
    std::map<std::string, double> slowdown;
    int rank = 0;
    bool tied = false;  // shares its rank: shown as "=3"
};

// Ranks rows ordered fastest first. The fastest row not yet ranked opens a group, and every
// following row whose interval overlaps that row's joins it: the measurement cannot tell them
// apart, so they share the group's rank (its place, from 1) and are `tied`. Rows without an
// interval tie only where their figures are equal.
void rank_rows(std::vector<LeaderboardRow>& rows);
// "=3" for a tied row, else "3".
std::string rank_text(const LeaderboardRow& row);
// `date`: when its newest submission was graded (UTC, ISO 8601), as the audit log records it; a
// run that recorded none is dated by its audit log's last change, `date_from_file`.
struct LeaderboardBoard {
    std::string lab, gpu, date, tree;
    bool date_from_file = false;
    std::vector<LeaderboardRow> rows;  // ranked, fastest first
    size_t not_ranked = 0;
};

// Reads the run folders (their audit.jsonl's last run, and roster.json where there is one) and
// builds the boards, one per lab and GPU model. A student graded in several folders counts from
// the last folder given. `secret` derives the pseudonyms the roster does not choose; without it
// such a student is refused (cudalabs::UsageError). Throws UsageError for a folder that is no run.
std::vector<LeaderboardBoard> build_leaderboards(const std::vector<std::string>& run_dirs, const std::string& secret);
std::string leaderboard_html(const std::vector<LeaderboardBoard>& boards, const std::string& title);
std::string leaderboard_csv(const std::vector<LeaderboardBoard>& boards);

// `grading/grade leaderboard [--secret-file FILE] [--title TEXT] OUT RUN_DIR...`: writes
// OUT/leaderboard.html and OUT/leaderboard.csv; returns what to print. The secret comes from
// --secret-file or the environment's GRADING_LEADERBOARD_SECRET (at least 16 characters).
std::string leaderboard_command(const std::vector<std::string>& args);

// Text made safe inside HTML (element content and quoted attribute values).
std::string html_escape(const std::string& text);

}  // namespace grading
