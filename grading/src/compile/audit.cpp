#include "compile/audit.h"

#include <limits.h>
#include <stdlib.h>

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "intake/rubric.h"
#include "util/files.h"
#include "util/text.h"

namespace grading {

namespace {

bool matches_any(const std::vector<std::string>& globs, const std::string& name) {
    for (const std::string& g : globs)
        if (glob_match(g, name)) return true;
    return false;
}

}  // namespace

std::vector<std::string> parse_glob_list(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (!line.empty() && line[0] != '#') out.push_back(line);
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> parse_import_renames(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream in(text);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        size_t hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        std::vector<std::string> w = split_ws(line);
        if (w.empty()) continue;
        if (w.size() != 2)
            throw std::invalid_argument("line " + std::to_string(number) + ": expected \"imported-name shim-name\"");
        out.emplace_back(w[0], w[1]);
    }
    return out;
}

std::string demangle(const std::string& name) {
    if (name.rfind("_Z", 0) != 0) return name;
    int status = 0;
    char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    std::string out = status == 0 && d ? d : name;
    std::free(d);
    return out;
}

namespace {
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::string qualified_name(const std::string& name) {
    const std::string d = demangle(name);
    // Depth in <>, () and {} ("{lambda(int)#1}"), reading "operator<<", "operator()" and
    // "(anonymous namespace)" as names. The first '(' at depth 0 starts the parameters; the last
    // space at depth 0 before them ends a template's return type ("void add<32>(float*)").
    int depth = 0;
    size_t start = 0, cut = d.size();
    for (size_t i = 0; i < d.size(); ++i) {
        if (d.compare(i, 21, "(anonymous namespace)") == 0) {
            i += 20;
        } else if (d.compare(i, 8, "operator") == 0 && (i == 0 || !is_name_char(d[i - 1])) &&
                   (i + 8 >= d.size() || !is_name_char(d[i + 8]))) {
            i += 8;
            if (d.compare(i, 2, "()") == 0 || d.compare(i, 2, "[]") == 0) ++i;
            else
                while (i + 1 < d.size() && std::strchr("<>=!+-*/%^&|~,", d[i + 1])) ++i;
            if (d.compare(i + 1, 2, " <") == 0) ++i;  // "operator<< <traits>": its template arguments
        } else if (d[i] == '<' || d[i] == '{' || (d[i] == '(' && depth > 0)) {
            ++depth;
        } else if (d[i] == '>' || d[i] == '}' || (d[i] == ')' && depth > 0)) {
            --depth;
        } else if (d[i] == '(' && depth == 0) {
            cut = i;
            break;
        } else if (d[i] == ' ' && depth == 0) {
            start = i + 1;
        }
    }
    return d.substr(start, cut - start);
}

bool ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

size_t quoted_end(const std::string& s, size_t i) {
    const char quote = s[i];
    size_t j = i + 1;
    while (j < s.size() && s[j] != quote && s[j] != '\n') j += s[j] == '\\' && j + 1 < s.size() && s[j + 1] != '\n' ? 2 : 1;
    if (j < s.size() && s[j] == quote) ++j;
    return j;
}

size_t number_end(const std::string& s, size_t i) {
    size_t j = i + 1;
    while (j < s.size()) {
        const unsigned char e = static_cast<unsigned char>(s[j]);
        if ((e == '+' || e == '-') && std::strchr("eEpP", s[j - 1])) ++j;
        else if (e == '\'' && j + 1 < s.size() && ident_char(static_cast<unsigned char>(s[j + 1]))) ++j;
        else if (ident_char(e) || e == '.') ++j;
        else break;
    }
    return j;
}

// ---- a C++ token scanner for preprocessed text ------------------------------------------------

namespace {

enum class Tok { Ident, Punct, Literal };

struct Token {
    Tok kind;
    std::string_view text;
    int line;
};

struct Marker {
    int at = 0;    // the line it stands on (in the file before it)
    int line = 0;  // the number it gives the next line
    bool has_file = false;
    std::string file;
    std::vector<int> flags;
};

// Where the scanner is: the text, the place in it, its line, and whether only blanks came
// before on this line (where a '#' starts a directive).
struct ScanState {
    const std::string& s;
    size_t i = 0;
    int line = 1;
    bool line_start = true;
};

// The end of the logical line from `from` (backslash-newlines continue it, and count as lines).
size_t end_of_line(ScanState& st, size_t from) {
    const std::string& s = st.s;
    size_t j = from;
    while (j < s.size() && s[j] != '\n') {
        if (s[j] == '\\' && j + 1 < s.size() && s[j + 1] == '\n') {
            j += 2;
            ++st.line;
            continue;
        }
        ++j;
    }
    return j;
}

// A line marker, "# 12 "file" 1 3" or "#line 12 "file"", standing on line `at`: `word` is the
// directive's first word, `rest` what follows it.
Marker parse_line_marker(int at, const std::string& word, const std::string& rest) {
    Marker m;
    m.at = at;
    std::string tail = std::isdigit(static_cast<unsigned char>(word[0])) ? word + rest : rest;
    size_t k = 0;
    while (k < tail.size() && std::isspace(static_cast<unsigned char>(tail[k]))) ++k;
    m.line = std::atoi(tail.c_str() + k);
    while (k < tail.size() && std::isdigit(static_cast<unsigned char>(tail[k]))) ++k;
    while (k < tail.size() && std::isspace(static_cast<unsigned char>(tail[k]))) ++k;
    if (k < tail.size() && tail[k] == '"') {
        m.has_file = true;
        for (++k; k < tail.size() && tail[k] != '"'; ++k) {
            if (tail[k] == '\\' && k + 1 < tail.size()) ++k;
            m.file += tail[k];
        }
        ++k;
        std::istringstream flags(tail.substr(std::min(k, tail.size())));
        for (int f; flags >> f;) m.flags.push_back(f);
    }
    return m;
}

// Skips an "#if 0" block ending its first line at `eol`, to the matching #endif: whole lines
// (cudafe++ output has no raw strings and no string literal spanning lines).
void skip_if0_block(ScanState& st, size_t eol) {
    const std::string& s = st.s;
    const size_t n = s.size();
    int depth = 1;
    size_t k = eol;
    while (k < n && depth > 0) {
        ++k;  // past '\n'
        ++st.line;
        size_t p = k;
        while (p < n && (s[p] == ' ' || s[p] == '\t')) ++p;
        if (p < n && s[p] == '#') {
            ++p;
            while (p < n && (s[p] == ' ' || s[p] == '\t')) ++p;
            size_t e = p;
            while (e < n && ident_char(static_cast<unsigned char>(s[e]))) ++e;
            std::string w = s.substr(p, e - p);
            if (w == "if" || w == "ifdef" || w == "ifndef") ++depth;
            else if (w == "endif") --depth;
        }
        while (k < n && s[k] != '\n') ++k;
    }
    st.i = k;
}

// The directive at st.i ('#' first on its line); moves past it. Returns the line marker it is,
// if it is one.
std::optional<Marker> directive(ScanState& st, bool skip_if0) {
    const std::string& s = st.s;
    const size_t n = s.size();
    size_t j = st.i + 1;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
    size_t word_end = j;
    while (word_end < n && ident_char(static_cast<unsigned char>(s[word_end]))) ++word_end;
    const std::string word = s.substr(j, word_end - j);
    const size_t eol = end_of_line(st, st.i);
    const std::string rest = s.substr(word_end, eol - word_end);
    if (!word.empty() && (std::isdigit(static_cast<unsigned char>(word[0])) || word == "line")) {
        Marker m = parse_line_marker(st.line, word, rest);
        st.line = m.line - 1;  // the newline ending the marker makes it m.line
        st.i = eol;
        return m;
    }
    if (skip_if0 && word == "if" && trim(rest) == "0") skip_if0_block(st, eol);
    else st.i = eol;  // a pragma or another directive: ignored
    return std::nullopt;
}

// The end of the raw string R"delim( ... )delim" whose '"' is at `quote` (counting its lines),
// or npos where no '(' follows a delimiter there.
size_t raw_string_end(ScanState& st, size_t quote) {
    const std::string& s = st.s;
    const size_t n = s.size();
    size_t open = quote + 1;
    while (open < n && open - quote <= 17 && s[open] != '(' && s[open] != '"' && s[open] != '\n') ++open;
    if (open >= n || s[open] != '(') return std::string::npos;
    const std::string close = ")" + s.substr(quote + 1, open - quote - 1) + "\"";
    size_t end = s.find(close, open + 1);
    end = end == std::string::npos ? n : end + close.size();
    for (size_t k = open; k < end; ++k) st.line += s[k] == '\n';
    return end;
}

// The token at st.i (neither a blank nor a directive); moves past it.
Token next_token(ScanState& st) {
    const std::string& s = st.s;
    const size_t n = s.size();
    const size_t start = st.i;
    const int start_line = st.line;
    auto literal_to = [&](size_t end) {
        st.i = end;
        return Token{Tok::Literal, std::string_view(s.data() + start, end - start), start_line};
    };
    if (ident_start(static_cast<unsigned char>(s[st.i]))) {
        size_t j = st.i;
        while (j < n && ident_char(static_cast<unsigned char>(s[j]))) ++j;
        std::string_view word(s.data() + st.i, j - st.i);
        const bool prefix = word == "u8" || word == "u" || word == "U" || word == "L";
        const bool raw_prefix = word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
        if (j < n && raw_prefix && s[j] == '"')
            if (const size_t end = raw_string_end(st, j); end != std::string::npos) return literal_to(end);
        st.i = j;
        // A prefixed literal is one token with its prefix; any other word is an identifier.
        if (!(j < n && (prefix || raw_prefix) && (s[j] == '"' || s[j] == '\''))) return Token{Tok::Ident, word, start_line};
    }
    const unsigned char d = static_cast<unsigned char>(s[st.i]);
    if (d == '"' || d == '\'') return literal_to(quoted_end(s, st.i));
    if (std::isdigit(d) || (d == '.' && st.i + 1 < n && std::isdigit(static_cast<unsigned char>(s[st.i + 1]))))
        return literal_to(number_end(s, st.i));
    static const char* const multi[] = {"%:%:", "...", "::", "->", "<:", ":>", "<%", "%>", "%:"};
    size_t len = 1;
    for (const char* m : multi)
        if (s.compare(st.i, std::strlen(m), m) == 0) {
            len = std::strlen(m);
            break;
        }
    const Token t{Tok::Punct, std::string_view(s.data() + st.i, len), start_line};
    st.i += len;
    return t;
}

// Reads the tokens of gcc -E or cudafe++ output. Directive lines are markers (reported), "#if 0"
// blocks (skipped when `skip_if0`; cudafe++ puts device function bodies in them) or others
// (pragmas: ignored). Literals are whole tokens, raw strings included, so that nothing inside
// one is taken for a token or a directive.
template <typename OnToken, typename OnMarker>
void scan(const std::string& s, bool skip_if0, OnToken on_token, OnMarker on_marker) {
    ScanState st{s};
    while (st.i < s.size()) {
        const char c = s[st.i];
        if (c == '\n') {
            ++st.line;
            st.line_start = true;
            ++st.i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++st.i;
            continue;
        }
        if (st.line_start && c == '#') {
            // gcc writes its own lines starting with '#' (markers, pragmas) at the line's start;
            // one after blanks is the file's text (a macro that expands to '#').
            const bool indented = st.i > 0 && s[st.i - 1] != '\n';
            if (const std::optional<Marker> m = directive(st, skip_if0)) on_marker(*m, indented);
            continue;
        }
        st.line_start = false;
        on_token(next_token(st));
    }
}

// The file stack of gcc's line markers: flag 1 enters a file, flag 2 returns to one, no flag
// renames the current one (a resync or #line).
struct FileTracker {
    std::string main_file, current;
    std::vector<std::string> stack;
    bool started = false;

    // True when the marker enters a file (its parent in *parent).
    bool apply(const Marker& m, std::string* parent) {
        if (!m.has_file) return false;
        const bool enter = std::find(m.flags.begin(), m.flags.end(), 1) != m.flags.end();
        const bool leave = std::find(m.flags.begin(), m.flags.end(), 2) != m.flags.end();
        if (!started) {
            started = true;
            main_file = m.file;
        }
        if (enter) {
            if (parent) *parent = current;
            stack.push_back(current);
        } else if (leave) {
            while (!stack.empty() && stack.back() != m.file) stack.pop_back();
            if (!stack.empty()) stack.pop_back();
        }
        current = m.file;
        return enter;
    }
};

}  // namespace

PreprocessedText parse_preprocessed(const std::string& text) {
    PreprocessedText out;
    FileTracker files;
    bool last_was_own_identifier = false;
    scan(
        text, false,
        [&](const Token& t) {
            if (t.kind == Tok::Punct && t.text == "::" && last_was_own_identifier) out.own_identifiers.back().scope = true;
            // The compiled file's own lines are those outside every included file, whatever
            // name a #line gives them.
            last_was_own_identifier = t.kind == Tok::Ident && files.stack.empty();
            if (last_was_own_identifier) out.own_identifiers.push_back({std::string(t.text), t.line, false});
        },
        [&](const Marker& m, bool indented) {
            if (indented) out.indented_markers.push_back(m.at);
            std::string parent;
            const bool from_main = files.stack.empty();
            if (files.apply(m, &parent)) out.includes.push_back({m.file, parent, m.at, from_main});
        });
    out.main_file = files.main_file;
    return out;
}

std::vector<Finding> audit_indented_markers(const std::vector<int>& lines) {
    if (lines.empty()) return {};
    return {{"line", "a macro of the file writes a line directive (a '#' and a line number, line " +
                         std::to_string(lines[0]) + "): it would change the file and line the compiler attributes "
                         "your code to, which the grader does not allow; remove it"}};
}

std::vector<Finding> audit_identifiers(const std::vector<Identifier>& identifiers,
                                       const std::vector<std::string>& forbid_symbols) {
    std::vector<std::string> forbidden = forbid_symbols;
    forbidden.push_back("__cuda*");
    // Ways into the C library's process-wide state or the program's end that no import names:
    // the stdio objects behind std::cout, exit handlers registered by hand.
    // (exit and atexit are imports of nvcc's own code: they are refused where a file names them.)
    for (const char* name : {"exit", "_exit", "_Exit", "quick_exit", "atexit", "at_quick_exit", "on_exit", "__cxa_atexit", "__cxa_thread_atexit*", "__libc_*", "_IO_*",
                             "*stdio_sync_filebuf*", "*stdio_filebuf*", "program_invocation_*", "__progname*", "environ", "__environ",
                             "getauxval"})
        forbidden.push_back(name);
    std::vector<Finding> found;
    std::set<std::string> reported;
    for (const Identifier& id : identifiers)
        if (!reported.count(id.name) && (matches_any(forbidden, id.name) || (id.scope && matches_any(forbidden, id.name + "::")))) {
            reported.insert(id.name);
            found.push_back({"identifier", "'" + id.name + "' is not allowed in this lab (line " + std::to_string(id.line) + ")"});
        }
    return found;
}

namespace {

const std::set<std::string>& cxx_keywords() {
    static const std::set<std::string> k = {
        "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
        "char32_t", "class", "concept", "const", "consteval", "constexpr", "constinit", "const_cast",
        "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
        "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend",
        "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "nullptr",
        "operator", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return",
        "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
        "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
        "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "__asm", "__asm__",
        "__extension__", "__attribute__", "__attribute", "__declspec", "__typeof__", "__typeof", "typeof",
        "__alignof__", "__alignof", "__decltype", "__inline", "__inline__", "__volatile__", "__volatile",
        "__const", "__const__", "__restrict", "__restrict__", "__thread", "_Pragma", "__label__"};
    return k;
}

// Before "(...)" these make the parenthesis a condition or an operand, not a declarator.
const std::set<std::string>& non_declarator_words() {
    static const std::set<std::string> k = {
        "if", "while", "for", "switch", "catch", "return", "sizeof", "alignof", "__alignof__", "__alignof",
        "decltype", "__decltype", "typeid", "__attribute__", "__attribute", "__declspec", "alignas",
        "__typeof__", "__typeof", "typeof", "_Pragma", "constexpr", "consteval", "__extension__",
        "co_await", "co_return", "co_yield", "static_assert", "new", "delete", "case", "else", "do"};
    return k;
}

bool is_asm_keyword(std::string_view w) { return w == "asm" || w == "__asm" || w == "__asm__"; }

std::string canonical_punct(std::string_view p) {
    if (p == "<:") return "[";
    if (p == ":>") return "]";
    if (p == "<%") return "{";
    if (p == "%>") return "}";
    return std::string(p);
}

}  // namespace

std::vector<AsmStatement> host_asm_statements(const std::string& cudafe1_cpp) {
    std::vector<AsmStatement> out;
    FileTracker files;
    struct Seen {
        Tok kind;
        std::string text;
    };
    // The last two tokens, the token before each open parenthesis, the token before the
    // parenthesis the last ')' closed.
    Seen prev{Tok::Punct, ";"}, prev2{Tok::Punct, ";"};
    std::vector<Seen> before_open;
    Seen before_closed{Tok::Punct, ";"};
    // An asm keyword waiting for what follows it: qualifiers and ':' inside its parentheses
    // make it a statement whatever came before.
    struct Pending {
        bool active = false;
        bool statement = false;
        int paren_depth = 0;  // depth of before_open when its '(' opened
        bool opened = false;
        AsmStatement where;
    } pending;
    auto finish = [&]() {
        if (pending.active && pending.statement) out.push_back(pending.where);
        pending = Pending{};
    };
    scan(
        cudafe1_cpp, true,
        [&](const Token& t) {
            const std::string text = t.kind == Tok::Punct ? canonical_punct(t.text) : std::string(t.text);
            if (pending.active) {
                if (!pending.opened) {
                    if (t.kind == Tok::Ident && (text == "volatile" || text == "__volatile__" || text == "__volatile" ||
                                                 text == "goto" || text == "inline" || text == "__inline" ||
                                                 text == "__inline__"))
                        pending.statement = true;
                    else if (text == "(") {
                        pending.opened = true;
                        pending.paren_depth = static_cast<int>(before_open.size()) + 1;
                    } else finish();
                } else if (static_cast<int>(before_open.size()) == pending.paren_depth) {
                    if (text == ":" || text == "::") pending.statement = true;
                    else if (t.kind == Tok::Literal && text.find('"') != std::string::npos) pending.where.literals.push_back(text);
                }
            }
            if (t.kind == Tok::Ident && is_asm_keyword(t.text)) {
                finish();
                bool label = false;
                if (prev.kind == Tok::Ident) {
                    label = !cxx_keywords().count(prev.text);
                } else if (prev.text == ")") {
                    label = (before_closed.kind == Tok::Ident && !non_declarator_words().count(before_closed.text)) ||
                            before_closed.text == ")";
                } else if (prev.text == "]") {
                    label = prev2.text != "]";  // an array declarator, not [[attributes]]
                }
                pending.active = true;
                pending.statement = !label;
                pending.where = AsmStatement{files.current, t.line, files.current == files.main_file, {}};
            }
            if (text == "(") {
                before_open.push_back(prev);
            } else if (text == ")" && !before_open.empty()) {
                const bool closes_asm = pending.active && pending.opened &&
                                        static_cast<int>(before_open.size()) == pending.paren_depth;
                before_closed = before_open.back();
                before_open.pop_back();
                if (closes_asm) finish();
            }
            prev2 = prev;
            prev = Seen{t.kind, text};
        },
        [&](const Marker& m, bool) { files.apply(m, nullptr); });
    finish();
    return out;
}

// ---- readelf, objdump ------------------------------------------------------------------------

std::vector<ElfSymbol> parse_readelf_symbols(const std::string& text) {
    std::vector<ElfSymbol> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        // "    15: 0000000000000000   512 FUNC    GLOBAL DEFAULT [<other>: 10]    21 name"
        std::istringstream w(line);
        std::string num, value, size, type, bind, vis;
        if (!(w >> num >> value >> size >> type >> bind >> vis) || num.empty() || num.back() != ':') continue;
        if (!std::isdigit(static_cast<unsigned char>(num[0]))) continue;
        ElfSymbol s;
        s.type = type;
        s.bind = bind;
        std::string ndx;
        w >> ndx;
        if (!ndx.empty() && ndx[0] == '[') {
            // "[<other>:" "10]" (the visibility is printed before it)
            std::string bracket = ndx;
            while (bracket.back() != ']' && w >> ndx) bracket += " " + ndx;
            size_t colon = bracket.find(':');
            if (colon != std::string::npos) s.other = static_cast<unsigned>(std::strtoul(bracket.c_str() + colon + 1, nullptr, 16));
            w >> ndx;
        }
        std::string name;
        std::getline(w, name);
        name = trim(name);
        if (type == "SECTION" || type == "FILE" || name.empty()) continue;
        s.defined = ndx != "UND";
        s.name = name;
        s.value = std::strtoull(value.c_str(), nullptr, 16);
        s.size = std::strtoull(size.c_str(), nullptr, 0);
        if (!ndx.empty() && std::isdigit(static_cast<unsigned char>(ndx[0]))) s.section = std::atoi(ndx.c_str());
        out.push_back(s);
    }
    return out;
}

std::set<std::string> device_entries(const std::vector<ElfSymbol>& cubin_symbols) {
    std::set<std::string> out;
    for (const ElfSymbol& s : cubin_symbols)
        if (s.defined && s.type == "FUNC" && (s.other & 0x10)) out.insert(s.name);
    return out;
}

std::vector<Section> parse_readelf_sections(const std::string& text) {
    std::vector<Section> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        // "  [ 1] .text             PROGBITS        0000000000000000 000050 000c24 00  AX  0   0 16"
        size_t open = line.find('['), close = line.find(']');
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        const std::string index = trim(line.substr(open + 1, close - open - 1));
        if (index.empty() || !std::isdigit(static_cast<unsigned char>(index[0]))) continue;
        std::vector<std::string> w = split_ws(line.substr(close + 1));
        // From the right: Al Inf Lk [Flg] ES Size Off Address Type, the name before (it may hold spaces).
        if (w.size() < 8) continue;
        const size_t n = w.size();
        const bool has_flags = n >= 9 && w[n - 8].size() == 16 &&  // the address: 16 hex digits
                               w[n - 8].find_first_not_of("0123456789abcdef") == std::string::npos;
        const size_t type_at = has_flags ? n - 9 : n - 8;
        Section s;
        s.type = w[type_at];
        s.flags = has_flags ? w[n - 4] : "";
        s.index = std::atoi(index.c_str());
        for (size_t k = 0; k < type_at; ++k) s.name += (k ? " " : "") + w[k];
        if (s.type == "NULL") continue;
        out.push_back(s);
    }
    return out;
}

std::vector<Relocation> parse_readelf_relocations(const std::string& text) {
    std::vector<Relocation> out;
    std::istringstream in(text);
    std::string relocated;
    for (std::string line; std::getline(in, line);) {
        // "Relocation section '.rela.init_array' at offset 0x9e58 contains 3 entries:"
        const std::string head = "Relocation section '";
        if (line.rfind(head, 0) == 0) {
            const size_t end = line.find('\'', head.size());
            relocated = end == std::string::npos ? "" : line.substr(head.size(), end - head.size());
            if (relocated.rfind(".rela", 0) == 0) relocated = relocated.substr(5);
            else if (relocated.rfind(".rel", 0) == 0) relocated = relocated.substr(4);
            continue;
        }
        // "0000000000000000  0000000200000001 R_X86_64_64  0000000000000000 .text + c7"
        std::vector<std::string> w = split_ws(line);
        if (relocated.empty() || w.size() < 5 || w[0].find_first_not_of("0123456789abcdef") != std::string::npos) continue;
        Relocation r;
        r.section = relocated;
        r.offset = std::strtoull(w[0].c_str(), nullptr, 16);
        r.type = w[2];
        r.symbol = w[4];
        if (w.size() >= 7 && (w[5] == "+" || w[5] == "-")) {
            const long long v = static_cast<long long>(std::strtoull(w[6].c_str(), nullptr, 16));
            r.addend = w[5] == "+" ? v : -v;
        }
        out.push_back(r);
    }
    return out;
}

namespace {

const Section* section_named(const std::vector<Section>& sections, const std::string& name) {
    for (const Section& sec : sections)
        if (sec.name == name) return &sec;
    return nullptr;
}

// The symbol a relocation points at: its own name, or for "SECTION + addend" the symbol of that
// section at that address (a local function or object; a PC-relative access is 4 bytes short of it).
std::string relocation_target(const Relocation& r, const std::vector<ElfSymbol>& symbols, const std::vector<Section>& sections) {
    const Section* sec = section_named(sections, r.symbol);
    if (!sec) return r.symbol;
    const bool pc_relative = r.type.find("PC") != std::string::npos || r.type.find("PLT") != std::string::npos;
    const long long at = r.addend + (pc_relative ? 4 : 0);
    for (const ElfSymbol& sym : symbols)
        if (sym.section == sec->index && static_cast<long long>(sym.value) == at && sym.type != "SECTION") return sym.name;
    return r.symbol + (r.addend >= 0 ? " + " : " - ") + std::to_string(r.addend >= 0 ? r.addend : -r.addend);
}

// A compiler-made initializer that does only what <iostream> asks of every file before GCC 13:
// construct the library's ios_base::Init object and register its destructor.
bool library_initializer(const ElfSymbol& f, const std::vector<Relocation>& relocations, const std::vector<ElfSymbol>& symbols,
                         const std::vector<Section>& sections) {
    static const std::set<std::string> allowed = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__dso_handle", "__cxa_atexit",
                                                  "_ZStL8__ioinit"};
    if (f.name.rfind("_GLOBAL__sub_I_", 0) != 0) return false;
    std::string section;
    for (const Section& sec : sections)
        if (sec.index == f.section) section = sec.name;
    size_t references = 0;
    for (const Relocation& r : relocations) {
        if (r.section != section || r.offset < f.value || r.offset >= f.value + f.size) continue;
        ++references;
        if (!allowed.count(relocation_target(r, symbols, sections))) return false;
    }
    return references > 0;
}

}  // namespace

std::vector<Finding> audit_startup_code(const std::vector<Relocation>& relocations, const std::vector<ElfSymbol>& symbols,
                                        const std::vector<Section>& sections) {
    // nvcc's own constructor registers the file's device code with the runtime (CUDA 12 and 13).
    static const std::set<std::string> registration = {"_ZL24__sti____cudaRegisterAllv", "__sti____cudaRegisterAll"};
    std::vector<Finding> found;
    const std::string change =
        ": your code may run only inside the lab's functions. Make a global object with a constructor or destructor a local "
        "variable, or a static one inside the function that uses it (static T x;), and call set-up code from those functions";
    for (const Relocation& r : relocations) {
        const bool init = r.section == ".init_array" || r.section.rfind(".init_array.", 0) == 0;
        const bool fini = r.section == ".fini_array" || r.section.rfind(".fini_array.", 0) == 0;
        if (!init && !fini) continue;
        const std::string name = relocation_target(r, symbols, sections);
        if (init && registration.count(name)) continue;
        if (init) {
            auto f = std::find_if(symbols.begin(), symbols.end(), [&](const ElfSymbol& s) { return s.name == name && s.defined; });
            if (f != symbols.end() && library_initializer(*f, relocations, symbols, sections)) continue;
        }
        found.push_back({"startup", std::string("the file runs code of its own ") + (init ? "before main() (" : "after main() (") +
                                        demangle(name) + ")" + change});
        break;  // once is enough to say it
    }
    return found;
}

std::vector<Finding> audit_sections(const std::vector<Section>& sections) {
    // The sections compilers emit for ordinary code; a linker puts each with its kind.
    static const std::vector<std::string> allowed = {
        ".text", ".text.*", ".data", ".data.*", ".bss", ".bss.*", ".rodata", ".rodata.*", ".tdata",
        ".tdata.*", ".tbss", ".tbss.*", ".init_array", ".init_array.*", ".fini_array", ".fini_array.*",
        ".eh_frame", ".gcc_except_table", ".gcc_except_table.*", ".comment", ".note.GNU-stack",
        ".note.gnu.property", ".group", ".symtab", ".strtab", ".shstrtab", ".symtab_shndx", ".nv_fatbin",
        ".nvFatBinSegment", "__nv_module_id", "__nv_relfatbin", ".debug_*"};
    std::vector<Finding> found;
    std::set<std::string> reported;
    for (const Section& s : sections) {
        std::string name = s.name;
        // A relocation section goes with the section it relocates.
        if (s.type == "RELA" || s.type == "REL") {
            if (name.rfind(".rela", 0) == 0) name = name.substr(5);
            else if (name.rfind(".rel", 0) == 0) name = name.substr(4);
        }
        if (reported.count(name)) continue;
        const size_t before = found.size();
        const bool writable = s.flags.find('W') != std::string::npos;
        const bool executable = s.flags.find('X') != std::string::npos;
        const bool is_text = name == ".text" || name.rfind(".text.", 0) == 0;
        if (!matches_any(allowed, name) || s.type == "PREINIT_ARRAY") {
            found.push_back({"section", "the object has a section '" + name +
                                            "', which ordinary code does not make: the grader does not allow it "
                                            "(.preinit_array, .ctors, .init and the like run code or change the "
                                            "program outside the functions of your file)"});
        } else if (name == ".note.GNU-stack" && executable) {
            found.push_back({"section", "the object asks for an executable stack"});
        } else if (writable && executable) {
            found.push_back({"section", "the object has a section '" + name + "' that is both writable and executable"});
        } else if (executable && !is_text) {
            found.push_back({"section", "the object has executable code in the section '" + name + "'"});
        } else if (is_text && writable) {
            found.push_back({"section", "the object has writable data in the code section '" + name + "'"});
        }
        if (found.size() != before) reported.insert(name);
    }
    return found;
}

std::vector<std::string> system_call_instructions(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string function;
    std::set<std::string> reported;
    for (std::string line; std::getline(in, line);) {
        // "0000000000000010 <_Z3fooi>:" starts a function; "   4:\tsyscall" is an instruction.
        size_t lt = line.find(" <");
        if (lt != std::string::npos && !line.empty() && line.back() == ':' && line.find(":\t") == std::string::npos) {
            size_t gt = line.rfind('>');
            if (gt != std::string::npos && gt > lt + 2) function = line.substr(lt + 2, gt - lt - 2);
            continue;
        }
        size_t tab = line.find(":\t");
        if (tab == std::string::npos) continue;
        std::vector<std::string> w = split_ws(line.substr(tab + 2));
        std::string what;
        for (size_t k = 0; k < w.size() && what.empty(); ++k) {
            if (w[k] == "syscall" || w[k] == "sysenter") what = w[k];
            else if (w[k] == "int" && k + 1 < w.size() && (w[k + 1] == "$0x80" || w[k + 1] == "0x80")) what = "int $0x80";
            else if (w[k].find('<') != std::string::npos || w[k] == "#") break;  // an operand's symbol or a comment
        }
        if (what.empty()) continue;
        std::string entry = what + " in " + (function.empty() ? "?" : demangle(function));
        if (reported.insert(entry).second) out.push_back(entry);
    }
    return out;
}

namespace {
uint64_t read_le(const std::string& b, size_t at, size_t bytes) {
    uint64_t v = 0;
    for (size_t k = 0; k < bytes; ++k) v |= static_cast<uint64_t>(static_cast<unsigned char>(b[at + k])) << (8 * k);
    return v;
}
}  // namespace

bool parse_fatbin(const std::string& b, std::vector<FatbinImage>& images, std::string& error) {
    images.clear();
    constexpr uint32_t kMagic = 0xBA55ED50u;
    size_t at = 0;
    int containers = 0;
    while (at < b.size()) {
        if (b.size() - at < 16 || read_le(b, at, 4) != kMagic) {
            // Padding between or after containers is zeros up to 8-byte alignment... or more.
            size_t z = at;
            while (z < b.size() && b[z] == '\0') ++z;
            if (z == b.size()) break;
            if (z != at && (z % 8) == 0 && b.size() - z >= 16 && read_le(b, z, 4) == kMagic) {
                at = z;
                continue;
            }
            error = "not a fatbinary at offset " + std::to_string(at);
            return false;
        }
        const uint64_t header = read_le(b, at + 6, 2), body = read_le(b, at + 8, 8);
        if (header < 16 || header > b.size() - at || body > b.size() - at - header) {
            error = "a fatbinary header gives sizes beyond the section";
            return false;
        }
        size_t p = at + header;
        const size_t end = at + header + body;
        while (p < end) {
            if (end - p < 32) {
                error = "a truncated fatbinary entry";
                return false;
            }
            const uint64_t kind = read_le(b, p, 2), entry_header = read_le(b, p + 4, 4), payload = read_le(b, p + 8, 8);
            if (entry_header < 32 || entry_header > end - p || payload > end - p - entry_header) {
                error = "a fatbinary entry gives sizes beyond its container";
                return false;
            }
            FatbinImage img;
            img.kind = static_cast<unsigned>(kind);
            img.arch = static_cast<unsigned>(read_le(b, p + 28, 4));
            img.data = b.substr(p + entry_header, payload);
            images.push_back(std::move(img));
            if (images.size() > 4096) {
                error = "too many fatbinary entries";
                return false;
            }
            p += entry_header + payload;
        }
        at = end;
        ++containers;
    }
    if (containers == 0) {
        error = "no fatbinary in the section";
        return false;
    }
    return true;
}

// ---- symbols ---------------------------------------------------------------------------------

namespace {
// A glob matches a symbol by its mangled name or its qualified name (no return type, no
// parameters: a template's demangled form starts with its return type, which says nothing of
// what the function is), or by the demangled form of a name that is not a function's
// ("typeinfo for std::exception", "std::cout"). With `namespaces`, also by the first namespace
// of the qualified name, so that a prohibition "cub" covers cub::DeviceReduce (never for what is
// allowed: "cuda*" must not let in cudalabs::).
bool symbol_matches(const std::vector<std::string>& globs, const std::string& name, bool namespaces = false) {
    if (globs.empty()) return false;
    if (matches_any(globs, name)) return true;
    const std::string d = demangle(name);
    if (d == name) return false;
    if (d.find('(') == std::string::npos && matches_any(globs, d)) return true;
    const std::string q = qualified_name(name);
    if (matches_any(globs, q)) return true;
    const size_t scope = q.find("::");
    return namespaces && scope != std::string::npos && matches_any(globs, q.substr(0, scope));
}

// A name listed exactly (no wildcard) is allowed even where a '!' glob takes its family back
// out ("!cudalabs::*" but "cudalabs::throw_cuda_error", which CUDA_CHECK expands to).
bool allowed_by(const std::vector<std::string>& list, const std::string& name) {
    std::vector<std::string> take, give, exact;
    for (const std::string& g : list) {
        if (g.size() > 1 && g[0] == '!') give.push_back(g.substr(1));
        else if (g.find_first_of("*?") == std::string::npos) exact.push_back(g);
        else take.push_back(g);
    }
    if (symbol_matches(exact, name)) return true;
    return !symbol_matches(give, name) && symbol_matches(take, name);
}

bool is_import(const ElfSymbol& s) { return !s.defined && (s.bind == "GLOBAL" || s.bind == "WEAK"); }
}  // namespace

std::vector<Finding> audit_imports(const std::vector<ElfSymbol>& symbols, const AuditRules& rules,
                                   const std::set<std::string>& renamed) {
    std::vector<Finding> found;
    std::set<std::string> seen;
    for (const ElfSymbol& s : symbols) {
        if (!is_import(s) || !seen.insert(s.name).second) continue;
        if (symbol_matches(rules.forbid_symbols, s.name, true)) {
            found.push_back({"forbidden", "the file calls " + demangle(s.name) + ", which is not allowed in this lab"});
        } else if (!renamed.count(s.name) && !allowed_by(rules.allowed_imports, s.name) &&
                   !allowed_by(rules.allow_imports, s.name)) {
            found.push_back({"import", "the file uses " + demangle(s.name) +
                                           ", which the grader does not allow in this lab (only the CUDA runtime and "
                                           "the ordinary C and C++ library functions it lists)"});
        }
    }
    return found;
}

std::vector<Finding> audit_forbidden_definitions(const std::vector<ElfSymbol>& symbols,
                                                 const std::set<std::string>& kernels,
                                                 const std::vector<std::string>& forbid_symbols) {
    std::vector<Finding> found;
    std::set<std::string> seen;
    auto check = [&](const std::string& name, const char* what) {
        if (!seen.insert(name).second || !symbol_matches(forbid_symbols, name, true)) return;
        found.push_back({"forbidden", std::string("the file ") + what + " " + qualified_name(name) +
                                          ", which comes from a library this lab does not allow"});
    };
    for (const std::string& k : kernels) check(k, "has the kernel");
    // Functions only: a header's variables are emitted whether used or not, its functions only
    // when something calls them.
    for (const ElfSymbol& s : symbols)
        if (s.defined && (s.type == "FUNC" || s.type == "IFUNC")) check(s.name, "contains");
    return found;
}

std::vector<Finding> audit_definitions(const std::vector<ElfSymbol>& symbols, const std::set<std::string>& kernels,
                                       const std::set<std::string>& interface,
                                       const std::set<std::string>& trusted_kernels) {
    std::vector<Finding> found;
    std::set<std::string> defined_globally;
    bool main_seen = false;
    for (const ElfSymbol& s : symbols) {
        if (!s.defined) continue;
        if (s.name == "main" && !main_seen) {
            main_seen = true;
            found.push_back({"main", "the file defines main(): the lab's driver owns main, your file only provides "
                                     "the functions of the lab's header"});
        }
        if (s.bind != "LOCAL") defined_globally.insert(s.name);
    }
    for (const std::string& f : interface)
        if (!defined_globally.count(f))
            found.push_back({"interface", "the file does not define " + demangle(f) +
                                              ", which the lab's driver calls (the lab's header declares it)"});
    for (const std::string& k : kernels)
        if (trusted_kernels.count(k))
            found.push_back({"kernel", "the kernel " + demangle(k) +
                                           " has the name of a kernel of the lab's driver or harness: rename it"});
    return found;
}

std::vector<std::string> symbols_to_keep_global(const std::vector<ElfSymbol>& symbols,
                                                const std::set<std::string>& interface) {
    std::set<std::string> keep;
    for (const ElfSymbol& s : symbols)
        if (s.defined && s.bind != "LOCAL" && interface.count(s.name)) keep.insert(s.name);
    return {keep.begin(), keep.end()};
}

std::vector<std::pair<std::string, std::string>> renames_to_apply(
    const std::vector<ElfSymbol>& symbols, const std::vector<std::pair<std::string, std::string>>& import_renames) {
    std::set<std::string> imports;
    for (const ElfSymbol& s : symbols)
        if (is_import(s)) imports.insert(s.name);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : import_renames)
        if (imports.count(r.first)) out.push_back(r);
    return out;
}

std::vector<Finding> check_localized(const std::vector<ElfSymbol>& symbols, const std::set<std::string>& interface,
                                     const std::vector<std::pair<std::string, std::string>>& import_renames) {
    std::vector<Finding> found;
    std::set<std::string> from;
    for (const auto& r : import_renames) from.insert(r.first);
    for (const ElfSymbol& s : symbols) {
        if (s.defined && s.bind != "LOCAL" && !interface.count(s.name))
            found.push_back({"object", "the symbol " + demangle(s.name) + " of the file could not be made local to it"});
        else if (is_import(s) && from.count(s.name))
            found.push_back({"object", "the call of " + s.name + " could not be redirected to the grading shims"});
    }
    return found;
}

// ---- what the compiler read ------------------------------------------------------------------

std::vector<std::string> parse_depfile(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    bool after_colon = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') { ++i; c = ' '; }
        else if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') { cur += ' '; ++i; continue; }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (!cur.empty()) {
                if (after_colon) out.push_back(cur);
                else if (cur.back() == ':') after_colon = true;  // "target:" token
                cur.clear();
            }
            continue;
        }
        if (c == ':' && !after_colon && (i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
            after_colon = true;
            cur.clear();
            continue;
        }
        cur += c;
    }
    if (!cur.empty() && after_colon) out.push_back(cur);
    return out;
}

namespace {
// "" when `file` (as the compiler named it) may be read, else why not.
std::string judge_read(const std::string& file, const IncludeRules& rules) {
    if (file.empty() || file[0] == '<') return "";  // <built-in>, <command-line>
    const std::string path = file[0] == '/' ? file : rules.compile_dir + "/" + file;
    const std::string real = real_path(path);
    if (real.empty()) return "cannot be found";
    if (real == rules.own_file || rules.staged_headers.count(real)) return "";
    for (const std::string& root : rules.system_roots) {
        const std::string r = real_path(root);
        if (!r.empty() && real.compare(0, r.size() + 1, r + "/") == 0) return "";
    }
    return (real == path ? std::string("is") : "is " + real + ",") + " outside the lab's headers and the system headers";
}

std::string shown(const std::string& file, const IncludeRules& rules) {
    const std::string prefix = rules.compile_dir + "/";
    return file.compare(0, prefix.size(), prefix) == 0 ? file.substr(prefix.size()) : file;
}
}  // namespace

std::vector<Finding> audit_includes(const std::vector<IncludeEntry>& includes, const IncludeRules& rules) {
    std::vector<Finding> found;
    std::set<std::string> reported;
    for (const IncludeEntry& e : includes) {
        // The file read again as an included one: its lines there would pass for a header's.
        const bool itself = !e.file.empty() && e.file[0] != '<' &&
                            real_path(e.file[0] == '/' ? e.file : rules.compile_dir + "/" + e.file) == rules.own_file;
        if (itself && reported.insert(e.file).second) {
            found.push_back({"include", "the file includes itself" + (e.from_main ? " (line " + std::to_string(e.line) + ")" : std::string()) +
                                            ": the grader reads your file's own lines once, as your file's; remove that #include"});
            continue;
        }
        const std::string why = judge_read(e.file, rules);
        if (why.empty() || !reported.insert(e.file).second) continue;
        const std::string where = e.from_main ? " (line " + std::to_string(e.line) + ")"
                                              : " (through " + shown(e.parent, rules) + ")";
        found.push_back({"include", "the file includes " + shown(e.file, rules) + where + ", which " + why +
                                        ": your file may include only the lab's headers and system headers"});
    }
    return found;
}

std::vector<Finding> audit_dependencies(const std::vector<std::string>& deps, const IncludeRules& rules) {
    std::vector<Finding> found;
    for (const std::string& d : deps) {
        const std::string why = judge_read(d, rules);
        if (!why.empty())
            found.push_back({"include", "the compiler read " + shown(d, rules) + ", which " + why +
                                            ": your file may include only the lab's headers and system headers"});
    }
    return found;
}

std::vector<Finding> audit_host_asm(const std::vector<AsmStatement>& statements, const IncludeRules& rules) {
    std::vector<Finding> found;
    std::map<std::string, std::string> header_text;
    for (const AsmStatement& a : statements) {
        if (a.own) {
            found.push_back({"asm", "inline assembly in host code (line " + std::to_string(a.line) +
                                        "): the grader allows inline assembly in device code only (in __global__ "
                                        "and __device__ functions)"});
            continue;
        }
        bool believed = judge_read(a.file, rules).empty() && !a.file.empty() && a.file[0] != '<';
        if (believed) {
            auto it = header_text.find(a.file);
            if (it == header_text.end())
                it = header_text.emplace(a.file, read_file(a.file[0] == '/' ? a.file : rules.compile_dir + "/" + a.file)).first;
            for (const std::string& lit : a.literals)
                if (it->second.find(lit) == std::string::npos) believed = false;
        }
        if (!believed)
            found.push_back({"asm", "inline assembly in host code, attributed to " + shown(a.file, rules) + " line " +
                                        std::to_string(a.line) + ", which does not hold it: the grader allows inline "
                                        "assembly in device code only"});
    }
    return found;
}

// ---- a failed compile -----------------------------------------------------------------------

std::vector<std::vector<std::string>> preprocess_commands(const std::string& dryrun_output) {
    std::vector<std::vector<std::string>> out;
    std::istringstream in(dryrun_output);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("#$ ", 0) != 0) continue;
        const std::string cmd = line.substr(3);
        std::vector<std::string> argv;
        std::string word;
        bool in_word = false, quoted = false, usable = true;
        for (char c : cmd) {
            if (quoted) {
                if (c == '"') quoted = false;
                else if (c == '\\' || c == '$' || c == '`') usable = false;
                else word += c;
            } else if (c == '"') {
                quoted = in_word = true;
            } else if (c == ' ' || c == '\t') {
                if (in_word) argv.push_back(word);
                word.clear();
                in_word = false;
            } else if (std::strchr("'\\$`|;&<>(){}*?", c)) {
                usable = false;
            } else {
                word += c;
                in_word = true;
            }
        }
        if (in_word) argv.push_back(word);
        if (argv.empty() || argv[0].find('=') != std::string::npos) continue;  // NAME=value lines
        if (std::find(argv.begin(), argv.end(), "-E") == argv.end()) continue;
        if (!usable || quoted) return {};
        std::vector<std::string> cmdline;
        for (size_t k = 0; k < argv.size(); ++k) {
            if (argv[k] == "-o" && k + 1 < argv.size()) {
                ++k;
                continue;
            }
            cmdline.push_back(argv[k]);
        }
        out.push_back(cmdline);
    }
    return out;
}

}  // namespace grading
