//===- GraphDialect.td - kiln graph dialect definition ------*- tablegen -*-===//
//
// The kiln graph dialect: tensor-level ops close to ONNX semantics, normalized.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_DIALECT
#define KILN_GRAPH_DIALECT

include "mlir/IR/OpBase.td"

def Graph_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln::graph";
  let summary = "kiln's tensor-level graph dialect";
  let description = [{
    The graph dialect holds imported neural-network models. Its ops are close to
    ONNX semantics but normalized: one op per concept (variadic `Sum`/`Max`/`Min`
    and `Mean` become chains of binary ops, `Identity` and inference-mode
    `Dropout` disappear, `GlobalAveragePool` is a `kiln.reduce_mean`), attributes
    made explicit (no `auto_pad`; `Clip` bounds, `Squeeze`/`Unsqueeze`/`Reduce*`
    axes and `Split` sizes are attributes whatever the opset), and operand
    element types unified where ONNX allows mixing.

    Every value is a ranked tensor; dimensions may be dynamic (`?`). Weights are
    `kiln.constant` ops holding `dense_resource` blobs. Integer element types
    are signless for signed ONNX types (`i8`..`i64`), `ui8`..`ui64` for unsigned
    ones, and `i1` for `bool`.
  }];
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

#endif // KILN_GRAPH_DIALECT
