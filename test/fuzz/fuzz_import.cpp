//===- fuzz_import.cpp - libFuzzer target for the ONNX importer -----------===//
//
// Feeds arbitrary bytes to kiln::onnx_import::importONNXBuffer. Each input
// gets a fresh single-threaded MLIRContext whose diagnostics are swallowed;
// a successfully imported module is also printed (to a null stream) so the
// kiln dialect's printers and verifiers run on importer output.
//
// The model "path" lies in a directory that does not exist, so external-data
// lookups can never reach real files.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/ONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context;
  context.disableMultithreading();
  mlir::ScopedDiagnosticHandler swallow(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });

  kiln::onnx_import::ImportOptions options; // defaults: shape inference, verify
  llvm::StringRef buffer(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      kiln::onnx_import::importONNXBuffer(
          context, buffer, "/nonexistent-kiln-fuzz/fuzz.onnx", options);
  if (module) {
    mlir::OpPrintingFlags flags;
    flags.elideLargeElementsAttrs(16);
    module->print(llvm::nulls(), flags);
  }
  return 0;
}
