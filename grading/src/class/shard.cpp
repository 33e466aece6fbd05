#include "class/shard.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "args.h"
#include "class/audit_log.h"
#include "class/results.h"
#include "class/roster.h"
#include "util/files.h"
#include "util/text.h"

using nlohmann::json;
using cudalabs::UsageError;

namespace grading {

std::vector<std::string> shard_members(const std::vector<std::string>& class_ids, int k, int n) {
    std::vector<std::string> sorted = class_ids;
    std::sort(sorted.begin(), sorted.end());
    std::set<std::string> mine;
    for (size_t i = static_cast<size_t>(k); i < sorted.size(); i += static_cast<size_t>(n)) mine.insert(sorted[i]);
    std::vector<std::string> out;
    for (const std::string& id : class_ids)
        if (mine.count(id)) out.push_back(id);
    return out;
}

// shard.json holds every field of the record, by its name.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ShardRecord, k, n, finished, seed, lab, rubric, rubric_sha256, tree, tools, isolation, device,
                                   regrade_of, compile_only, class_ids, assigned, gpus, summary_head, summary_rows, regrade_notes)

std::string shard_record_json(const ShardRecord& r) { return json_text(json(r), 2) + "\n"; }

ShardRecord parse_shard_record(const std::string& text, const std::string& source) {
    ShardRecord r;
    try {
        r = json::parse(text).get<ShardRecord>();
    } catch (const json::exception& e) {
        throw UsageError(source + " is not a shard's shard.json (" + e.what() + ")");
    }
    if (r.n < 1 || r.k < 0 || r.k >= r.n) throw UsageError(source + ": shard " + std::to_string(r.k) + "/" + std::to_string(r.n) + " is out of range");
    return r;
}

std::vector<std::string> csv_records(const std::string& text) {
    std::vector<std::string> out;
    std::string record;
    bool quoted = false;
    for (char c : text) {
        record += c;
        if (c == '"') quoted = !quoted;  // "" inside a quoted cell toggles twice
        else if (c == '\n' && !quoted) {
            out.push_back(record);
            record.clear();
        }
    }
    if (!record.empty()) out.push_back(record + "\n");
    return out;
}

namespace {

struct Shard {
    std::string dir;
    ShardRecord rec;
    std::string gradebook_head;
    std::map<std::string, std::string> gradebook_rows;  // student -> its record
    json run_line;
    std::map<std::string, std::string> audit_lines;     // student -> its line
};

// What to run again: `k` is the shard's number, or "K" for several.
std::string rerun_hint(const ShardRecord& r, const std::string& what, const std::string& k) {
    return "grade " + what + " again with grading/grade --lab " + r.lab + " --seed " + std::to_string(r.seed) + " --shard " + k + "/" +
           std::to_string(r.n) + (r.compile_only ? " --compile-only" : "") + " (the same submissions and options), then merge again";
}
std::string rerun_hint(const ShardRecord& r) { return rerun_hint(r, "that shard", std::to_string(r.k)); }

// The lines of an audit log after its last "run" line: a folder graded twice appends.
void read_audit(Shard& s) {
    const std::string path = s.dir + "/audit.jsonl";
    if (!exists(path)) throw UsageError(s.dir + " has no audit.jsonl: " + rerun_hint(s.rec));
    const AuditRun log = last_audit_run(read_file(path));
    if (!log.readable) throw UsageError(path + ": a line is not JSON");
    if (log.run.is_null()) throw UsageError(path + " has no run line");
    s.run_line = log.run;
    for (const json& j : log.submissions) {
        const std::string student = j.value("student", "");
        if (s.audit_lines.count(student)) throw UsageError("student '" + student + "' appears twice in " + path);
        s.audit_lines[student] = json_text(j);
    }
}

// The gradebook's rows in the shard's order, checked against the students it was assigned.
void read_gradebook(Shard& s) {
    const std::string path = s.dir + "/gradebook.csv";
    if (!exists(path)) throw UsageError(s.dir + " has no gradebook.csv: " + rerun_hint(s.rec));
    std::vector<std::string> records = csv_records(read_file(path));
    if (records.empty()) throw UsageError(path + " is empty");
    s.gradebook_head = records[0];
    if (records.size() - 1 != s.rec.assigned.size())
        throw UsageError(path + " has " + std::to_string(records.size() - 1) + " rows but the shard was assigned " +
                         std::to_string(s.rec.assigned.size()) + " students: " + rerun_hint(s.rec));
    for (size_t i = 0; i < s.rec.assigned.size(); ++i) {
        const std::string& id = s.rec.assigned[i];
        const std::string cell = csv_field(id) + ",";
        if (records[i + 1].compare(0, cell.size(), cell) != 0)
            throw UsageError(path + ": row " + std::to_string(i + 1) + " is not student '" + id + "', whom shard.json names there");
        s.gradebook_rows[id] = records[i + 1];
    }
}

// One value for the class when the shards agree, else each shard's.
template <class Get>
std::string combined(const std::vector<Shard>& shards, Get get) {
    std::set<std::string> distinct;
    for (const Shard& s : shards) distinct.insert(get(s.rec));
    if (distinct.size() == 1) return *distinct.begin();
    std::vector<std::string> each;
    for (const Shard& s : shards) each.push_back("shard " + std::to_string(s.rec.k) + ": " + get(s.rec));
    return join(each, "; ");
}

// The shards' folders with their shard.json, refusing what is no shard's folder.
std::vector<Shard> read_shard_records(const std::string& out, const std::vector<std::string>& shard_dirs) {
    if (shard_dirs.empty()) throw UsageError("merge needs the shards' folders: grading/grade merge OUT SHARD_DIR...");
    std::vector<Shard> shards;
    for (const std::string& d : shard_dirs) {
        const std::string dir = absolute(d);
        if (!is_dir(dir)) throw UsageError("no such folder: " + d);
        if (dir == absolute(out)) throw UsageError("the merged results' folder " + out + " is also given as a shard");
        if (!exists(dir + "/shard.json"))
            throw UsageError(d + " has no shard.json: it is not the folder of a grading/grade --shard K/N run, or that shard stopped "
                             "before it began grading (then grade it again)");
        Shard s;
        s.dir = dir;
        s.rec = parse_shard_record(read_file(dir + "/shard.json"), d + "/shard.json");
        shards.push_back(s);
    }
    return shards;
}

// All of one run: the same seed, rubric, tree, lab, N, class and mode.
void check_one_run(const std::vector<Shard>& shards, const std::string& first_dir) {
    const ShardRecord& first = shards[0].rec;
    auto same = [&](const char* what, auto get, auto show) {
        for (const Shard& s : shards)
            if (get(s.rec) != get(first))
                throw UsageError("shards of different " + std::string(what) + ": " + first_dir + " has " + show(first) + ", " + s.dir +
                                 " has " + show(s.rec) + "; merge only the shards of one class graded with the same --seed, rubric, tree, lab and N");
    };
    auto text = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
    same("labs", [](const ShardRecord& r) { return r.lab; }, [](const ShardRecord& r) { return "lab " + r.lab; });
    same("seeds", [](const ShardRecord& r) { return r.seed; }, [](const ShardRecord& r) { return "seed " + std::to_string(r.seed); });
    same("rubrics", [](const ShardRecord& r) { return r.rubric_sha256; },
         [](const ShardRecord& r) { return "rubric " + r.rubric + " (sha256 " + r.rubric_sha256.substr(0, 12) + ")"; });
    same("trees", [](const ShardRecord& r) { return r.tree; }, [&](const ShardRecord& r) { return "tree " + text(r.tree); });
    same("shard counts (N)", [](const ShardRecord& r) { return r.n; }, [](const ShardRecord& r) { return "N = " + std::to_string(r.n); });
    same("modes", [](const ShardRecord& r) { return r.compile_only; },
         [](const ShardRecord& r) { return std::string(r.compile_only ? "--compile-only" : "full grading"); });
    same("regrades", [](const ShardRecord& r) { return r.regrade_of; }, [&](const ShardRecord& r) { return "regrade of " + text(r.regrade_of); });
    same("classes", [](const ShardRecord& r) { return r.class_ids; },
         [](const ShardRecord& r) { return std::to_string(r.class_ids.size()) + " students (" + join(r.class_ids, " ").substr(0, 200) + ")"; });
    same("rubric tests", [](const ShardRecord& r) { return r.summary_head; }, [](const ShardRecord& r) { return join(r.summary_head, " "); });
}

// Every shard of the N once, each finished.
void check_every_shard_once(const std::vector<Shard>& shards) {
    const ShardRecord& first = shards[0].rec;
    std::map<int, std::string> by_k;
    for (const Shard& s : shards) {
        auto it = by_k.find(s.rec.k);
        if (it != by_k.end())
            throw UsageError("shard " + std::to_string(s.rec.k) + "/" + std::to_string(s.rec.n) + " is given twice: " + it->second + " and " + s.dir);
        by_k[s.rec.k] = s.dir;
    }
    std::vector<std::string> missing;
    for (int k = 0; k < first.n; ++k)
        if (!by_k.count(k)) missing.push_back(std::to_string(k));
    if (missing.size() == 1)
        throw UsageError("shard " + missing[0] + " of " + std::to_string(first.n) + " is missing: " +
                         rerun_hint(first, "only that one", missing[0]) + ", giving every shard's folder");
    if (missing.size() > 1)
        throw UsageError("shards " + join(missing, ", ") + " of " + std::to_string(first.n) + " are missing: " +
                         rerun_hint(first, "only those", "K") + ", giving every shard's folder");
    for (const Shard& s : shards)
        if (!s.rec.finished)
            throw UsageError("shard " + std::to_string(s.rec.k) + "/" + std::to_string(s.rec.n) + " (" + s.dir + ") did not finish: " +
                             rerun_hint(s.rec));
}

// Every student in exactly one shard, the one the slicing gives.
void check_students_sliced(const std::vector<Shard>& shards) {
    std::map<std::string, int> owner;
    for (const Shard& s : shards)
        for (const std::string& id : s.rec.assigned) {
            auto it = owner.find(id);
            if (it != owner.end())
                throw UsageError("student '" + id + "' appears in two shards (" + std::to_string(it->second) + " and " + std::to_string(s.rec.k) +
                                 "): merge only the shards of one class");
            owner[id] = s.rec.k;
        }
    for (const Shard& s : shards)
        if (s.rec.assigned != shard_members(s.rec.class_ids, s.rec.k, s.rec.n))
            throw UsageError(s.dir + "/shard.json: its students are not those of shard " + std::to_string(s.rec.k) + "/" +
                             std::to_string(s.rec.n) + " of its class");
}

// With --roster every shard matched the whole class, so their roster.json are one: its text
// ("" without a roster).
std::string common_roster_record(const std::vector<Shard>& shards) {
    const std::string roster_record = read_file(shards[0].dir + "/roster.json");  // "" where there is none
    for (const Shard& s : shards)
        if (read_file(s.dir + "/roster.json") != roster_record)
            throw UsageError(s.dir + "/roster.json differs from " + shards[0].dir + "/roster.json (or only one has it): grade every shard with "
                             "the same --roster and --lms options, then merge again");
    return roster_record;
}

// Reads each shard's gradebook and audit log, and checks that its files hold what it says.
void read_shard_files(std::vector<Shard>& shards) {
    for (Shard& s : shards) {
        read_gradebook(s);
        read_audit(s);
        if (s.gradebook_head != shards[0].gradebook_head)
            throw UsageError(s.dir + "/gradebook.csv has other columns than " + shards[0].dir + "/gradebook.csv");
        for (const std::string& id : s.rec.assigned) {
            if (!s.audit_lines.count(id)) throw UsageError(s.dir + "/audit.jsonl has no line for student '" + id + "': " + rerun_hint(s.rec));
            for (const char* f : {"feedback/%.md", "results/%.json"}) {
                const std::string path = s.dir + "/" + replace_all(f, "%", id);
                if (!exists(path)) throw UsageError(path + " is missing: " + rerun_hint(s.rec));
            }
            auto row = s.rec.summary_rows.find(id);
            if (row == s.rec.summary_rows.end() || row->second.size() != s.rec.summary_head.size())
                throw UsageError(s.dir + "/shard.json has no summary row for student '" + id + "'");
        }
        if (s.audit_lines.size() != s.rec.assigned.size())
            throw UsageError(s.dir + "/audit.jsonl has " + std::to_string(s.audit_lines.size()) + " submission lines but the shard was assigned " +
                             std::to_string(s.rec.assigned.size()) + " students");
    }
}

// The merged class: its students in class order, each with the shard that graded it.
struct MergedClass {
    const std::vector<Shard>& shards;
    const std::vector<std::string>& ids;
    std::map<std::string, const Shard*> shard_of;
    const Shard& of(const std::string& id) const { return *shard_of.at(id); }
};

// Each student's feedback and results.json as its shard wrote them.
void copy_student_files(const std::string& out, const MergedClass& c) {
    for (const std::string& id : c.ids) {
        const Shard& s = c.of(id);
        write_file(out + "/feedback/" + id + ".md", read_file(s.dir + "/feedback/" + id + ".md"));
        write_file(out + "/results/" + id + ".json", read_file(s.dir + "/results/" + id + ".json"));
        for (const char* picture : {".roofline.json", ".roofline.svg"})  // beside the feedback, where drawn
            if (exists(s.dir + "/feedback/" + id + picture))
                write_file(out + "/feedback/" + id + picture, read_file(s.dir + "/feedback/" + id + picture));
    }
}

// The latest of the shards' run lines' "graded_at" (when each began grading), "" where none has
// one: a class is graded when its last shard is.
std::string latest_graded_at(const std::vector<Shard>& shards) {
    std::string latest;
    for (const Shard& s : shards) latest = std::max(latest, graded_at_of(s.run_line));
    return latest;
}

// The run line of one run of the whole class: no shard, each shard's isolation and tools where
// they differ, the latest shard's date, and with --gpus every shard's GPUs, each marked with its
// shard (`gpu_lines`: the summary's lines on them).
json merged_run_line(const MergedClass& c, const std::string& isolation, const std::string& tools, std::vector<std::string>& gpu_lines) {
    json run_line = c.shards[0].run_line;
    run_line.erase("shard");
    run_line["submissions"] = c.ids.size();
    run_line["isolation"] = isolation;
    run_line["tools"] = tools;
    run_line.erase("graded_at");
    if (const std::string latest = latest_graded_at(c.shards); !latest.empty()) run_line["graded_at"] = latest;
    std::vector<const Shard*> by_shard;
    for (const Shard& s : c.shards) by_shard.push_back(&s);
    std::sort(by_shard.begin(), by_shard.end(), [](const Shard* a, const Shard* b) { return a->rec.k < b->rec.k; });
    json gpus = json::array();
    for (const Shard* s : by_shard) {
        for (const std::string& line : s->rec.gpus) gpu_lines.push_back("shard " + std::to_string(s->rec.k) + ", " + line);
        if (s->run_line.contains("gpus") && s->run_line.at("gpus").is_array())
            for (json g : s->run_line.at("gpus")) {
                g["shard"] = s->rec.k;
                gpus.push_back(g);
            }
    }
    run_line.erase("gpus");
    if (!gpus.empty()) run_line["gpus"] = gpus;
    return run_line;
}

// The summary's table of the class and the lines under it.
std::string merged_summary(const MergedClass& c, const std::string& device, const std::string& isolation, const std::string& tools,
                           const std::vector<std::string>& gpu_lines) {
    const ShardRecord& first = c.shards[0].rec;
    std::vector<std::vector<std::string>> rows = {first.summary_head};
    std::vector<std::string> notes;
    size_t same_count = 0;
    for (const std::string& id : c.ids) {
        const ShardRecord& r = c.of(id).rec;
        rows.push_back(r.summary_rows.at(id));
        auto note = r.regrade_notes.find(id);
        if (note == r.regrade_notes.end() || note->second.empty()) ++same_count;
        else notes.push_back(note->second);
    }
    return summary_table(rows) + "\n" +
           summary_tail(first.lab, c.ids.size(), first.seed, device, isolation, tools, first.regrade_of, same_count, notes) +
           gpu_summary(gpu_lines, "the shards' --gpus");
}

// Writes the class's files into OUT (checked new or empty) and returns the summary.
std::string write_merged(const std::string& out, const MergedClass& c) {
    if (exists(out) && (!is_dir(out) || !list_dir(out).empty()))
        throw UsageError(out + " already exists and is not empty: merge writes into a new or empty folder");
    make_dirs(out + "/feedback");
    make_dirs(out + "/results");
    copy_student_files(out, c);

    std::string gradebook = c.shards[0].gradebook_head;
    for (const std::string& id : c.ids) gradebook += c.of(id).gradebook_rows.at(id);
    write_file(out + "/gradebook.csv", gradebook);

    const std::string isolation = combined(c.shards, [](const ShardRecord& r) { return r.isolation; });
    const std::string tools = combined(c.shards, [](const ShardRecord& r) { return r.tools; });
    const std::string device = combined(c.shards, [](const ShardRecord& r) { return r.device; });
    std::vector<std::string> gpu_lines;
    std::string audit = json_text(merged_run_line(c, isolation, tools, gpu_lines)) + "\n";
    for (const std::string& id : c.ids) audit += c.of(id).audit_lines.at(id) + "\n";
    write_file(out + "/audit.jsonl", audit);

    const std::string summary = merged_summary(c, device, isolation, tools, gpu_lines);
    write_file(out + "/summary.txt", summary);
    return summary;
}

}  // namespace

std::string merge_shards(const std::string& out, const std::vector<std::string>& shard_dirs) {
    std::vector<Shard> shards = read_shard_records(out, shard_dirs);
    check_one_run(shards, shard_dirs[0]);
    check_every_shard_once(shards);
    check_students_sliced(shards);
    const std::string roster_record = common_roster_record(shards);
    read_shard_files(shards);

    // OUT: new or empty; nothing of a shard is moved or removed.
    MergedClass merged{shards, shards[0].rec.class_ids, {}};
    for (const Shard& s : shards)
        for (const std::string& id : s.rec.assigned) merged.shard_of[id] = &s;
    const std::string summary = write_merged(out, merged);
    if (roster_record.empty()) return summary;
    write_file(out + "/roster.json", roster_record);
    return summary + write_roster_outputs(out);  // the class's LMS files, from the merged audit log
}

}  // namespace grading
