//===- Tensor.cpp - Small floats, random inputs and comparison of tensors -===//

#include "tools/common/Tensor.h"

#include "kiln/Runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <new>

#include <unistd.h>

using namespace kiln::tools;
namespace plan = kiln::plan;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the tools read and write little-endian tensors in place"
#endif

std::optional<uint64_t> Tensor::numElements() const {
  plan::TensorDesc desc;
  desc.shape = shape;
  return desc.numElements();
}

std::string kiln::tools::shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Small floats
//===----------------------------------------------------------------------===//

static float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float kiln::tools::halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f)
    return bitsToFloat(sign | 0x7f800000 | (mant << 13));
  if (exp == 0) {
    float v = std::ldexp(float(mant), -24);
    return sign ? -v : v;
  }
  return bitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t kiln::tools::floatToHalf(float f) {
  uint32_t u = floatToBits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t absBits = u & 0x7fffffff;
  if (absBits > 0x7f800000) // NaN: keep it quiet
    return uint16_t(sign | 0x7e00);
  if (absBits >= 0x477ff000) // rounds to >= 65520: overflow to inf
    return uint16_t(sign | 0x7c00);
  if (absBits < 0x38800000) { // below the smallest normal half: subnormal
    // Round |f| * 2^24 to the nearest integer, ties to even.
    float scaled = bitsToFloat(absBits) * 16777216.0f;
    return uint16_t(sign | uint16_t(std::nearbyint(scaled)));
  }
  uint32_t rounded = absBits + 0xfff + ((absBits >> 13) & 1);
  return uint16_t(sign | ((rounded - (112u << 23)) >> 13));
}

float kiln::tools::bf16ToFloat(uint16_t b) {
  return bitsToFloat(uint32_t(b) << 16);
}

uint16_t kiln::tools::floatToBf16(float f) {
  uint32_t u = floatToBits(f);
  if ((u & 0x7fffffff) > 0x7f800000)
    return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float kiln::tools::f8e4m3fnToFloat(uint8_t v) {
  bool neg = v & 0x80;
  unsigned exp = (v >> 3) & 0xf, mant = v & 7;
  float r;
  if (exp == 0xf && mant == 7)
    r = std::numeric_limits<float>::quiet_NaN();
  else if (exp == 0)
    r = std::ldexp(float(mant), -9);
  else
    r = std::ldexp(float(8 + mant), int(exp) - 10);
  return neg ? -r : r;
}

float kiln::tools::f8e5m2ToFloat(uint8_t v) {
  return halfToFloat(uint16_t(uint16_t(v) << 8));
}

double kiln::tools::elementAsDouble(const Tensor &t, uint64_t i) {
  const uint8_t *p = t.data.data() + i * plan::dtypeSize(t.dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.dtype) {
  case DType::f32:
    return load(float());
  case DType::f64:
    return load(double());
  case DType::f16:
    return halfToFloat(load(uint16_t()));
  case DType::bf16:
    return bf16ToFloat(load(uint16_t()));
  case DType::f8e4m3fn:
    return f8e4m3fnToFloat(*p);
  case DType::f8e5m2:
    return f8e5m2ToFloat(*p);
  case DType::i8:
    return load(int8_t());
  case DType::u8:
    return load(uint8_t());
  case DType::i16:
    return load(int16_t());
  case DType::u16:
    return load(uint16_t());
  case DType::i32:
    return load(int32_t());
  case DType::u32:
    return load(uint32_t());
  case DType::i64:
    return double(load(int64_t()));
  case DType::u64:
    return double(load(uint64_t()));
  case DType::boolean:
    return *p ? 1.0 : 0.0;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Random inputs and comparison
//===----------------------------------------------------------------------===//

static bool isFloat(DType d) {
  return d == DType::f32 || d == DType::f64 || d == DType::f16 ||
         d == DType::bf16 || d == DType::f8e4m3fn || d == DType::f8e5m2;
}

/// Nearest 8-bit float encoding of `x` (table search: exact and simple).
static uint8_t nearestF8(float x, float (*decode)(uint8_t)) {
  uint8_t best = 0;
  float bestErr = std::numeric_limits<float>::infinity();
  for (unsigned v = 0; v < 256; ++v) {
    float d = decode(uint8_t(v));
    if (std::isnan(d) || d < -1.0f || d >= 1.0f) // stay in [-1, 1)
      continue;
    float err = std::fabs(d - x);
    if (err < bestErr) {
      bestErr = err;
      best = uint8_t(v);
    }
  }
  return best;
}

void kiln::tools::fillRandom(Tensor &t, std::mt19937_64 &rng) {
  uint64_t n = t.numElements().value_or(0);
  size_t elem = plan::dtypeSize(t.dtype);
  t.data.assign(size_t(n * elem), 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t *p = t.data.data() + i * elem;
    uint64_t r = rng();
    if (isFloat(t.dtype)) {
      // Top 53 bits -> [0, 1) -> [-1, 1); no std:: distribution, whose
      // algorithm differs between standard libraries.
      double x = double(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
      float f = float(x);
      if (f >= 1.0f) // float rounding of values just below 1
        f = std::nextafter(1.0f, 0.0f);
      switch (t.dtype) {
      case DType::f32:
        std::memcpy(p, &f, 4);
        break;
      case DType::f64:
        std::memcpy(p, &x, 8);
        break;
      case DType::f16: {
        uint16_t h = floatToHalf(f);
        if (halfToFloat(h) >= 1.0f)
          h = 0x3bff; // largest half below 1
        std::memcpy(p, &h, 2);
        break;
      }
      case DType::bf16: {
        uint16_t b = floatToBf16(f);
        if (bf16ToFloat(b) >= 1.0f)
          b = 0x3f7f;
        std::memcpy(p, &b, 2);
        break;
      }
      case DType::f8e4m3fn:
        *p = nearestF8(f, f8e4m3fnToFloat);
        break;
      case DType::f8e5m2:
        *p = nearestF8(f, f8e5m2ToFloat);
        break;
      default:
        break;
      }
    } else if (t.dtype == DType::boolean) {
      *p = uint8_t(r >> 63);
    } else {
      uint64_t v = (r >> 32) % 10;
      std::memcpy(p, &v, elem); // little-endian: low bytes hold the value
    }
  }
}

std::string kiln::tools::byteSizeText(uint64_t bytes) {
  static const char *const kUnits[] = {"bytes", "KiB", "MiB", "GiB",
                                       "TiB",   "PiB", "EiB"};
  double v = double(bytes);
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0)
    return std::to_string(bytes) + " bytes";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", v, kUnits[unit]);
  return buf;
}

Status kiln::tools::checkHostBytes(const std::string &what, uint64_t bytes) {
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return Status::success(); // unknown: let the allocation say
  uint64_t memory = uint64_t(pages) * uint64_t(pageSize);
  if (bytes <= memory)
    return Status::success();
  return Status(StatusCode::OutOfMemory,
                what + " needs " + std::to_string(bytes) + " bytes (" +
                    byteSizeText(bytes) +
                    ") of host memory; this machine has " +
                    byteSizeText(memory));
}

bool kiln::tools::makeSeededInputs(
    const std::vector<runtime::TensorInfo> &infos, uint64_t seed,
    std::vector<Tensor> &out, std::string &error) {
  std::mt19937_64 rng(seed);
  out.assign(infos.size(), Tensor());
  for (size_t i = 0; i < infos.size(); ++i) {
    // (TensorInfo::isDynamic, without linking the runtime.)
    if (std::any_of(infos[i].shape.begin(), infos[i].shape.end(),
                    [](int64_t d) { return d < 0; })) {
      error = "input '" + infos[i].name + "' has a dynamic shape " +
              shapeToString(infos[i].shape) +
              "; random data needs a static shape";
      return false;
    }
    out[i].name = infos[i].name;
    out[i].dtype = infos[i].dtype;
    out[i].shape = infos[i].shape;
    std::optional<uint64_t> count = out[i].numElements();
    uint64_t elem = plan::dtypeSize(infos[i].dtype);
    std::string what = "input '" + infos[i].name + "' (" +
                       plan::dtypeName(infos[i].dtype) + " " +
                       shapeToString(infos[i].shape) + ")";
    if (!count || *count > UINT64_MAX / elem) {
      error = what + " has more elements than 64 bits count";
      return false;
    }
    if (Status s = checkHostBytes(what, *count * elem); !s) {
      error = s.message();
      return false;
    }
    try {
      if (!infos[i].fixedValue.empty())
        // Random data would be refused: the plan only runs this value.
        out[i].data = infos[i].fixedValue;
      else
        fillRandom(out[i], rng);
    } catch (const std::bad_alloc &) {
      error = what + ": cannot allocate " + byteSizeText(*count * elem) +
              " of host memory for its random data";
      return false;
    }
  }
  return true;
}

/// Integer elements as long double: exact for 64-bit values on x86 (and on
/// targets whose long double is binary128).
static long double integerAt(const Tensor &t, uint64_t i) {
  const uint8_t *p = t.data.data() + i * plan::dtypeSize(t.dtype);
  if (t.dtype == DType::i64) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return (long double)v;
  }
  if (t.dtype == DType::u64) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return (long double)v;
  }
  return (long double)elementAsDouble(t, i);
}

CompareResult kiln::tools::compareTensors(const Tensor &actual,
                                          const Tensor &expected, double rtol,
                                          double atol) {
  CompareResult r;
  if (actual.dtype != expected.dtype) {
    r.error = std::string("dtype ") + plan::dtypeName(actual.dtype) +
              " differs from the reference's " +
              plan::dtypeName(expected.dtype);
    return r;
  }
  if (actual.shape != expected.shape) {
    r.error = "shape " + shapeToString(actual.shape) +
              " differs from the reference's " + shapeToString(expected.shape);
    return r;
  }
  uint64_t n = expected.numElements().value_or(0);
  size_t elem = plan::dtypeSize(expected.dtype);
  if (actual.data.size() != n * elem || expected.data.size() != n * elem) {
    r.error = "data size does not match the shape";
    return r;
  }
  r.elements = n;
  bool floating = isFloat(expected.dtype);
  for (uint64_t i = 0; i < n; ++i) {
    long double a, b;
    if (floating) {
      a = elementAsDouble(actual, i);
      b = elementAsDouble(expected, i);
    } else {
      a = integerAt(actual, i);
      b = integerAt(expected, i);
    }
    bool match;
    if (std::isnan(a) || std::isnan(b)) {
      match = std::isnan(a) && std::isnan(b);
      if (!match)
        ++r.nanMismatches;
    } else if (a == b) {
      match = true; // also equal infinities
    } else if (std::isinf(a) || std::isinf(b)) {
      match = false; // the formula would admit any value against an infinity
      r.maxAbsErr = r.maxRelErr = std::numeric_limits<double>::infinity();
    } else {
      long double absErr = std::fabs(a - b);
      long double relErr = b != 0
                               ? absErr / std::fabs(b)
                               : std::numeric_limits<long double>::infinity();
      r.maxAbsErr = std::max(r.maxAbsErr, double(absErr));
      r.maxRelErr = std::max(r.maxRelErr, double(relErr));
      match = absErr <= (long double)atol + (long double)rtol * std::fabs(b);
    }
    if (!match) {
      if (r.firstMismatch < 0)
        r.firstMismatch = int64_t(i);
      ++r.mismatches;
    }
  }
  return r;
}
