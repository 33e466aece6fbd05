#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/sha256.h"

namespace grading {

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    const size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

std::vector<std::string> split_ws(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    std::string w;
    while (in >> w) out.push_back(w);
    return out;
}

std::vector<std::string> split_list(const std::string& s, char sep) {
    std::vector<std::string> parts;
    size_t pos = 0;
    for (;;) {
        const size_t at = s.find(sep, pos);
        parts.push_back(trim(s.substr(pos, at == std::string::npos ? std::string::npos : at - pos)));
        if (at == std::string::npos) break;
        pos = at + 1;
    }
    return parts;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
    return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
}

bool starts_with(const std::string& s, const std::string& head) { return s.compare(0, head.size(), head) == 0; }

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string clip(const std::string& s, size_t max) {
    if (s.size() <= max) return s;
    const size_t keep = char_boundary(s, max);
    return s.substr(0, keep) + "\n[... " + std::to_string(s.size() - keep) + " more bytes]";
}

std::string elapsed_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return buf;
}

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string random_hex(size_t bytes) {
    std::ifstream f("/dev/urandom", std::ios::binary);
    std::string raw(bytes, '\0');
    f.read(&raw[0], static_cast<std::streamsize>(bytes));
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char c : raw) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    return out;
}

// ---- UTF-8 ----

namespace {

bool is_continuation(unsigned char c) { return (c >> 6) == 2; }

// Appends code point `cp` (valid, not a surrogate) as UTF-8.
void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace

std::pair<uint32_t, size_t> decode_utf8(const std::string& s, size_t i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) return {c, 1};
    const size_t len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return {0, 0};
    uint32_t cp = c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
        const unsigned char d = static_cast<unsigned char>(s[i + k]);
        if (!is_continuation(d)) return {0, 0};
        cp = (cp << 6) | (d & 0x3F);
    }
    const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
    return {cp, len};
}

size_t char_boundary(const std::string& s, size_t pos) {
    while (pos > 0 && pos < s.size() && is_continuation(static_cast<unsigned char>(s[pos]))) --pos;
    return pos;
}

size_t first_invalid_utf8(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        const size_t len = decode_utf8(s, i).second;
        if (len == 0) return i;
        i += len;
    }
    return std::string::npos;
}

bool is_valid_utf8(const std::string& s) { return first_invalid_utf8(s) == std::string::npos; }

std::string valid_utf8(const std::string& s) {
    size_t bad = first_invalid_utf8(s);
    if (bad == std::string::npos) return s;
    std::string out = s.substr(0, bad);
    for (size_t i = bad; i < s.size();) {
        const size_t len = decode_utf8(s, i).second;
        if (len > 0) {
            out.append(s, i, len);
            i += len;
            continue;
        }
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\x%02x", static_cast<unsigned char>(s[i]));
        out += esc;
        ++i;
    }
    return out;
}

bool windows1252_to_utf8(const std::string& in, std::string& out, size_t& bad) {
    // 0x80..0x9F: Windows-1252's own characters (0 where it has none); the rest is Latin-1.
    static const uint16_t high[32] = {0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
                                      0x2039, 0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
                                      0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178};
    out.clear();
    out.reserve(in.size() + in.size() / 8);
    for (size_t i = 0; i < in.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(in[i]);
        uint32_t cp = c;
        if (c >= 0x80 && c <= 0x9F) cp = high[c - 0x80];
        if (cp == 0) {
            bad = i;
            return false;
        }
        append_utf8(out, cp);
    }
    return true;
}

bool utf16_to_utf8(const std::string& in, bool big_endian, std::string& out, size_t& bad) {
    out.clear();
    auto unit = [&](size_t i) {
        const unsigned a = static_cast<unsigned char>(in[i]), b = static_cast<unsigned char>(in[i + 1]);
        return big_endian ? (a << 8 | b) : (b << 8 | a);
    };
    for (size_t i = 0; i < in.size(); i += 2) {
        if (i + 1 >= in.size()) {
            bad = i;
            return false;
        }
        uint32_t cp = unit(i);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            const uint32_t low = i + 3 < in.size() ? unit(i + 2) : 0;
            if (low < 0xDC00 || low > 0xDFFF) {
                bad = i;
                return false;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 2;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            bad = i;
            return false;
        }
        append_utf8(out, cp);
    }
    return true;
}

size_t line_of_offset(const std::string& text, size_t at) {
    return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(at, text.size())), '\n'));
}

nlohmann::json lossless_json(const std::string& bytes) {
    if (is_valid_utf8(bytes)) return bytes;
    static const char* hex = "0123456789abcdef";
    std::string h;
    for (unsigned char c : bytes) {
        h += hex[c >> 4];
        h += hex[c & 15];
    }
    return {{"hex", h}};
}

std::string lossless_bytes(const nlohmann::json& j) {
    if (j.is_string()) return j.get<std::string>();
    const std::string h = j.at("hex").get<std::string>();
    std::string raw;
    for (size_t i = 0; i + 1 < h.size(); i += 2) raw += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
    return raw;
}

std::string json_text(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// ---- a submission's id ----

std::string submission_id(const std::string& name) {
    static const char* hex = "0123456789ABCDEF";
    std::string id;
    for (size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        if ((std::isalnum(c) || c == '_' || c == '-' || c == '.') && !(i == 0 && c == '.') && c < 0x80) {
            id += static_cast<char>(c);
        } else {
            id += '%';
            id += hex[c >> 4];
            id += hex[c & 15];
        }
    }
    if (id.empty()) return "%";  // (no file or folder has an empty name)
    if (id.size() > 100) id = id.substr(0, 80) + "~" + sha256_hex(name).substr(0, 16);
    return id;
}

}  // namespace grading
