//===- Profiles.cpp - --profile: the input shapes of each profile ---------===//

#include "Profiles.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <set>

using namespace kiln;
using namespace kiln::driver;
using llvm::StringRef;

std::string kiln::driver::dimsText(const std::vector<int64_t> &dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "x" : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s;
}

std::string kiln::driver::inputShapesText(
    const std::map<std::string, std::vector<int64_t>> &shapes) {
  std::string text;
  for (const auto &[name, dims] : shapes)
    text += (text.empty() ? "" : "\n") + name + "=" + dimsText(dims);
  return text;
}

/// "1x3x224x224" -> dims; false on a bad or negative dim.
static bool parseDims(StringRef text, std::vector<int64_t> &dims) {
  dims.clear();
  if (text.empty())
    return false;
  llvm::SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef p : parts) {
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0)
      return false;
    dims.push_back(d);
  }
  return true;
}

bool kiln::driver::parseProfiles(
    const std::vector<std::string> &specs,
    const std::vector<onnx_import::GraphInputDecl> &inputs,
    const std::map<std::string, std::vector<int64_t>> &inputShapes,
    const std::map<std::string, std::string> &inputValues,
    std::vector<Profile> &profiles, std::string &error) {
  profiles.clear();
  std::string inputList;
  for (const auto &in : inputs)
    inputList += (inputList.empty() ? "'" : ", '") + in.name + "'";
  if (inputList.empty())
    inputList = "none";
  for (const std::string &spec : specs) {
    std::string flag = "--profile '" + spec + "'";
    Profile profile;
    profile.spec = spec;
    llvm::SmallVector<StringRef> entries;
    StringRef(spec).split(entries, ',');
    for (StringRef entry : entries) {
      auto [name, ranges] = entry.rsplit('=');
      if (name.empty() || ranges.empty()) {
        error = flag + ": expected NAME=DIMS or NAME=MIN:OPT:MAX (like "
                       "x=1x3x224x224 or x=1x3x224x224:8x3x224x224:32x3x224x224"
                       "), several inputs separated by commas";
        return false;
      }
      llvm::SmallVector<StringRef> parts;
      ranges.split(parts, ':');
      if (parts.size() != 1 && parts.size() != 3) {
        error = flag + ": '" + ranges.str() +
                "' has " + std::to_string(parts.size()) +
                " shapes; give one (DIMS) or three (MIN:OPT:MAX)";
        return false;
      }
      std::vector<std::vector<int64_t>> shapes(parts.size());
      for (size_t i = 0; i < parts.size(); ++i)
        if (!parseDims(parts[i], shapes[i])) {
          error = flag + ": bad shape '" + parts[i].str() +
                  "' (dims are non-negative integers joined by 'x')";
          return false;
        }
      for (size_t i = 1; i < shapes.size(); ++i)
        if (shapes[i].size() != shapes[0].size()) {
          error = flag + ": min, opt and max of '" + name.str() +
                  "' have different ranks";
          return false;
        }
      if (shapes.size() == 3) {
        for (size_t d = 0; d < shapes[0].size(); ++d)
          if (shapes[0][d] > shapes[1][d] || shapes[1][d] > shapes[2][d]) {
            error = flag + ": dim " + std::to_string(d) + " of '" +
                    name.str() + "' has min " + std::to_string(shapes[0][d]) +
                    ", opt " + std::to_string(shapes[1][d]) + ", max " +
                    std::to_string(shapes[2][d]) +
                    "; expected min <= opt <= max";
            return false;
          }
        if (shapes[0] != shapes[2]) {
          error = flag + ": '" + name.str() + "' ranges from " +
                  dimsText(shapes[0]) + " to " + dimsText(shapes[2]) +
                  ", but kiln compiles each profile's kernels for one "
                  "shape so far (shape-generic kernels are not there yet): "
                  "give each shape to run as a profile of its own, e.g. "
                  "--profile " + name.str() + "=" + dimsText(shapes[0]) +
                  " --profile " + name.str() + "=" + dimsText(shapes[2]);
          return false;
        }
      }
      const onnx_import::GraphInputDecl *decl = nullptr;
      for (const auto &in : inputs)
        if (in.name == name)
          decl = &in;
      if (!decl) {
        error = flag + ": the model has no graph input named '" + name.str() +
                "' (its inputs: " + inputList + ")";
        return false;
      }
      if (inputShapes.count(decl->name) || inputValues.count(decl->name)) {
        error = flag + ": input '" + decl->name + "' is fixed by --" +
                (inputShapes.count(decl->name) ? "input-shape" : "input-value") +
                "; give its shape in one place only";
        return false;
      }
      if (profile.shapes.count(decl->name)) {
        error = flag + ": input '" + decl->name + "' is given twice";
        return false;
      }
      const std::vector<int64_t> &dims = shapes[shapes.size() / 2]; // opt
      if (decl->hasShape) {
        if (dims.size() != decl->dims.size()) {
          error = flag + ": '" + decl->name + "' has rank " +
                  std::to_string(decl->dims.size()) + " in the model (" +
                  dimsText(decl->dims) + "), the profile gives rank " +
                  std::to_string(dims.size());
          return false;
        }
        for (size_t d = 0; d < dims.size(); ++d)
          if (decl->dims[d] >= 0 && decl->dims[d] != dims[d]) {
            error = flag + ": dim " + std::to_string(d) + " of '" +
                    decl->name + "' is " + std::to_string(decl->dims[d]) +
                    " in the model, the profile says " +
                    std::to_string(dims[d]);
            return false;
          }
      }
      profile.shapes[decl->name] = dims;
    }
    // Every dynamic dim of every input is given, and dims sharing an ONNX
    // dim_param agree within the profile.
    std::map<std::string, std::pair<int64_t, std::string>> symbols;
    for (const auto &in : inputs) {
      if (inputShapes.count(in.name) || inputValues.count(in.name))
        continue;
      auto given = profile.shapes.find(in.name);
      for (size_t d = 0; d < in.dims.size(); ++d) {
        if (in.dims[d] >= 0)
          continue;
        if (given == profile.shapes.end()) {
          error = flag + ": input '" + in.name + "' (" + dimsText(in.dims) +
                  ") has a dynamic dim " + std::to_string(d) +
                  (in.dimParams[d].empty() ? ""
                                           : " ('" + in.dimParams[d] + "')") +
                  " that the profile does not give: add " + in.name + "=" +
                  dimsText(in.dims) +
                  " with each ? replaced, to every --profile";
          return false;
        }
        const std::string &symbol = in.dimParams[d];
        if (symbol.empty())
          continue;
        int64_t value = given->second[d];
        std::string where = "'" + in.name + "' dim " + std::to_string(d);
        auto [it, inserted] = symbols.try_emplace(symbol, value, where);
        if (!inserted && it->second.first != value) {
          error = flag + ": " + where + " and " + it->second.second +
                  " are both '" + symbol + "' in the model, but the profile "
                  "gives " + std::to_string(value) + " and " +
                  std::to_string(it->second.first);
          return false;
        }
      }
      if (!in.hasShape && given == profile.shapes.end()) {
        error = flag + ": input '" + in.name +
                "' has no shape in the model: every profile must give it";
        return false;
      }
    }
    for (const Profile &p : profiles)
      if (p.shapes == profile.shapes) {
        error = flag + " repeats the shapes of --profile '" + p.spec + "'";
        return false;
      }
    profiles.push_back(std::move(profile));
  }
  return true;
}
