//===- Profiles.h - --profile: the input shapes of each profile -----------===//
//
// `--profile NAME=DIMS[:DIMS:DIMS][,NAME=...]` names one optimization profile
// (repeat the flag for more): the shapes its dynamic inputs take. The specs
// are checked against the model's declared inputs before anything is built:
// names, ranks, the model's fixed dims, ONNX dim_params shared between inputs
// (one symbol, one value per profile), and every dynamic dim covered.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_PROFILES_H
#define KILN_LIB_DRIVER_PROFILES_H

#include "kiln/Import/ONNX.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::driver {

/// One profile: input name -> its shape there, for the inputs the profile
/// gives (others keep the model's or --input-shape's static shape).
struct Profile {
  std::map<std::string, std::vector<int64_t>> shapes;
  /// "x=1x3x224x224,mask=1x128" as the flag gave it (for messages and the
  /// plan's provenance).
  std::string spec;
};

/// Parses and checks `specs` (the --profile values) against the model's
/// inputs. `inputShapes` and `inputValues` are the --input-shape and
/// --input-value inputs, which profiles may not give. False with `error` set
/// (naming the flag, the input and the dim) on any problem.
bool parseProfiles(const std::vector<std::string> &specs,
                   const std::vector<onnx_import::GraphInputDecl> &inputs,
                   const std::map<std::string, std::vector<int64_t>> &inputShapes,
                   const std::map<std::string, std::string> &inputValues,
                   std::vector<Profile> &profiles, std::string &error);

/// "1x3x224x224" ("?" for a dynamic dim).
std::string dimsText(const std::vector<int64_t> &dims);

/// "x=1x3x224x224\nmask=1x128": the plan's options.input_shapes.
std::string
inputShapesText(const std::map<std::string, std::vector<int64_t>> &shapes);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_PROFILES_H
