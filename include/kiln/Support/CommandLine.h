//===- CommandLine.h - llvm::cl helpers for kiln's MLIR tools ----*- C++
//-*-===//
#ifndef KILN_SUPPORT_COMMANDLINE_H
#define KILN_SUPPORT_COMMANDLINE_H

#include "llvm/Support/CommandLine.h"

#include <string>

namespace kiln {

/// llvm::cl's parser of an option with cl::values, whose error for an
/// unknown value lists the valid ones ("unknown value 'fp8': use fp32,
/// tf32, fp16 or bf16") instead of "Cannot find option named 'fp8'!".
template <typename T> class ListedValuesParser : public llvm::cl::parser<T> {
public:
  using llvm::cl::parser<T>::parser;

  bool parse(llvm::cl::Option &o, llvm::StringRef argName, llvm::StringRef arg,
             T &value) {
    llvm::StringRef text = o.hasArgStr() ? arg : argName;
    for (const auto &v : this->Values)
      if (v.Name == text) {
        value = v.V.getValue();
        return false;
      }
    std::string valid;
    for (size_t i = 0, e = this->Values.size(); i < e; ++i)
      valid += (i == 0       ? ""
                : i + 1 == e ? " or "
                             : ", ") +
               this->Values[i].Name.str();
    return o.error("unknown value '" + text + "': use " + valid);
  }
};

} // namespace kiln

#endif // KILN_SUPPORT_COMMANDLINE_H
