#include "audit.h"

#include <limits.h>
#include <stdlib.h>

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "rubric.h"

namespace grading {

std::string strip_comments_and_strings(const std::string& s, bool blank_strings) {
    std::string out = s;
    enum { Code, Line, Block, Str, Chr, Raw } state = Code;
    std::string raw_end;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i], n = i + 1 < s.size() ? s[i + 1] : '\0';
        switch (state) {
            case Code:
                if (c == '/' && n == '/') { state = Line; out[i] = out[i + 1] = ' '; ++i; }
                else if (c == '/' && n == '*') { state = Block; out[i] = out[i + 1] = ' '; ++i; }
                else if (c == 'R' && n == '"' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
                    size_t open = s.find('(', i + 2);
                    if (open == std::string::npos) break;
                    raw_end = ")" + s.substr(i + 2, open - i - 2) + "\"";
                    for (size_t k = i + 2; k <= open; ++k) out[k] = ' ';
                    i = open;
                    state = Raw;
                }
                else if (c == '"') state = Str;
                else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])))) state = Chr;  // 1'000 separators
                break;
            case Line:
                if (c == '\n') state = Code; else out[i] = ' ';
                break;
            case Block:
                if (c == '*' && n == '/') { out[i] = out[i + 1] = ' '; ++i; state = Code; }
                else if (c != '\n') out[i] = ' ';
                break;
            case Str: case Chr:
                if (c == '\\' && n != '\0') { if (blank_strings) { out[i] = ' '; if (n != '\n') out[i + 1] = ' '; } ++i; }
                else if ((state == Str && c == '"') || (state == Chr && c == '\'')) state = Code;
                else if (c == '\n') state = Code;  // unterminated: do not swallow the file
                else if (blank_strings) out[i] = ' ';
                break;
            case Raw:
                if (s.compare(i, raw_end.size(), raw_end) == 0) {
                    for (size_t k = 0; k + 1 < raw_end.size(); ++k) out[i + k] = ' ';
                    i += raw_end.size() - 1;
                    state = Code;
                } else if (c != '\n') out[i] = ' ';
                break;
        }
    }
    return out;
}

namespace {
int line_of(const std::string& text, size_t pos) {
    int line = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) line += text[i] == '\n';
    return line;
}
// Backslash-newline removed, as the preprocessor does, so that a directive or a name cannot hide
// across lines. (Line numbers in messages shift by the lines joined before them.)
std::string join_continued_lines(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') { ++i; continue; }
        out += text[i];
    }
    return out;
}
std::string at_line(const std::string& text, size_t pos) { return " (line " + std::to_string(line_of(text, pos)) + ")"; }

bool matches_any(const std::vector<std::string>& globs, const std::string& name) {
    for (const std::string& g : globs)
        if (glob_match(g, name)) return true;
    return false;
}
}  // namespace

std::vector<Finding> audit_source(const std::string& source, const AuditRules& rules) {
    std::vector<Finding> found;
    const std::string code = strip_comments_and_strings(source, true);

    std::string joined = join_continued_lines(code);

    static const std::regex main_re(R"((^|[^A-Za-z0-9_.>:])main\s*\()");
    for (std::sregex_iterator it(joined.begin(), joined.end(), main_re), end; it != end; ++it)
        found.push_back({"main", "the file uses main(): the lab's driver owns main, your file only "
                                 "provides the functions of the lab's header" + at_line(joined, it->position(0))});

    // #include lines are read with comments removed but strings intact.
    std::string includes_text = join_continued_lines(strip_comments_and_strings(source, false));
    static const std::regex include_re(R"((^|\n)[ \t]*#[ \t]*(include|include_next|import)\b[ \t]*([^\n]*))");
    for (std::sregex_iterator it(includes_text.begin(), includes_text.end(), include_re), end; it != end; ++it) {
        std::string where = at_line(includes_text, it->position(2));
        std::string rest = (*it)[3];
        // Drop a trailing comment left on the line.
        for (const char* cmt : {"//", "/*"}) {
            size_t c = rest.find(cmt);
            if (c != std::string::npos && c > 0) rest = rest.substr(0, c);
        }
        while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.pop_back();
        if (rest.size() < 3 || !((rest.front() == '"' && rest.back() == '"') || (rest.front() == '<' && rest.back() == '>'))) {
            found.push_back({"include", "#include of '" + rest + "': only plain \"header.h\" or <header> names are allowed" + where});
            continue;
        }
        std::string name = rest.substr(1, rest.size() - 2);
        bool quoted = rest.front() == '"';
        if (name.find("..") != std::string::npos || name.front() == '/' || name.find('\\') != std::string::npos) {
            found.push_back({"include", "#include " + rest + " reaches outside the include paths" + where});
        } else if (quoted && !rules.allowed_local_headers.count(name)) {
            found.push_back({"include", "#include " + rest + ": your file may include only the lab's headers "
                                        "and system headers, not other files" + where});
        } else if (matches_any(rules.forbid_includes, name)) {
            found.push_back({"forbidden", "#include " + rest + " is not allowed in this lab" + where});
        }
    }
    if (std::regex_search(source, std::regex(R"(\.incbin|\bincbin\b|#\s*embed\b|__has_embed)")))
        found.push_back({"embed", "the file embeds another file (.incbin / #embed)"});

    // Forbidden names as identifiers in code (the object check catches calls made through macros).
    static const std::regex ident_re(R"([A-Za-z_][A-Za-z0-9_]*)");
    std::set<std::string> reported;
    for (std::sregex_iterator it(joined.begin(), joined.end(), ident_re), end; it != end; ++it) {
        std::string id = it->str();
        if (!reported.count(id) && matches_any(rules.forbid_symbols, id)) {
            reported.insert(id);
            found.push_back({"forbidden", "'" + id + "' is not allowed in this lab" + at_line(joined, it->position(0))});
        }
    }
    return found;
}

bool is_strong_global(const Symbol& s) {
    return std::isupper(static_cast<unsigned char>(s.type)) && s.type != 'W' && s.type != 'V';
}

std::vector<Symbol> parse_nm(const std::string& text) {
    std::vector<Symbol> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream w(line);
        std::vector<std::string> parts;
        std::string p;
        while (w >> p) parts.push_back(p);
        if (parts.size() == 2 && parts[0].size() == 1) out.push_back({parts[0][0], parts[1]});  // "U name"
        else if (parts.size() == 3 && parts[1].size() == 1) out.push_back({parts[1][0], parts[2]});
    }
    return out;
}

// "ns::f(int)" for "_ZN2ns1fEi"; the name itself when it is not a C++ name.
std::string demangle(const std::string& name) {
    int status = 0;
    char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    std::string out = status == 0 && d ? d : name;
    std::free(d);
    return out;
}

std::vector<Finding> audit_symbols(const std::vector<Symbol>& symbols, const std::set<std::string>& trusted,
                                   const AuditRules& rules) {
    std::vector<Finding> found;
    std::set<std::string> seen;
    for (const Symbol& s : symbols) {
        if (!seen.insert(std::string(1, s.type) + s.name).second) continue;
        if (s.type == 'U') {
            if (matches_any(rules.forbid_symbols, s.name))
                found.push_back({"forbidden", "the file calls " + demangle(s.name) + ", which this lab does not allow"});
            continue;
        }
        // Local symbols (lower case) cannot replace anything; weak ones (template and inline
        // instantiations from the headers) lose to the trusted definitions.
        if (!is_strong_global(s)) continue;
        if (s.name == "main") {
            found.push_back({"main", "the file defines main(): the lab's driver owns main"});
        } else if (trusted.count(s.name)) {
            found.push_back({"symbol", "the file defines " + demangle(s.name) + ", which belongs to the lab's driver or harness"});
        } else if (s.name.rfind("_ZN8cudalabs", 0) == 0 || s.name.rfind("_ZNSt", 0) == 0 || s.name.rfind("_ZSt", 0) == 0) {
            found.push_back({"symbol", "the file defines " + demangle(s.name) + " in the harness's or the standard library's namespace"});
        } else if (s.name.rfind("_Z", 0) != 0 && !matches_any(rules.allow_symbols, s.name)) {
            // An unmangled (C) name would replace a C library or CUDA runtime function
            // (write, fopen, cudaMemcpy...) for the whole program.
            found.push_back({"symbol", "the file defines the C symbol " + s.name +
                                       ", which could replace a library or CUDA runtime function"});
        }
    }
    return found;
}

std::set<std::string> kernels_defined(const std::vector<Symbol>& symbols) {
    std::set<std::string> names, out;
    for (const Symbol& s : symbols) names.insert(s.name);
    for (const Symbol& s : symbols) {
        if (s.type == 'U' || s.name.find("__device_stub__") != std::string::npos) continue;
        std::string stub = s.name.rfind("_Z", 0) == 0 ? "__device_stub__Z" + s.name.substr(2)
                                                       : "__device_stub__" + s.name;
        for (const std::string& n : names)
            if (n.find(stub) != std::string::npos) { out.insert(s.name); break; }
    }
    return out;
}

std::string kernel_key(const std::string& name) {
    std::string d = name.rfind("_Z", 0) == 0 ? demangle(name) : name;
    // Cut the parameter list: the first '(' outside template brackets.
    int depth = 0;
    size_t cut = d.size();
    for (size_t i = 0; i < d.size(); ++i) {
        if (d[i] == '<') ++depth;
        else if (d[i] == '>') --depth;
        else if (d[i] == '(' && depth == 0) { cut = i; break; }
    }
    d = d.substr(0, cut);
    // A template's demangled name starts with its return type: "void add<32>".
    depth = 0;
    size_t space = std::string::npos;
    for (size_t i = 0; i < d.size(); ++i) {
        if (d[i] == '<') ++depth;
        else if (d[i] == '>') --depth;
        else if (d[i] == ' ' && depth == 0) space = i;
    }
    return space == std::string::npos ? d : d.substr(space + 1);
}

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

std::vector<Finding> audit_dependencies(const std::vector<std::string>& deps,
                                        const std::vector<std::string>& allowed_roots) {
    std::vector<Finding> found;
    std::vector<std::string> roots;
    for (const std::string& r : allowed_roots) {
        char buf[PATH_MAX];
        if (realpath(r.c_str(), buf)) roots.push_back(std::string(buf) + "/");
    }
    for (const std::string& d : deps) {
        char buf[PATH_MAX];
        std::string real = realpath(d.c_str(), buf) ? buf : d;
        bool ok = false;
        for (const std::string& r : roots)
            if (real.rfind(r, 0) == 0) ok = true;
        if (!ok) found.push_back({"dependency", "the compiler read " + d + ", which is outside the lab's files and the system headers"});
    }
    return found;
}

}  // namespace grading
