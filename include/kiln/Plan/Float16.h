//===- Float16.h - f32 to f16/bf16 conversion (round to nearest even) -----===//
//
// Shared by the compiler (kilnc --precision converts weights) and kiln-refit
// (which matches an f32 ONNX tensor against a weight the plan stores in
// f16/bf16, or rounded to tf32): both must round bit-identically. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PLAN_FLOAT16_H
#define KILN_PLAN_FLOAT16_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::plan {

/// f32 → bf16, round to nearest even; NaNs stay quiet NaNs.
inline uint16_t floatToBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

/// f32 → IEEE f16, round to nearest even (subnormals, overflow to infinity,
/// NaN stays NaN).
inline uint16_t floatToF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)
    return sign | 0x7e00u; // NaN
  if (a >= 0x477ff000u)
    return sign | 0x7c00u; // >= 65520 rounds to infinity
  if (a >= 0x38800000u) {  // normal f16
    uint32_t r = a + 0x0fffu + ((a >> 13) & 1u);
    return uint16_t(sign | ((r - 0x38000000u) >> 13));
  }
  if (a < 0x33000000u) // at most half the smallest subnormal: zero
    return sign;
  // Subnormal f16 (unit 2^-24): the 24-bit significand shifted right.
  uint32_t e = a >> 23;
  uint32_t m = (a & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - e; // 14..24
  uint32_t q = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u)))
    ++q;
  return uint16_t(sign | q);
}

/// f32 → tf32, kept as an f32 whose low 13 mantissa bits are zero: round to
/// nearest, ties away from zero (cvt.rna.tf32.f32 for finite values; a NaN
/// whose payload lies only in those bits becomes an infinity).
inline float floatToTf32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u = (u + 0x1000u) & 0xFFFFE000u;
  std::memcpy(&f, &u, 4);
  return f;
}

/// `size` bytes of little-endian f32s rounded to tf32 in place
/// (floatToTf32): kilnc --precision tf32 rounds weights so, kiln-refit
/// matches them.
inline void roundToTf32(void *data, size_t size) {
  char *p = static_cast<char *>(data);
  for (size_t i = 0; i + 4 <= size; i += 4) {
    float f;
    std::memcpy(&f, p + i, 4);
    f = floatToTf32(f);
    std::memcpy(p + i, &f, 4);
  }
}

} // namespace kiln::plan

#endif // KILN_PLAN_FLOAT16_H
