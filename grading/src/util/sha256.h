// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the audit log's submission hashes.
#pragma once
#include <string>

namespace grading {
std::string sha256_hex(const std::string& data);
}
