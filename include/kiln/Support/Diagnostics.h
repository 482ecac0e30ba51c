//===- Diagnostics.h - how kiln tools print errors ----------------*- C++
//-*-===//
#ifndef KILN_SUPPORT_DIAGNOSTICS_H
#define KILN_SUPPORT_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln {

/// "model.onnx: node 'conv1'" for importer locations (a NameLoc over a
/// FileLineColLoc at line 0), "file:line:col" otherwise.
std::string formatLocation(mlir::Location loc);

/// Prints diagnostics as "error: <location>: <message>" (plus notes) to
/// stderr, or `os`, for as long as it lives.
class DiagnosticPrinter {
public:
  explicit DiagnosticPrinter(mlir::MLIRContext &context);
  DiagnosticPrinter(mlir::MLIRContext &context, llvm::raw_ostream &os);
  ~DiagnosticPrinter();
  unsigned numErrors() const { return errors; }

private:
  mlir::MLIRContext &context;
  mlir::DiagnosticEngine::HandlerID id;
  unsigned errors = 0;
};

} // namespace kiln

#endif // KILN_SUPPORT_DIAGNOSTICS_H
