//===- InitAll.h - register every dialect and pass kiln tools use -*- C++
//-*-===//
#ifndef KILN_INITALL_H
#define KILN_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {

/// Registers kiln's dialects plus the upstream dialects, extensions and
/// translations its pipelines use.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers kiln's passes and pipelines plus all upstream passes.
void registerAllPasses();

} // namespace kiln

#endif // KILN_INITALL_H
