//===- PlanHeader.h - Fixed 64-byte header in front of every plan file ----===//
//
// A plan file is `PlanHeader | FlatBuffer (Plan.fbs) | zero padding to a
// 64-byte boundary | weights`. The header is fixed so that any kiln version
// can say what a plan is (format version, compiler version, targets) before
// parsing the FlatBuffer, and so that corruption is caught by one checksum.
// All integers are little-endian; see runtime/PLAN_FORMAT.md.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PLAN_PLANHEADER_H
#define KILN_PLAN_PLANHEADER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::plan {

/// Bytes 0..7 of every plan file.
inline constexpr char kPlanMagic[8] = {'K', 'I', 'L', 'N', 'P', 'L', 'A', 'N'};
/// The format version this library writes and reads. v4 gives every step
/// argument the byte extent its kernel may touch (a changed `Arg` struct, so
/// older plans cannot be read as v4) and records the plan's provenance.
inline constexpr uint32_t kPlanFormatVersion = 4;
/// The oldest format version this library reads: v1 to v3 plans have no
/// argument extents, so nothing could bound their kernels' accesses.
inline constexpr uint32_t kOldestPlanFormatVersion = 4;
inline constexpr uint32_t kPlanHeaderSize = 64;
/// Alignment of the weights section, relative to the start of the file.
inline constexpr uint64_t kWeightsAlignment = 64;

/// The header as laid out on disk (little-endian, no padding). Use
/// encodeHeader/decodeHeader rather than memcpy so that byte order is explicit.
struct PlanHeader {
  char magic[8];             ///<  0: "KILNPLAN"
  uint32_t formatVersion;    ///<  8: 4 (kPlanFormatVersion)
  uint32_t headerSize;       ///< 12: 64; the FlatBuffer starts here
  char compilerVersion[16];  ///< 16: NUL-padded, at most 15 characters
  uint64_t targetMask;       ///< 32: OR of targetBit() over the plan's targets
  uint32_t minDriverVersion; ///< 40: CUDA driver version, 0 = none
  uint32_t flatbufferSize;   ///< 44: bytes of the FlatBuffer (< 2^31)
  uint64_t payloadSize;      ///< 48: bytes after the header (file size - 64)
  uint64_t checksum;         ///< 56: see computePlanChecksum
};
static_assert(sizeof(PlanHeader) == kPlanHeaderSize, "header must be 64 bytes");

/// Writes `header` as 64 little-endian bytes.
void encodeHeader(const PlanHeader &header, uint8_t out[kPlanHeaderSize]);
/// Reads 64 bytes; does not validate anything.
PlanHeader decodeHeader(const uint8_t in[kPlanHeaderSize]);

/// Offset of the weights section from the start of the file.
inline uint64_t weightsSectionOffset(uint32_t headerSize,
                                     uint32_t flatbufferSize) {
  uint64_t end = uint64_t(headerSize) + flatbufferSize;
  return (end + kWeightsAlignment - 1) / kWeightsAlignment * kWeightsAlignment;
}

/// Bit of a known target in PlanHeader::targetMask; 0 for targets this table
/// does not know (they are still listed in the payload). Bits are part of
/// the format: append only.
uint64_t targetBit(std::string_view target);
/// Set in targetMask when the plan lists a target without a bit of its own.
inline constexpr uint64_t kOtherTargetBit = uint64_t(1) << 63;
/// OR of targetBit() over `targets` (kOtherTargetBit for unknown ones).
uint64_t targetMask(const std::vector<std::string> &targets);
/// Names of the bits set in `mask` ("host,sm_90a"), for messages.
std::string targetMaskToString(uint64_t mask);

/// XXH64 (Yann Collet's xxHash, 64-bit variant), streaming.
class Xxh64 {
public:
  explicit Xxh64(uint64_t seed = 0);
  void update(const void *data, size_t size);
  uint64_t digest() const;

private:
  uint64_t acc_[4];
  uint64_t seed_;
  uint64_t total_ = 0;
  uint8_t buffer_[32];
  size_t buffered_ = 0;
};

/// One-shot XXH64.
uint64_t xxh64(const void *data, size_t size, uint64_t seed = 0);

/// The plan checksum: XXH64 of the payload, seeded with the XXH64 (seed 0) of
/// header bytes 0..55 (everything but the checksum itself), so that a change
/// anywhere in the file except the checksum field is caught.
uint64_t computePlanChecksum(const uint8_t header[kPlanHeaderSize],
                             const void *payload, size_t payloadSize);

} // namespace kiln::plan

#endif // KILN_PLAN_PLANHEADER_H
