// label.h -- the one rule for a device name or roster label (decisions §15): 1..64 Unicode
// scalar values in NFC, no C0/C1 controls or DEL, no bidi controls, no '/' or '\', no white
// space at either end. The schema's label() node (schema.h) applies it to request fields.
// Relies on libunistring (Debian) for NFC and the White_Space property.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pouch::json {

constexpr size_t kMaxLabelChars = 64;

// Why `s` is not a valid label, as the end of a sentence starting "must ..." ("be at most 64
// characters", "not contain a bidi control (U+202E)"), or nullopt when it is one. The first
// problem found is named: length, controls, bidi controls, slashes, white space, then NFC.
std::optional<std::string> label_problem(std::string_view s);

// The characters a label may not hold and a client never prints as they are (decisions §15):
// C0 (U+0000-001F), DEL, C1 (U+0080-009F) and the bidi controls U+061C, U+200E-200F,
// U+202A-202E, U+2066-2069. The CLI's defang() replaces exactly these.
bool is_control_or_bidi(uint32_t cp);

}  // namespace pouch::json
