//===- Tensors.h - ONNX types and TensorProtos to MLIR ------------*- C++
//-*-===//
#ifndef KILN_LIB_IMPORT_ONNX_TENSORS_H
#define KILN_LIB_IMPORT_ONNX_TENSORS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace kiln::onnx_import {

/// MLIR element type of an ONNX TensorProto data type; null if kiln does not
/// support it (strings, complex, 4-bit).
mlir::Type convertElementType(mlir::MLIRContext *context, int32_t dataType);

/// ONNX name of a data type ("FLOAT", "INT64", ...).
std::string dataTypeName(int32_t dataType);

/// Converts a TensorProto (raw, typed-field or external data) into an
/// elements attribute: `dense` when small, a `dense_resource` blob named
/// after the tensor otherwise. `baseDir` is the model's directory, for
/// external data. On failure returns null and sets `error`.
mlir::ElementsAttr convertTensor(mlir::MLIRContext *context,
                                 const onnx::TensorProto &tensor,
                                 llvm::StringRef baseDir, std::string &error,
                                 llvm::StringRef fallbackName = "");

/// Reads a tensor file into `tensor`: an ONNX TensorProto (`.pb`) or a NumPy
/// array (`.npy`, little-endian, C order; bool, ints, f16, f32, f64). On
/// failure returns false and sets `error`.
bool readTensorFile(llvm::StringRef path, onnx::TensorProto &tensor,
                    std::string &error);

/// Integer tensors (shapes, axes, indices) with at most this many elements
/// become `dense` attributes that folders read; float tensors only when
/// scalar-like (clip bounds, resize scales). Everything else is a blob.
constexpr int64_t kMaxDenseElements = 64;
constexpr int64_t kMaxDenseFloatElements = 8;

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_TENSORS_H
