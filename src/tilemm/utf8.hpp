// Text that goes into the results: the JSON library takes UTF-8 only, and throws at the first byte
// that is not, which would be after a run instead of before it.
#pragma once

#include <string>
#include <string_view>

namespace tilemm {

/// True when `text` is well-formed UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
inline bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = [&](std::size_t at) {
      return static_cast<unsigned char>(text[at]);
    };
    const unsigned lead = byte(i);
    std::size_t length = 0;
    unsigned low = 0x80, high = 0xBF;  // the range of the second byte
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    if (byte(i + 1) < low || byte(i + 1) > high) return false;
    for (std::size_t k = 2; k < length; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

/// `text` (UTF-8) cut to at most `width` characters, never inside one, and padded with spaces to
/// `width` characters: a column of a table that stays UTF-8 whatever the text.
inline std::string fit_utf8(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size() && characters < width; ++characters) {
    std::size_t next = i + 1;  // a character's continuation bytes are 10xxxxxx
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    out.append(text.substr(i, next - i));
    i = next;
  }
  return out.append(width - characters, ' ');
}

}  // namespace tilemm
