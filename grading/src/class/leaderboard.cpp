#include "class/leaderboard.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <sstream>
#include <tuple>

#include "args.h"
#include "class/audit_log.h"
#include "class/roster.h"
#include "util/sha256.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using cudalabs::UsageError;
using nlohmann::json;

namespace {

std::string hex_to_bytes(const std::string& hex) {
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

const char* const kAdjectives[64] = {
    "amber", "bold", "brave", "breezy", "bright", "brisk", "calm", "clever", "cosmic", "crimson", "crisp", "daring", "deft", "eager",
    "electric", "fierce", "fleet", "gentle", "gleaming", "golden", "grand", "hardy", "hasty", "humble", "icy", "jolly", "keen", "lively",
    "lucky", "lunar", "mellow", "merry", "mighty", "misty", "nimble", "noble", "polar", "proud", "quick", "quiet", "rapid", "rustic",
    "sage", "scarlet", "serene", "sharp", "silent", "silver", "sleek", "snowy", "solar", "spry", "steady", "stormy", "sturdy", "sunny",
    "swift", "tidal", "trusty", "vivid", "wandering", "wild", "witty", "zesty"};
const char* const kAnimals[64] = {
    "albatross", "antelope", "badger", "beaver", "bison", "bobcat", "condor", "cougar", "coyote", "crane", "dingo", "dolphin", "eagle",
    "egret", "falcon", "ferret", "finch", "fox", "gazelle", "gecko", "heron", "hornet", "ibex", "jackal", "jaguar", "kestrel", "koala",
    "lemur", "leopard", "lynx", "magpie", "marmot", "marten", "mink", "moose", "narwhal", "ocelot", "orca", "osprey", "otter", "owl",
    "panda", "panther", "pelican", "penguin", "puffin", "quail", "raven", "salmon", "seal", "shark", "sparrow", "stoat", "swan", "tapir",
    "tiger", "toucan", "trout", "turtle", "viper", "walrus", "weasel", "wolf", "yak"};

std::string figure_text(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", x);
    return buf;
}

double geometric_mean(const std::map<std::string, double>& m) {
    if (m.empty()) return 0;
    double s = 0;
    for (const auto& [id, x] : m) s += std::log(x);
    return std::exp(s / static_cast<double>(m.size()));
}

// "NVIDIA H100 80GB HBM3 (driver 12.8)" -> "NVIDIA H100 80GB HBM3": the model, not the driver.
std::string gpu_model(const std::string& device) {
    const size_t p = device.find(" (driver ");
    return device.substr(0, p);
}

std::string utc_date_of_file(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return "unknown";
    return utc_timestamp(st.st_mtime);
}

// One submission as its audit line gives it: its row on the board where it is ranked (all but
// the pseudonym and the rank, which the board gives), and what the board needs besides.
struct Candidate {
    LeaderboardRow row;
    std::string student_key, date, tree;
    bool date_from_file = false;  // the run recorded no date: its audit log's last change
    std::vector<std::string> chosen, ids;  // per roster entry: its chosen pseudonym ("" none) and id
    bool ranked = false;
};

}  // namespace

std::string hmac_sha256_hex(const std::string& key_in, const std::string& message) {
    std::string key = key_in.size() > 64 ? hex_to_bytes(sha256_hex(key_in)) : key_in;
    key.resize(64, '\0');
    std::string inner(64, '\0'), outer(64, '\0');
    for (size_t i = 0; i < 64; ++i) {
        inner[i] = static_cast<char>(key[i] ^ 0x36);
        outer[i] = static_cast<char>(key[i] ^ 0x5c);
    }
    return sha256_hex(outer + hex_to_bytes(sha256_hex(inner + message)));
}

std::string derived_pseudonym(const std::string& secret, const std::string& id) {
    const std::string mac = hmac_sha256_hex(secret, "cudalabs leaderboard pseudonym\n" + id);
    const unsigned a = static_cast<unsigned>(std::stoi(mac.substr(0, 2), nullptr, 16)) % 64;
    const unsigned b = static_cast<unsigned>(std::stoi(mac.substr(2, 2), nullptr, 16)) % 64;
    return std::string(kAdjectives[a]) + "-" + kAnimals[b] + "-" + mac.substr(4, 4);
}

LeaderboardFigures leaderboard_figures(const StudentResult& r, const Rubric& rubric) {
    LeaderboardFigures f;
    std::vector<std::string> missing;
    bool any_performance = false;
    for (const TestSpec& spec : rubric.tests) {
        auto it = std::find_if(r.tests.begin(), r.tests.end(), [&](const TestResult& t) { return t.id == spec.id; });
        const bool ran = it != r.tests.end() && !it->not_run;
        if (spec.kind == TestKind::Performance) {
            any_performance = true;
            if (ran && it->slowdown > 0) {
                f.slowdown[spec.id] = it->slowdown;
                if (it->timing.measured()) f.interval[spec.id] = {it->timing.low, it->timing.high};
            } else {
                missing.push_back(spec.id + " not timed");
            }
        } else if (spec.kind != TestKind::Questions && (!ran || !it->passed())) {  // the answers rank no kernel
            missing.push_back("not full marks in " + spec.id);
        }
    }
    if (!r.rejected.empty() || !r.grader_error.empty()) missing.insert(missing.begin(), "not graded");
    if (!any_performance) missing.push_back("the rubric times nothing");
    f.figure = geometric_mean(f.slowdown);
    // A test without an interval counts as its ratio at both ends.
    std::map<std::string, double> lows = f.slowdown, highs = f.slowdown;
    for (const auto& [id, range] : f.interval) {
        lows[id] = range.first;
        highs[id] = range.second;
    }
    f.figure_low = geometric_mean(lows);
    f.figure_high = geometric_mean(highs);
    f.ranked = missing.empty();
    f.why = join(missing, "; ");
    return f;
}

json leaderboard_audit(const StudentResult& r, const Rubric& rubric) {
    const LeaderboardFigures f = leaderboard_figures(r, rubric);
    if (f.slowdown.empty()) return nullptr;
    json j = {{"ranked", f.ranked}, {"slowdown", f.slowdown}, {"figure", f.figure}};
    if (!f.interval.empty()) {
        json intervals = json::object();
        for (const auto& [id, range] : f.interval) intervals[id] = {range.first, range.second};
        j["interval"] = intervals;
        j["figure_interval"] = {f.figure_low, f.figure_high};
    }
    if (!f.ranked) j["why"] = f.why;
    return j;
}

std::string with_gradescope_leaderboard(const std::string& results_json, const StudentResult& r, const Rubric& rubric) {
    const LeaderboardFigures f = leaderboard_figures(r, rubric);
    if (!f.ranked) return results_json;
    json j = json::parse(results_json);
    auto rounded = [](double x) { return std::round(x * 1000) / 1000; };
    json board = json::array();
    board.push_back({{"name", "kernel time / reference's"}, {"value", rounded(f.figure)}, {"order", "asc"}});
    if (f.slowdown.size() > 1)
        for (const auto& [id, x] : f.slowdown) board.push_back({{"name", id + " / reference's"}, {"value", rounded(x)}, {"order", "asc"}});
    j["leaderboard"] = board;
    return json_text(j, 2) + "\n";
}

std::string html_escape(const std::string& text) {
    std::string out;
    for (char c : printable_text(text, false)) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace {

// A run folder's audit log: its last run line and that run's submission lines.
AuditRun read_run_log(const std::string& dir) {
    const std::string audit_path = dir + "/audit.jsonl";
    if (!is_dir(dir) || !exists(audit_path))
        throw UsageError(dir + " has no audit.jsonl: give the folders that grading/grade wrote (or grade merge assembled)");
    AuditRun log = last_audit_run(read_file(audit_path));
    if (!log.readable) throw UsageError(audit_path + ": a line is not JSON: give a folder the grader wrote");
    if (log.run.is_null()) throw UsageError(audit_path + " has no run line: give a folder the grader wrote");
    return log;
}

// The tree a run graded with: its run line's, else what its tools line says.
std::string tree_of_run(const json& run) {
    std::string tree = run.value("tree", std::string());
    if (!tree.empty()) return tree;
    const std::string tools = run.value("tools", std::string());
    const size_t t = tools.find("tree: ");
    return t == std::string::npos ? "unknown" : tools.substr(t + 6);
}

// Workers sharing a GPU (GRADING_SHARED_GPUS=1, for testing the grader) disturb each other's
// timings: such a run ranks no one.
bool shares_gpus(const json& run) {
    if (!run.contains("gpus") || !run["gpus"].is_array()) return false;
    std::set<std::string> seen;
    for (const json& g : run["gpus"])
        if (g.is_object() && !seen.insert(g.value("cuda_visible_devices", std::string()) + "/" + g.value("device", std::string())).second)
            return true;
    return false;
}

// What a run says of its submissions besides their lines: where, when, which tree, whether its
// timings may rank anyone, and its roster (where it has one).
struct RunContext {
    const json* run_line = nullptr;
    std::string dir, date, tree;
    bool date_from_file = false;
    bool rankable = false;
    bool has_roster = false;
    Roster roster;
    RosterMatch match;
};

// One audit line as a candidate: its board (lab, GPU model), its students (the roster's, or the
// submission itself) and its figures where the run may rank it.
Candidate candidate_of(const json& line, const RunContext& run) {
    Candidate c;
    c.row.lab = line.value("lab", run.run_line->value("lab", std::string()));
    c.row.submission = line.value("student", "");
    c.row.run = run.dir;
    // When its results were written; a line without the date takes its run's.
    c.date = graded_at_of(line);
    if (c.date.empty()) {
        c.date = run.date;
        c.date_from_file = run.date_from_file;
    }
    c.tree = run.tree;
    c.row.gpu = line.contains("gpu") && line["gpu"].is_object() ? line["gpu"].value("name", std::string()) : "";
    if (c.row.gpu.empty()) c.row.gpu = gpu_model(line.value("device", "unknown"));
    auto it = run.has_roster ? run.match.students.find(c.row.submission) : run.match.students.end();
    if (run.has_roster && it != run.match.students.end()) {
        for (size_t e : it->second) {
            c.chosen.push_back(run.roster.entries[e].pseudonym);
            c.ids.push_back(run.roster.entries[e].id);
        }
    } else {
        c.chosen.push_back("");
        c.ids.push_back(c.row.submission);
    }
    c.student_key = join(c.ids, "\n");
    if (line.contains("leaderboard") && line["leaderboard"].is_object() && run.rankable) {
        const json& lb = line["leaderboard"];
        c.ranked = lb.value("ranked", false);
        if (lb.contains("slowdown") && lb["slowdown"].is_object())
            for (const auto& [id, x] : lb["slowdown"].items())
                if (x.is_number() && x.get<double>() > 0) c.row.slowdown[id] = x.get<double>();
        c.row.figure = geometric_mean(c.row.slowdown);
        if (c.row.slowdown.empty() || !(c.row.figure > 0)) c.ranked = false;
        c.row.low = c.row.high = c.row.figure;
        // The interval where the grader wrote one that holds the figure (older logs have none).
        const json range = lb.value("figure_interval", json());
        if (range.is_array() && range.size() == 2 && range[0].is_number() && range[1].is_number() && range[0].get<double>() > 0 &&
            range[0].get<double>() <= c.row.figure * (1 + 1e-9) && range[1].get<double>() >= c.row.figure * (1 - 1e-9)) {
            c.row.low = range[0].get<double>();
            c.row.high = range[1].get<double>();
        }
    }
    return c;
}

using CandidateKey = std::tuple<std::string, std::string, std::string>;  // lab, GPU, student

// Every run's candidates: (lab, gpu, student) -> the last folder's, and the keys in the order
// first seen.
void collect_candidates(const std::vector<std::string>& run_dirs, std::map<CandidateKey, Candidate>& latest, std::vector<CandidateKey>& order) {
    for (const std::string& dir : run_dirs) {
        const AuditRun log = read_run_log(dir);
        RunContext run;
        run.dir = dir;
        run.tree = tree_of_run(log.run);
        run.run_line = &log.run;
        // When it was graded: the date its run line recorded; a log written before the grader
        // recorded one has only the file's last change (which a copy or a restore moves).
        run.date = graded_at_of(log.run);
        run.date_from_file = run.date.empty();
        if (run.date_from_file) run.date = utc_date_of_file(dir + "/audit.jsonl");
        run.rankable = !log.run.value("compile_only", false) && !shares_gpus(log.run);
        LmsAssignment assignment;
        run.has_roster = exists(dir + "/roster.json");
        if (run.has_roster) parse_roster_record(read_file(dir + "/roster.json"), dir + "/roster.json", run.roster, run.match, assignment);
        for (const json& line : log.submissions) {
            Candidate c = candidate_of(line, run);
            const auto key = std::make_tuple(c.row.lab, c.row.gpu, c.student_key);
            if (!latest.count(key)) order.push_back(key);
            latest[key] = std::move(c);
        }
    }
}

// The name a ranked candidate is shown under: each of its students' chosen pseudonym, else one
// derived with the course's secret.
std::string pseudonym_of(const Candidate& c, const std::string& secret) {
    std::vector<std::string> names;
    for (size_t i = 0; i < c.ids.size(); ++i) {
        if (!c.chosen[i].empty()) {
            names.push_back(c.chosen[i]);
            continue;
        }
        if (secret.empty())
            throw UsageError("student '" + printable_text(c.ids[i], false) + "' (" + c.row.run +
                             ") has no pseudonym in the roster and no course secret is given: pass --secret-file FILE (16 characters or "
                             "more, kept by the instructors) or set GRADING_LEADERBOARD_SECRET, or choose pseudonyms in the roster's "
                             "Pseudonym column");
        names.push_back(derived_pseudonym(secret, c.ids[i]));
    }
    return join(names, " & ");
}

// Names told apart where two rows share one, the rows ordered fastest first, and their ranks
// (equal figures, equal ranks).
void rank_board(LeaderboardBoard& b, const std::set<std::string>& trees) {
    b.tree = join(std::vector<std::string>(trees.begin(), trees.end()), ", ");
    if (b.tree.empty()) b.tree = "-";
    // Two students under one name would be one row to a reader: tell them apart.
    std::map<std::string, int> count;
    for (const LeaderboardRow& r : b.rows) ++count[r.pseudonym];
    std::map<std::string, int> seen;
    for (LeaderboardRow& r : b.rows)
        if (count[r.pseudonym] > 1) r.pseudonym += " (" + std::to_string(++seen[r.pseudonym]) + ")";
    std::stable_sort(b.rows.begin(), b.rows.end(), [](const LeaderboardRow& x, const LeaderboardRow& y) {
        return x.figure != y.figure ? x.figure < y.figure : x.pseudonym < y.pseudonym;
    });
    rank_rows(b.rows);
}

}  // namespace

void rank_rows(std::vector<LeaderboardRow>& rows) {
    for (size_t first = 0; first < rows.size();) {
        const LeaderboardRow& lead = rows[first];
        size_t end = first + 1;
        while (end < rows.size() && rows[end].low <= lead.high && lead.low <= rows[end].high) ++end;
        for (size_t i = first; i < end; ++i) {
            rows[i].rank = static_cast<int>(first + 1);
            rows[i].tied = end - first > 1;
        }
        first = end;
    }
}

std::string rank_text(const LeaderboardRow& row) { return (row.tied ? "=" : "") + std::to_string(row.rank); }

std::vector<LeaderboardBoard> build_leaderboards(const std::vector<std::string>& run_dirs, const std::string& secret) {
    std::map<CandidateKey, Candidate> latest;
    std::vector<CandidateKey> order;
    collect_candidates(run_dirs, latest, order);
    std::vector<LeaderboardBoard> boards;
    std::map<std::pair<std::string, std::string>, size_t> board_of;
    std::map<size_t, std::set<std::string>> trees;
    for (const auto& key : order) {
        const Candidate& c = latest.at(key);
        const auto bk = std::make_pair(c.row.lab, c.row.gpu);
        if (!board_of.count(bk)) {
            board_of[bk] = boards.size();
            LeaderboardBoard b;
            b.lab = c.row.lab;
            b.gpu = c.row.gpu;
            boards.push_back(b);
        }
        const size_t bi = board_of[bk];
        LeaderboardBoard& b = boards[bi];
        // The board's date: its newest submission's, ranked or not; a recorded date before a file's.
        if (c.date > b.date || (c.date == b.date && !c.date_from_file)) {
            b.date = c.date;
            b.date_from_file = c.date_from_file;
        }
        if (!c.ranked) {
            ++b.not_ranked;
            continue;
        }
        trees[bi].insert(c.tree);
        b.rows.push_back(c.row);
        b.rows.back().pseudonym = pseudonym_of(c, secret);
    }
    for (size_t bi = 0; bi < boards.size(); ++bi) rank_board(boards[bi], trees[bi]);
    std::sort(boards.begin(), boards.end(), [](const LeaderboardBoard& x, const LeaderboardBoard& y) {
        return x.lab != y.lab ? x.lab < y.lab : x.gpu < y.gpu;
    });
    return boards;
}

std::string leaderboard_html(const std::vector<LeaderboardBoard>& boards, const std::string& title) {
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      << "<title>" << html_escape(title) << "</title>\n<style>\n"
      << "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}\n"
      << "table{border-collapse:collapse;width:100%;margin:0.5rem 0 2rem}\n"
      << "th,td{border-bottom:1px solid #ccc;padding:0.3rem 0.6rem;text-align:left}\n"
      << "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
      << "tbody tr:nth-child(1) td{font-weight:bold}\n.meta{color:#555}\n</style>\n</head>\n<body>\n"
      << "<h1>" << html_escape(title) << "</h1>\n"
      << "<p>Each figure is the grader's own measurement: the median, over rounds run alternately with the reference solution on "
         "the same GPU, of the submission's kernel time divided by the reference's. Lower is faster; 1.000 is as fast as the "
         "reference. Only submissions with full marks in every correctness and sanitizer test are ranked. Students appear under "
         "pseudonyms.</p>\n"
      << "<p class=\"ties\">The interval beside each figure is where its true value lies with 95% confidence, from resampling "
         "its rounds (a bootstrap). A rank shown as =3 is shared: those entries' intervals overlap the interval of the fastest "
         "entry of the group, so the measurement cannot tell them apart.</p>\n";
    if (std::any_of(boards.begin(), boards.end(), [](const LeaderboardBoard& b) { return b.date_from_file; }))
        o << "<p class=\"file-dates\">A date marked (file date) is when the run's audit log was last changed, which copying or "
             "restoring the folder moves: that run was graded before the grader recorded when it graded.</p>\n";
    if (boards.empty()) o << "<p>No graded submission to show.</p>\n";
    for (const LeaderboardBoard& b : boards) {
        std::set<std::string> tests;  // a column each where there are several (one would repeat the figure)
        for (const LeaderboardRow& r : b.rows)
            for (const auto& [id, x] : r.slowdown) tests.insert(id);
        if (tests.size() < 2) tests.clear();
        o << "<section class=\"board\" data-lab=\"" << html_escape(b.lab) << "\" data-gpu=\"" << html_escape(b.gpu) << "\">\n"
          << "<h2>Lab " << html_escape(b.lab) << " on " << html_escape(b.gpu) << "</h2>\n"
          << "<p class=\"meta\">GPU: <span class=\"gpu\">" << html_escape(b.gpu) << "</span>. Graded: <span class=\"date\">"
          << html_escape(b.date) << "</span>" << (b.date_from_file ? " <span class=\"date-source\">(file date)</span>" : "")
          << ". Tree: <span class=\"tree\">" << html_escape(b.tree) << "</span>. " << b.rows.size()
          << " ranked, " << b.not_ranked << " not ranked (not full marks in correctness or sanitizer tests, or not timed).</p>\n"
          << "<table>\n<thead><tr><th class=\"num\">Rank</th><th>Student</th><th class=\"num\">Time / reference's</th><th class=\"num\">95% interval</th>";
        for (const std::string& t : tests) o << "<th class=\"num\">" << html_escape(t) << "</th>";
        o << "</tr></thead>\n<tbody>\n";
        for (const LeaderboardRow& r : b.rows) {
            o << "<tr><td class=\"num rank\">" << rank_text(r) << "</td><td class=\"pseudonym\">" << html_escape(r.pseudonym)
              << "</td><td class=\"num figure\">" << figure_text(r.figure) << "</td><td class=\"num interval\">"
              << (r.low < r.high ? figure_text(r.low) + "&ndash;" + figure_text(r.high) : "-") << "</td>";
            for (const std::string& t : tests) {
                auto it = r.slowdown.find(t);
                o << "<td class=\"num test\">" << (it == r.slowdown.end() ? "-" : figure_text(it->second)) << "</td>";
            }
            o << "</tr>\n";
        }
        o << "</tbody>\n</table>\n</section>\n";
    }
    o << "</body>\n</html>\n";
    return o.str();
}

std::string leaderboard_csv(const std::vector<LeaderboardBoard>& boards) {
    std::ostringstream o;
    o << "lab,gpu,rank,pseudonym,figure,tests,date,tree,interval_low,interval_high,tied,date_source\n";
    for (const LeaderboardBoard& b : boards)
        for (const LeaderboardRow& r : b.rows) {
            std::vector<std::string> tests;
            for (const auto& [id, x] : r.slowdown) tests.push_back(id + "=" + figure_text(x));
            o << csv_field(b.lab) << "," << csv_field(b.gpu) << "," << r.rank << "," << csv_field(r.pseudonym) << "," << figure_text(r.figure)
              << "," << csv_field(join(tests, "; ")) << "," << csv_field(b.date) << "," << csv_field(b.tree) << "," << figure_text(r.low)
              << "," << figure_text(r.high) << "," << (r.tied ? "yes" : "no") << "," << (b.date_from_file ? "file" : "recorded") << "\n";
        }
    return o.str();
}

std::string leaderboard_command(const std::vector<std::string>& args) {
    std::string secret_file, title = "Leaderboard";
    std::vector<std::string> rest;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
            return args[++i];
        };
        if (a == "--secret-file") secret_file = value();
        else if (a == "--title") title = value();
        else if (!a.empty() && a[0] == '-')
            throw UsageError("leaderboard takes no option '" + a + "': grading/grade leaderboard [--secret-file FILE] [--title TEXT] OUT RUN_DIR...");
        else rest.push_back(a);
    }
    if (rest.size() < 2)
        throw UsageError("leaderboard needs a folder to write into and the graded runs' folders: grading/grade leaderboard OUT RUN_DIR...");
    std::string secret;
    if (!secret_file.empty()) {
        secret = read_given_file(secret_file, 1 << 16, "file of --secret-file");
        while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
        if (secret.size() < 16) throw UsageError(secret_file + " holds fewer than 16 characters: a course secret must be long enough not to be guessed");
    } else if (const char* env = std::getenv("GRADING_LEADERBOARD_SECRET")) {
        secret = env;
        if (!secret.empty() && secret.size() < 16)
            throw UsageError("GRADING_LEADERBOARD_SECRET holds fewer than 16 characters: a course secret must be long enough not to be guessed");
    }
    const std::vector<LeaderboardBoard> boards = build_leaderboards(std::vector<std::string>(rest.begin() + 1, rest.end()), secret);
    make_dirs(rest[0]);
    write_file(rest[0] + "/leaderboard.html", leaderboard_html(boards, title));
    write_file(rest[0] + "/leaderboard.csv", leaderboard_csv(boards));
    std::ostringstream o;
    for (const LeaderboardBoard& b : boards)
        o << "lab " << b.lab << " on " << printable_text(b.gpu, false) << ": " << b.rows.size() << " ranked, " << b.not_ranked << " not ranked\n";
    o << "leaderboard: " << absolute(rest[0]) << "/leaderboard.html and leaderboard.csv\n";
    return o.str();
}

}  // namespace grading
