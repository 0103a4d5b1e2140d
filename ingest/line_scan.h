// Byte scans over text already in memory, for the hot paths that read logs in bulk
// (FileTailer's read buffer, the OpenSM ingest prefilter): counting and locating '\n', and
// finding the first occurrence of a byte in a short span. Plain C++ with an SSE2 path on
// x86-64 and a word-at-a-time path on little-endian machines; the same results everywhere.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ibw::ingest {

// Number of '\n' in [p, p + size).
inline size_t count_newlines(const char* p, size_t size) {
  size_t n = 0, i = 0;
#ifdef __SSE2__
  const __m128i nl = _mm_set1_epi8('\n');
  while (size - i >= 16) {
    // Up to 255 blocks per round: each byte lane counts its matches (cmpeq gives -1).
    const size_t blocks = std::min<size_t>((size - i) / 16, 255);
    __m128i acc = _mm_setzero_si128();
    for (size_t b = 0; b < blocks; ++b, i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
    }
    const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    n += static_cast<size_t>(_mm_cvtsi128_si32(sums)) +
         static_cast<size_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < size; ++i) n += p[i] == '\n';
  return n;
}

// Length of the first `lines` lines of [p, p + size), each with its '\n' (the span holds at
// least that many).
inline size_t end_of_lines(const char* p, size_t size, size_t lines) {
  const char* at = p;
  for (size_t k = 0; k < lines; ++k)
    at = static_cast<const char*>(std::memchr(at, '\n', size - static_cast<size_t>(at - p))) + 1;
  return static_cast<size_t>(at - p);
}

// First c in [p, end), or nullptr; inline, for the short spans of one log line, where a call
// to memchr costs more than the scan: 16 bytes per step (SSE2), else 8.
inline const char* find_byte(const char* p, const char* end, char c) {
#ifdef __SSE2__
  const __m128i wanted = _mm_set1_epi8(c);
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, wanted)));
    if (mask) return p + std::countr_zero(mask);
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
    const uint64_t pattern = kOnes * static_cast<unsigned char>(c);
    for (; end - p >= 8; p += 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      w ^= pattern;  // zero bytes where c is
      // The lowest flagged byte is always a real zero (borrows only run upwards).
      const uint64_t zero = (w - kOnes) & ~w & kHighs;
      if (zero) return p + std::countr_zero(zero) / 8;
    }
  }
  for (; p < end; ++p)
    if (*p == c) return p;
  return nullptr;
}

}  // namespace ibw::ingest
