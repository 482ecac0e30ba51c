//===- Diagnostics.cpp - how kiln tools print errors ----------------------===//
#include "kiln/Support/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string kiln::formatLocation(Location loc) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (auto file = dyn_cast<FileLineColLoc>(name.getChildLoc())) {
      os << file.getFilename().getValue() << ": node '"
         << name.getName().getValue() << "'";
      return out;
    }
    os << "'" << name.getName().getValue() << "'";
    return out;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue();
    if (file.getLine())
      os << ":" << file.getLine() << ":" << file.getColumn();
    return out;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front());
  if (isa<UnknownLoc>(loc))
    return "<unknown>";
  loc.print(os);
  return out;
}

static StringRef severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

kiln::DiagnosticPrinter::DiagnosticPrinter(MLIRContext &context)
    : DiagnosticPrinter(context, llvm::errs()) {}

kiln::DiagnosticPrinter::DiagnosticPrinter(MLIRContext &context,
                                           llvm::raw_ostream &os)
    : context(context) {
  id = context.getDiagEngine().registerHandler([this, &os](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    os << severityName(diag.getSeverity()) << ": "
       << formatLocation(diag.getLocation()) << ": " << diag.str() << "\n";
    for (Diagnostic &note : diag.getNotes()) {
      // MLIR attaches the whole op an error was emitted on (for kilnc's
      // module-level errors: the model, weights and all): noise to a user.
      if (StringRef(note.str()).starts_with("see current operation"))
        continue;
      os << "  note: " << formatLocation(note.getLocation()) << ": "
         << note.str() << "\n";
    }
    os.flush();
    return success();
  });
}

kiln::DiagnosticPrinter::~DiagnosticPrinter() {
  context.getDiagEngine().eraseHandler(id);
}
