//===- PlanAttrs.td - kiln_plan attributes ------------------*- tablegen -*-===//
#ifndef KILN_PLAN_ATTRS
#define KILN_PLAN_ATTRS

include "dialects/Plan/IR/PlanDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class KilnPlan_Attr<string name, string attrMnemonic>
    : AttrDef<KilnPlan_Dialect, name> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
}

def KilnPlan_IntoSliceAttr : KilnPlan_Attr<"IntoSlice", "into_slice"> {
  let summary = "a kernel result written into a slice of a bigger buffer";
  let description = [{
    On a kernel function (`kiln_plan.into_slices`, an array of these): its
    result `result` is written into the slice at `offsets` of a buffer of
    `shape` (an elided concat's result, see `kiln-elide-concats`). Once the
    results are out-params, `out_param` is the argument that becomes that
    whole buffer (-1 before; see `kiln-promote-results-to-out-params` and
    `kiln-place-slice-results`).
  }];
  let parameters = (ins "int64_t":$result,
                        "::mlir::DenseI64ArrayAttr":$shape,
                        "::mlir::DenseI64ArrayAttr":$offsets,
                        DefaultValuedParameter<"int64_t", "-1">:$out_param);
}

def KilnPlan_TensorMapAttr : KilnPlan_Attr<"TensorMap", "tensor_map"> {
  let summary = "a 128-byte TMA tensor map argument the runtime encodes";
  let description = [{
    On a kernel function argument (`kiln_plan.tensor_map`): the argument is
    a 128-byte TMA tensor map for the wgmma kernel, which the runtime encodes
    with `cuTensorMapEncodeTiled` over argument `source` at byte `offset`:
    elements of `element_type`, `dims` and `box` innermost first, byte
    `strides` of dims 1.., `swizzle` as CUtensorMapSwizzle (3 = 128 bytes).
  }];
  let parameters = (ins "int64_t":$source, "int64_t":$offset,
                        "::mlir::Type":$element_type,
                        "::mlir::DenseI64ArrayAttr":$dims,
                        "::mlir::DenseI64ArrayAttr":$strides,
                        "::mlir::DenseI64ArrayAttr":$box,
                        "int64_t":$swizzle);
}

def KilnPlan_LaunchAttr : KilnPlan_Attr<"Launch", "launch"> {
  let summary = "one GPU kernel launch of a kernel function";
  let description = [{
    `kernel` (in the merged `gpu.module`) is launched with `grid` and
    `block`, `shared_memory` bytes of dynamic shared memory, and `args`: the
    kernel function's arguments it takes, by number (operands, then results,
    then scratch and tensor maps).
  }];
  let parameters = (ins "::mlir::SymbolRefAttr":$kernel,
                        "::mlir::DenseI64ArrayAttr":$grid,
                        "::mlir::DenseI64ArrayAttr":$block,
                        "int64_t":$shared_memory,
                        "::mlir::DenseI64ArrayAttr":$args);
}

def KilnPlan_VariantAttr : KilnPlan_Attr<"Variant", "variant"> {
  let summary = "one tactic variant of a region";
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$function,
                        StringRefParameter<>:$tactics);
}

def KilnPlan_ChoiceAttr : KilnPlan_Attr<"Choice", "choice"> {
  let summary = "the tactic variants of a region, for kiln-tune";
  let description = [{
    On the kernel function a region compiled to (`kilnc --tactics all`):
    `variants` are the kernel functions of its tactic variants, the first the
    function itself (the cost model's choice), each with its tactics'
    names; `key` is the region's timing-cache key and `shapes` its GEMMs.
  }];
  let parameters = (ins StringRefParameter<>:$key,
                        StringRefParameter<>:$shapes,
                        "::mlir::ArrayAttr":$variants);
}

#endif // KILN_PLAN_ATTRS
