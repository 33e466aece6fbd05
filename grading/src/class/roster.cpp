#include "class/roster.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "class/audit_log.h"
#include "class/results.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

using nlohmann::json;

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// A header cell as a key: lower case, words separated by one space ("Email Address" ->
// "email address", "SIS_User_ID" -> "sis user id").
std::string header_key(const std::string& s) {
    std::string out;
    for (char c : lower(trim(s))) {
        const bool sep = c == ' ' || c == '_' || c == '-' || c == '\t';
        if (sep) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    return trim(out);
}

struct CsvRecord {
    int line = 0;
    std::vector<std::string> cells;
};

// RFC 4180 records with the line each starts on; `sep` separates cells.
std::vector<CsvRecord> parse_csv(const std::string& text, char sep, const std::string& path) {
    std::vector<CsvRecord> out;
    CsvRecord rec;
    std::string cell;
    int line = 1;
    rec.line = 1;
    bool quoted = false, any = false;
    int quote_line = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    cell += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n') ++line;
                cell += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            quote_line = line;
            any = true;
        } else if (c == sep) {
            rec.cells.push_back(cell);
            cell.clear();
            any = true;
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            // CR LF: the CR is dropped, the LF ends the record
        } else if (c == '\n' || c == '\r') {
            // LF, or a lone CR (old Mac exports), ends the record
            rec.cells.push_back(cell);
            out.push_back(rec);
            rec = CsvRecord();
            cell.clear();
            any = false;
            rec.line = ++line;
        } else {
            cell += c;
            any = true;
        }
    }
    if (quoted)
        throw RosterError(path + ":" + std::to_string(quote_line) + ": a quoted cell is never closed: close its '\"' (a quote inside a cell is written twice)");
    if (any || !cell.empty()) {
        rec.cells.push_back(cell);
        out.push_back(rec);
    }
    return out;
}

bool all_blank(const std::vector<std::string>& cells) {
    return std::all_of(cells.begin(), cells.end(), [](const std::string& c) { return trim(c).empty(); });
}

// Words of a name or a folder name, lower case: letters and digits (and any non-ASCII byte)
// make words, everything else separates them.
std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::string w;
    for (char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || u >= 0x80) {
            w += static_cast<char>(std::tolower(u));
        } else if (!w.empty()) {
            out.push_back(w);
            w.clear();
        }
    }
    if (!w.empty()) out.push_back(w);
    return out;
}

// The keys under which a name is found: its words in any order, and its words run together in
// the order given or reversed ("janedoe", "doejane").
std::vector<std::string> name_keys(const std::string& name) {
    std::vector<std::string> w = words(name);
    if (w.empty()) return {};
    std::vector<std::string> keys;
    std::vector<std::string> sorted = w;
    std::sort(sorted.begin(), sorted.end());
    keys.push_back("w:" + join(sorted, " "));
    std::string fwd, back;
    for (size_t i = 0; i < w.size(); ++i) {
        fwd += w[i];
        back += w[w.size() - 1 - i];
    }
    keys.push_back("c:" + fwd);
    keys.push_back("c:" + back);
    return keys;
}

std::string local_part(const std::string& s) {
    const size_t at = s.find('@');
    return at == std::string::npos ? "" : s.substr(0, at);
}

// Indices of the entries for which `key_of` gives `key` (lower case, non-empty).
class Index {
public:
    void add(const std::string& key, size_t entry) {
        if (key.empty()) return;
        std::vector<size_t>& v = map_[key];
        if (std::find(v.begin(), v.end(), entry) == v.end()) v.push_back(entry);
    }
    std::vector<size_t> find(const std::string& key) const {
        auto it = map_.find(key);
        return it == map_.end() ? std::vector<size_t>{} : it->second;
    }

private:
    std::map<std::string, std::vector<size_t>> map_;
};

struct Indexes {
    Index ids, emails, locals, names;
};

Indexes index_roster(const Roster& roster) {
    Indexes x;
    for (size_t i = 0; i < roster.entries.size(); ++i) {
        const RosterEntry& e = roster.entries[i];
        for (const std::string& id : {e.id, e.canvas_id, e.sis_id}) x.ids.add(lower(trim(id)), i);
        for (const std::string& m : {e.email, e.login}) {
            x.emails.add(lower(trim(m)), i);
            x.locals.add(lower(local_part(trim(m))), i);
        }
        if (local_part(e.login).empty()) x.locals.add(lower(trim(e.login)), i);
        for (const std::string& k : name_keys(e.name)) x.names.add(k, i);
    }
    return x;
}

std::string lines_of(const Roster& roster, const std::vector<size_t>& found) {
    std::vector<std::string> lines;
    for (size_t i : found) lines.push_back(std::to_string(roster.entries[i].line));
    return join(lines, ", ");
}

// The one entry a name (a folder's, a file's, a Gradescope user's) stands for. Returns false and
// says why when it is no one or several.
bool match_name(const Roster& roster, const Indexes& x, const std::string& raw, size_t& entry, std::string& why) {
    const std::string n = lower(trim(raw));
    std::vector<std::vector<size_t>> tries;
    tries.push_back(x.ids.find(n));
    tries.push_back(x.emails.find(n));
    tries.push_back(x.locals.find(n));
    // Canvas's "Download Submissions": lastfirst_[late_]USERID_SUBMISSIONID_file
    {
        std::vector<std::string> parts;
        std::stringstream ss(n);
        for (std::string p; std::getline(ss, p, '_');) parts.push_back(p);
        size_t k = parts.size() > 1 && parts[1] == "late" ? 2 : 1;
        auto digits = [](const std::string& p) {
            return !p.empty() && std::all_of(p.begin(), p.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        };
        if (parts.size() > k + 1 && digits(parts[k]) && digits(parts[k + 1])) tries.push_back(x.ids.find(parts[k]));
    }
    // Moodle's "Download all submissions": Full Name_PARTICIPANT_assignsubmission_file_
    std::string name = raw;
    const size_t moodle = n.find("_assignsubmission_");
    if (moodle != std::string::npos) {
        const size_t cut = n.rfind('_', moodle - 1);
        if (cut != std::string::npos && cut > 0) name = raw.substr(0, cut);
    }
    // The name: every key of it must lead to the same single entry.
    std::vector<size_t> by_name;
    for (const std::string& k : name_keys(name))
        for (size_t i : x.names.find(k))
            if (std::find(by_name.begin(), by_name.end(), i) == by_name.end()) by_name.push_back(i);
    tries.push_back(by_name);
    for (const std::vector<size_t>& found : tries) {
        if (found.size() == 1) {
            entry = found[0];
            return true;
        }
        if (found.size() > 1) {
            why = "'" + printable_text(raw, false) + "' fits several students of the roster (lines " + lines_of(roster, found) +
                  "): name the folder by the student's id";
            return false;
        }
    }
    why = "'" + printable_text(raw, false) + "' is no id, email, login or name on the roster";
    return false;
}

bool match_user(const Roster& roster, const Indexes& x, const GradescopeUser& u, size_t& entry, std::string& why) {
    for (const std::vector<size_t>& found : {x.ids.find(lower(trim(u.sid))), x.emails.find(lower(trim(u.email)))}) {
        if (found.size() == 1) {
            entry = found[0];
            return true;
        }
        if (found.size() > 1) {
            why = "Gradescope's user " + printable_text(u.name, false) + " fits several students of the roster (lines " + lines_of(roster, found) + ")";
            return false;
        }
    }
    if (!trim(u.name).empty() && match_name(roster, x, u.name, entry, why)) return true;
    why = "Gradescope's user " + printable_text(u.name, false) + " <" + printable_text(u.email, false) + ">" +
          (u.sid.empty() ? "" : " (SID " + printable_text(u.sid, false) + ")") + " is not on the roster";
    return false;
}

// An LMS import file: `head`, then a row for each roster entry that exactly one submission
// grades, in roster order: the entry's `cells`, then its grade scaled to the assignment's points
// (empty where its tests were not run). Canvas's and Moodle's differ only in their columns.
template <class Cells>
std::string lms_csv(std::string head, const Roster& roster, const RosterMatch& match, const LmsAssignment& a,
                    const std::map<std::string, SubmissionGrade>& grades, Cells cells) {
    std::map<size_t, std::string> graded_by;  // roster entry -> its submission
    for (const auto& [sub, entries] : match.students)
        for (size_t e : entries)
            if (!match.contested.count(e) && e < roster.entries.size()) graded_by[e] = sub;
    std::string out = std::move(head);
    for (const auto& [e, sub] : graded_by) {
        for (const std::string& cell : cells(roster.entries[e])) out += csv_field(cell) + ",";
        auto g = grades.find(sub);
        if (g != grades.end() && g->second.graded)
            out += format_points(a.rubric_points > 0 ? g->second.total * a.points / a.rubric_points : g->second.total);
        out += "\n";
    }
    return out;
}

// The roster's columns: where each is in its rows (-1: it has none), and which export it is.
struct RosterColumns {
    bool canvas = false;
    long student = -1, canvas_sis = -1, canvas_id = -1, id = -1, login = -1, email = -1, name = -1, first = -1, last = -1,
         section = -1, pseudonym = -1, role = -1;
    std::string form;
};

RosterColumns find_columns(const CsvRecord& head) {
    std::map<std::string, size_t> col;
    for (size_t i = 0; i < head.cells.size(); ++i) {
        const std::string k = header_key(head.cells[i]);
        if (!k.empty() && !col.count(k)) col[k] = i;
    }
    auto column = [&](std::initializer_list<const char*> names) -> long {
        for (const char* n : names)
            if (col.count(n)) return static_cast<long>(col[n]);
        return -1;
    };
    RosterColumns c;
    c.student = column({"student"});
    c.canvas_sis = column({"sis user id"});
    c.canvas = c.student >= 0 && (c.canvas_sis >= 0 || column({"sis login id"}) >= 0);
    c.canvas_id = c.canvas ? column({"id"}) : -1;
    c.id = column({"sis user id", "id number", "idnumber", "student id", "student number", "sid", "student_id", "id", "user id"});
    c.login = column({"sis login id", "login id", "username", "user name", "login"});
    c.email = column({"email", "email address", "e mail", "e mail address", "mail"});
    c.name = column({"student", "name", "full name", "student name"});
    c.first = column({"first name", "firstname", "given name", "first"});
    c.last = column({"last name", "lastname", "surname", "family name", "last"});
    c.section = column({"section", "sections", "section name", "group", "groups"});
    c.pseudonym = column({"pseudonym", "leaderboard name", "alias", "nickname"});
    c.role = column({"role", "roles"});
    const bool gradescope = column({"sid"}) >= 0 && column({"sections", "role"}) >= 0;
    c.form = c.canvas ? "canvas" : column({"id number"}) >= 0 || column({"email address"}) >= 0 ? "moodle" : gradescope ? "gradescope" : "plain";
    return c;
}

// The edit distance of two short words (insertions, deletions, changes, swaps of neighbours).
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// A column the grader does not read whose name is one letter or two from a column it looks for
// and did not find ("Emial" beside an id column): a note for each, naming the line and the
// column meant. An LMS export's other columns (its assignments) are far from every name.
std::vector<std::string> misspelled_columns(const CsvRecord& head, const RosterColumns& c, const std::string& path) {
    const std::vector<std::pair<long, std::vector<const char*>>> wanted = {
        {c.email, {"email", "email address"}}, {c.name, {"name", "full name", "student name"}}, {c.first, {"first name"}},
        {c.last, {"last name", "surname"}}, {c.section, {"section", "sections", "group", "groups"}}, {c.pseudonym, {"pseudonym"}},
        {c.id, {"student id", "sid", "id number"}}, {c.login, {"username", "login"}}};
    // The column meant by a header key, "" where none is near.
    auto meant = [&](const std::string& key) -> std::string {
        for (const auto& [found, names] : wanted)
            for (const char* name : names)
                if (found < 0 && key != name && edit_distance(key, name) <= (key.size() < 6 ? 1u : 2u)) return name;
        return "";
    };
    std::vector<std::string> notes;
    for (const std::string& cell : head.cells)
        if (const std::string key = header_key(cell), name = key.size() < 3 ? "" : meant(key); !name.empty())
            notes.push_back(path + ":" + std::to_string(head.line) + ": the column '" + printable_text(trim(cell), false) +
                            "' is none the grader reads: is it '" + name + "'?");
    return notes;
}

// ", and its columns X, Y are none the grader reads": what the header names instead of the
// columns looked for (a misspelled one is among them); "" when every column is read.
std::string unread_columns(const CsvRecord& head, const RosterColumns& c) {
    std::set<long> read;
    for (long k : {c.student, c.canvas_sis, c.canvas_id, c.id, c.login, c.email, c.name, c.first, c.last, c.section, c.pseudonym, c.role})
        read.insert(k);
    std::vector<std::string> unread;
    for (size_t i = 0; i < head.cells.size(); ++i)
        if (!read.count(static_cast<long>(i)) && !trim(head.cells[i]).empty())
            unread.push_back("'" + printable_text(trim(head.cells[i]), false) + "'");
    if (unread.empty()) return "";
    return std::string(", and its ") + (unread.size() == 1 ? "column " : "columns ") + join(unread, ", ") +
           (unread.size() == 1 ? " is" : " are") + " none the grader reads";
}

// One row's student; false for a row that is no student's (Canvas's "Points Possible" row and
// Test Student, a role that is not a student's).
bool read_entry(const CsvRecord& rec, const RosterColumns& c, RosterEntry& e) {
    auto cell = [&](long k) { return k >= 0 && static_cast<size_t>(k) < rec.cells.size() ? trim(rec.cells[k]) : std::string(); };
    e.line = rec.line;
    e.name = c.name >= 0 ? cell(c.name) : trim(cell(c.first) + " " + cell(c.last));
    // Canvas's export: its "Points Possible" row, and the course's Test Student.
    if (c.canvas && (e.name == "Points Possible" || e.name == "Student, Test" || e.name == "Test Student")) return false;
    const std::string role = lower(cell(c.role));
    if (!role.empty() && role.find("student") == std::string::npos && role.find("learner") == std::string::npos) return false;
    e.canvas_id = cell(c.canvas_id);
    e.sis_id = c.canvas ? cell(c.canvas_sis) : cell(c.id);
    e.login = cell(c.login);
    e.email = cell(c.email);
    if (e.email.empty() && e.login.find('@') != std::string::npos) e.email = e.login;
    e.section = cell(c.section);
    e.pseudonym = cell(c.pseudonym);
    e.id = c.canvas ? (!e.sis_id.empty() ? e.sis_id : e.canvas_id) : e.sis_id;
    if (e.id.empty()) e.id = !e.login.empty() ? e.login : e.email;
    return true;
}

// Refuses a student without an id, an id or a pseudonym given twice, a pseudonym too long.
// `seen_id`, `seen_pseudonym`: those of the rows before (lower case -> line).
void check_entry(const RosterEntry& e, const std::string& path, std::map<std::string, int>& seen_id,
                 std::map<std::string, int>& seen_pseudonym) {
    const std::string at = path + ":" + std::to_string(e.line) + ": ";
    if (e.id.empty()) throw RosterError(at + "this student has no id, login or email: give each student one");
    const std::string key = lower(e.id);
    if (seen_id.count(key))
        throw RosterError(at + "the id '" + printable_text(e.id, false) + "' is already on line " + std::to_string(seen_id[key]) +
                          ": list each student once");
    seen_id[key] = e.line;
    if (e.pseudonym.empty()) return;
    if (e.pseudonym.size() > 60) throw RosterError(at + "the pseudonym is longer than 60 bytes: choose a shorter one");
    const std::string p = lower(e.pseudonym);
    if (seen_pseudonym.count(p))
        throw RosterError(at + "the pseudonym '" + printable_text(e.pseudonym, false) + "' is already on line " +
                          std::to_string(seen_pseudonym[p]) + ": pseudonyms must differ");
    seen_pseudonym[p] = e.line;
}

// The roster's records, from its header on: the byte-order mark dropped, the separator the
// header's line uses (comma, else semicolon, else tab), blank lines before the header skipped.
std::vector<CsvRecord> roster_records(const std::string& text_in, const std::string& path) {
    std::string text = text_in;
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // Excel's and Moodle's byte-order mark
    const std::string first_line = text.substr(0, text.find('\n'));
    char sep = ',';
    if (first_line.find(',') == std::string::npos) {
        if (first_line.find(';') != std::string::npos) sep = ';';
        else if (first_line.find('\t') != std::string::npos) sep = '\t';
    }
    std::vector<CsvRecord> records = parse_csv(text, sep, path);
    while (!records.empty() && all_blank(records.front().cells)) records.erase(records.begin());
    if (records.empty()) throw RosterError(path + ":1: the roster is empty: give a CSV with a header row (id, name, email, section) and a row per student");
    return records;
}

// The roster's bytes as UTF-8 text, and the encoding they were read in: UTF-8 (a byte-order mark
// dropped), UTF-16 with its byte-order mark (Excel's "Unicode Text"), else Windows-1252 (Excel's
// "CSV" on Windows). Throws RosterError naming the line of a byte none of them can read.
std::string roster_text(const std::string& bytes, const std::string& path, std::string& encoding) {
    auto refuse = [&](const std::string& text, size_t at, const std::string& what) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02x", at < bytes.size() ? static_cast<unsigned char>(bytes[at]) : 0u);
        throw RosterError(path + ":" + std::to_string(line_of_offset(text, at)) + ": " + what + " (byte " + byte +
                          "): save the roster as CSV UTF-8 and give it again");
    };
    if (bytes.compare(0, 2, "\xFF\xFE") == 0 || bytes.compare(0, 2, "\xFE\xFF") == 0) {
        const bool big = bytes[0] == '\xFE';
        std::string out;
        size_t bad = 0;
        if (!utf16_to_utf8(bytes.substr(2), big, out, bad)) refuse(out, out.size(), "this is not UTF-16 text, though it starts as such");
        encoding = big ? "UTF-16BE" : "UTF-16LE";
        return out;
    }
    std::string text = bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? bytes.substr(3) : bytes;
    if (const size_t nul = text.find('\0'); nul != std::string::npos)
        refuse(text, nul, "the roster holds a NUL byte (UTF-16 without a byte-order mark?)");
    if (is_valid_utf8(text)) {
        encoding = "UTF-8";
        return text;
    }
    std::string out;
    size_t bad = 0;
    if (!windows1252_to_utf8(text, out, bad)) refuse(text, bad, "a byte that is neither UTF-8 nor Windows-1252");
    encoding = "Windows-1252";
    return out;
}

}  // namespace

Roster parse_roster(const std::string& bytes, const std::string& path) {
    std::string encoding;
    const std::string text = roster_text(bytes, path, encoding);
    const std::vector<CsvRecord> records = roster_records(text, path);
    const CsvRecord& head = records.front();
    const RosterColumns c = find_columns(head);
    Roster r;
    r.path = path;
    r.form = c.form;
    r.encoding = encoding;
    r.notes = misspelled_columns(head, c, path);
    if (c.id < 0 && c.login < 0 && c.email < 0 && c.canvas_id < 0)
        throw RosterError(path + ":" + std::to_string(head.line) +
                          ": the header names no column of student ids, logins or emails" + unread_columns(head, c) +
                          ": the first row must name the columns (id, name, email, section; or a Canvas, Moodle or "
                          "Gradescope export's own)");
    std::map<std::string, int> seen_id, seen_pseudonym;
    for (size_t k = 1; k < records.size(); ++k) {
        const CsvRecord& rec = records[k];
        if (all_blank(rec.cells)) continue;
        for (size_t i = head.cells.size(); i < rec.cells.size(); ++i)
            if (!trim(rec.cells[i]).empty())
                throw RosterError(path + ":" + std::to_string(rec.line) + ": this row has " + std::to_string(rec.cells.size()) +
                                  " cells but the header names " + std::to_string(head.cells.size()) +
                                  " columns: quote a cell that holds the separator");
        RosterEntry e;
        if (!read_entry(rec, c, e)) continue;
        check_entry(e, path, seen_id, seen_pseudonym);
        r.entries.push_back(e);
    }
    return r;
}

std::vector<GradescopeUser> parse_gradescope_metadata(const std::string& text, const std::string& source) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("users") || !j.at("users").is_array())
        throw RosterError(source + " is not Gradescope's submission metadata (a JSON object with a \"users\" list): remove it or export it again");
    auto text_of = [](const json& u, const char* k) -> std::string {
        if (!u.contains(k) || u.at(k).is_null()) return "";
        return u.at(k).is_string() ? u.at(k).get<std::string>() : json_text(u.at(k));
    };
    std::vector<GradescopeUser> users;
    for (const json& u : j.at("users")) {
        if (!u.is_object()) continue;
        users.push_back({text_of(u, "name"), text_of(u, "email"), text_of(u, "sid"), text_of(u, "id")});
    }
    return users;
}

std::map<std::string, std::vector<GradescopeUser>> parse_gradescope_export(const std::string& yml) {
    std::map<std::string, std::vector<GradescopeUser>> out;
    auto unquote = [](std::string v) {
        v = trim(v);
        if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') return replace_all(v.substr(1, v.size() - 2), "''", "'");
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return replace_all(v.substr(1, v.size() - 2), "\\\"", "\"");
        return v;
    };
    std::string current;
    bool in_submitters = false;
    size_t submitters_indent = 0;
    std::istringstream in(yml);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const size_t indent = line.find_first_not_of(' ');
        if (indent == std::string::npos || line[indent] == '#' || line.compare(0, 3, "---") == 0) continue;
        std::string t = line.substr(indent);
        if (indent == 0) {  // a submission: "submission_123456:"
            current = unquote(t.substr(0, t.find(':', t[0] == ':' ? 1 : 0)));
            out[current];
            in_submitters = false;
            continue;
        }
        if (current.empty()) continue;
        if (t == ":submitters:" || t == "submitters:") {
            in_submitters = true;
            submitters_indent = indent;
            continue;
        }
        if (!in_submitters) continue;
        const bool item = t.compare(0, 2, "- ") == 0;
        if (!item && indent <= submitters_indent) {
            in_submitters = false;
            continue;
        }
        if (item) {
            out[current].push_back({});
            t = trim(t.substr(2));
        }
        if (out[current].empty()) continue;
        if (!t.empty() && t[0] == ':') t.erase(0, 1);
        const size_t colon = t.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = t.substr(0, colon), value = unquote(t.substr(colon + 1));
        GradescopeUser& u = out[current].back();
        if (key == "name") u.name = value;
        else if (key == "sid") u.sid = value;
        else if (key == "email") u.email = value;
    }
    return out;
}

std::vector<SubmissionName> submission_names(const std::vector<SubmissionSource>& sources) {
    std::vector<SubmissionName> names;
    std::map<const std::string*, std::map<std::string, std::vector<GradescopeUser>>> exports;  // each class folder's, parsed once
    for (const SubmissionSource& s : sources) {
        SubmissionName n{s.id, s.name, false, {}, ""};
        if (!s.folder.empty()) {
            // The export's list (beside the folders, where no student writes) wins over a
            // submission_metadata.json in the folder, which a student could have uploaded.
            if (s.class_export) {
                const std::string* key = s.class_export.get();
                if (!exports.count(key)) exports[key] = parse_gradescope_export(*s.class_export);
                auto it = exports[key].find(basename_of(s.folder));
                if (it != exports[key].end()) {
                    n.has_metadata = true;
                    n.users = it->second;
                }
            }
            if (!n.has_metadata && !s.metadata_problem.empty()) n.metadata_problem = s.metadata_problem;
            if (!n.has_metadata && !s.metadata.empty()) {
                try {
                    n.users = parse_gradescope_metadata(s.metadata, s.name + "/submission_metadata.json");
                    n.has_metadata = true;
                } catch (const RosterError& e) {
                    n.metadata_problem = e.what();  // this submission's own: matched by its name instead
                }
            }
        }
        names.push_back(n);
    }
    return names;
}

RosterMatch match_roster(const Roster& roster, const std::vector<SubmissionName>& submissions) {
    RosterMatch m;
    const Indexes x = index_roster(roster);
    std::map<size_t, std::vector<std::string>> by_entry;
    for (const SubmissionName& s : submissions) {
        std::vector<size_t> found;
        std::vector<std::string> problems;
        if (s.has_metadata) {
            if (s.users.empty()) problems.push_back("its submission_metadata.json names no user");
            for (const GradescopeUser& u : s.users) {
                size_t e = 0;
                std::string why;
                if (match_user(roster, x, u, e, why)) {
                    if (std::find(found.begin(), found.end(), e) == found.end()) found.push_back(e);
                } else {
                    problems.push_back(why);
                }
            }
        } else {
            size_t e = 0;
            std::string why;
            if (match_name(roster, x, s.name.empty() ? s.id : s.name, e, why)) found.push_back(e);
            else problems.push_back(why + (s.metadata_problem.empty() ? "" : "; and " + s.metadata_problem));
        }
        if (!problems.empty()) m.unmatched.push_back({s.id, join(problems, "; ")});
        if (!found.empty()) m.students[s.id] = found;
        for (size_t e : found) by_entry[e].push_back(s.id);
    }
    for (size_t i = 0; i < roster.entries.size(); ++i) {
        auto it = by_entry.find(i);
        if (it == by_entry.end()) m.without_submission.push_back(i);
        else if (it->second.size() > 1) m.contested[i] = it->second;
    }
    return m;
}

void require_some_match(const Roster& roster, const RosterMatch& match, size_t submissions) {
    for (const auto& [submission, entries] : match.students)
        if (!entries.empty()) return;
    throw std::runtime_error("the roster " + roster.path + " matches none of the " + std::to_string(submissions) +
                             " submissions: name each submission's file or folder by the student's id, email or name, "
                             "or give --allow-unmatched-roster to grade them without it");
}

std::vector<std::string> roster_column_names() { return {"roster_id", "name", "email", "section"}; }

std::vector<std::string> roster_cells(const Roster& roster, const RosterMatch& match, const std::string& submission) {
    std::vector<std::string> id, name, email, section;
    auto it = match.students.find(submission);
    if (it != match.students.end())
        for (size_t e : it->second) {
            const RosterEntry& r = roster.entries[e];
            id.push_back(r.id);
            name.push_back(r.name);
            email.push_back(r.email);
            section.push_back(r.section);
        }
    return {join(id, "; "), join(name, "; "), join(email, "; "), join(section, "; ")};
}

// roster.json keeps every field of an entry and of the assignment, by its name.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RosterEntry, line, id, name, email, section, pseudonym, canvas_id, sis_id, login)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LmsAssignment, name, points, rubric_points)

std::string roster_record_json(const Roster& roster, const RosterMatch& match, const LmsAssignment& a) {
    json j;
    j["roster"] = roster.path;
    j["form"] = roster.form;
    j["assignment"] = a;
    j["entries"] = roster.entries;
    j["students"] = match.students;
    j["unmatched"] = json::array();
    for (const auto& [sub, why] : match.unmatched) j["unmatched"].push_back({{"submission", sub}, {"why", why}});
    j["without_submission"] = match.without_submission;
    // JSON's keys are text: the contested entries' indices are written as such.
    j["contested"] = json::object();
    for (const auto& [e, subs] : match.contested) j["contested"][std::to_string(e)] = subs;
    return json_text(j, 2) + "\n";
}

void parse_roster_record(const std::string& text, const std::string& source, Roster& roster, RosterMatch& match, LmsAssignment& a) {
    try {
        const json j = json::parse(text);
        roster = Roster();
        match = RosterMatch();
        roster.path = j.at("roster").get<std::string>();
        roster.form = j.at("form").get<std::string>();
        a = j.at("assignment").get<LmsAssignment>();
        roster.entries = j.at("entries").get<std::vector<RosterEntry>>();
        match.students = j.at("students").get<std::map<std::string, std::vector<size_t>>>();
        for (const json& u : j.at("unmatched")) match.unmatched.push_back({u.at("submission").get<std::string>(), u.at("why").get<std::string>()});
        match.without_submission = j.at("without_submission").get<std::vector<size_t>>();
        for (const auto& [e, subs] : j.at("contested").items()) match.contested[std::stoul(e)] = subs.get<std::vector<std::string>>();
        for (const auto& [sub, entries] : match.students)
            for (size_t e : entries)
                if (e >= roster.entries.size()) throw std::out_of_range("entry index");
    } catch (const std::exception& e) {
        throw RosterError(source + " is not a roster record written by the grader (" + std::string(e.what()) + "): grade with --roster again");
    }
}

std::map<std::string, SubmissionGrade> audit_grades(const std::string& audit_jsonl, const std::string& source) {
    const AuditRun log = last_audit_run(audit_jsonl);
    if (!log.readable) throw RosterError(source + ": a line is not JSON: grade again or restore the file");
    const bool compile_only = log.run.is_object() && log.run.value("compile_only", false);
    std::map<std::string, SubmissionGrade> grades;
    for (const json& j : log.submissions) {
        SubmissionGrade g;
        // A result that is no grade (a grader error, a compile-only pass) has a null total.
        const bool has_total = j.contains("total") && j["total"].is_number();
        g.total = has_total ? j["total"].get<double>() : 0.0;
        // A submission graded 0 for being rejected is graded; one whose tests were not run is
        // not, nor one the grader could not grade.
        g.graded = has_total && (!compile_only || !j.value("rejected", std::string()).empty()) && !j.contains("grader_error");
        grades[j.value("student", "")] = g;
    }
    return grades;
}

std::string lms_canvas_csv(const Roster& roster, const RosterMatch& match, const LmsAssignment& a,
                           const std::map<std::string, SubmissionGrade>& grades) {
    const std::string head = "Student,ID,SIS User ID,SIS Login ID,Section," + csv_field(a.name) + "\nPoints Possible,,,,," +
                             format_points(a.points) + "\n";
    return lms_csv(head, roster, match, a, grades, [](const RosterEntry& r) {
        return std::vector<std::string>{r.name, r.canvas_id, r.sis_id, !r.login.empty() ? r.login : r.email, r.section};
    });
}

std::string lms_moodle_csv(const Roster& roster, const RosterMatch& match, const LmsAssignment& a,
                           const std::map<std::string, SubmissionGrade>& grades) {
    return lms_csv("ID number,Email address,Username,Full name," + csv_field(a.name) + "\n", roster, match, a, grades,
                   [](const RosterEntry& r) { return std::vector<std::string>{r.sis_id, r.email, r.login, r.name}; });
}

std::string roster_report(const Roster& roster, const RosterMatch& match) {
    std::ostringstream o;
    size_t matched = 0;
    for (size_t i = 0; i < roster.entries.size(); ++i)
        if (std::find(match.without_submission.begin(), match.without_submission.end(), i) == match.without_submission.end()) ++matched;
    o << "roster " << printable_text(roster.path, false) << " (" << roster.form << "): " << roster.entries.size() << " students, "
      << matched << " with a submission\n";
    if (!match.unmatched.empty()) {
        o << "submissions not matched to the roster (graded, in gradebook.csv, not in the LMS files): " << match.unmatched.size() << "\n";
        for (const auto& [sub, why] : match.unmatched) o << "  " << printable_text(sub, false) << ": " << printable_text(why, false) << "\n";
    }
    if (!match.without_submission.empty()) {
        o << "students on the roster without a submission: " << match.without_submission.size() << "\n";
        for (size_t i : match.without_submission) {
            const RosterEntry& e = roster.entries[i];
            o << "  line " << e.line << ": " << printable_text(e.id, false) << ", " << printable_text(e.name, false)
              << (e.email.empty() ? "" : ", " + printable_text(e.email, false)) << (e.section.empty() ? "" : ", " + printable_text(e.section, false))
              << "\n";
        }
    }
    if (!match.contested.empty()) {
        o << "students matched by several submissions (left out of the LMS files: keep one submission and grade again, or enter the grade by hand): "
          << match.contested.size() << "\n";
        for (const auto& [i, subs] : match.contested)
            o << "  line " << roster.entries[i].line << ": " << printable_text(roster.entries[i].id, false) << ": "
              << printable_text(join(subs, ", "), false) << "\n";
    }
    return o.str();
}

std::string write_roster_outputs(const std::string& out) {
    const std::string record = out + "/roster.json";
    if (!exists(record)) return "";
    Roster roster;
    RosterMatch match;
    LmsAssignment a;
    parse_roster_record(read_file(record), record, roster, match, a);
    const std::map<std::string, SubmissionGrade> grades = audit_grades(read_file(out + "/audit.jsonl"), out + "/audit.jsonl");
    write_file(out + "/lms-canvas.csv", lms_canvas_csv(roster, match, a, grades));
    write_file(out + "/lms-moodle.csv", lms_moodle_csv(roster, match, a, grades));
    const std::string report = roster_report(roster, match);
    write_file(out + "/roster.txt", report);
    return report;
}

std::string roster_of_run(const std::string& audit_jsonl) {
    const AuditRun log = last_audit_run(audit_jsonl);
    return log.run.is_object() && log.run.contains("roster") ? lossless_bytes(log.run["roster"]) : "";
}

}  // namespace grading
