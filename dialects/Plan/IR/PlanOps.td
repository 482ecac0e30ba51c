//===- PlanOps.td - kiln_plan operations ---------------------*- tablegen -*-===//
#ifndef KILN_PLAN_OPS
#define KILN_PLAN_OPS

include "dialects/Plan/IR/PlanAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/OpAsmInterface.td"

class KilnPlan_Op<string mnemonic, list<Trait> traits = []>
    : Op<KilnPlan_Dialect, mnemonic, traits>;

class KilnPlan_KernelsOp<string mnemonic>
    : KilnPlan_Op<mnemonic, [IsolatedFromAbove, SingleBlock, NoTerminator,
                             NoRegionArguments,
                             DeclareOpInterfaceMethods<OpAsmOpInterface,
                                                       ["getDefaultDialect"]>]> {
  let regions = (region SizedRegion<1>:$body);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The module the target's codegen pipeline runs on.
    ::mlir::ModuleOp getModule();
  }];
}

def KilnPlan_HostKernelsOp : KilnPlan_KernelsOp<"host_kernels"> {
  let summary = "the kernel functions of a plan's host target";
  let description = [{
    Holds one `builtin.module` with the plan's kernel functions for the host
    target; its `kiln_plan.kernels` lists them in the order `@main` calls
    them (the plan's step order). The host pipeline lowers the module to LLVM
    IR and replaces its body with the linked ELF shared object (module
    attribute `kiln_plan.shared_object`).

    ```mlir
    kiln_plan.host_kernels {
      module attributes {kiln_plan.kernels = [@kernel_0, @kernel_1]} {
        func.func private @kernel_0(...) ...
      }
    }
    ```
  }];
  let assemblyFormat = "attr-dict-with-keyword $body";
}

def KilnPlan_GpuKernelsOp : KilnPlan_KernelsOp<"gpu_kernels"> {
  let summary = "the kernel functions of a plan's GPU targets";
  let description = [{
    Holds one `builtin.module` with the plan's kernel functions for the GPU
    `targets` (`"sm_90a"`, ...), which all get the same kernels; its
    `kiln_plan.kernels` lists them in the order `@main` calls them. The GPU
    pipeline lowers the module to a `gpu.binary @kiln_kernels` (PTX and a
    cubin per target) and one `kiln_plan.kernel` record per kernel function.
  }];
  let arguments = (ins StrArrayAttr:$targets);
  let assemblyFormat = "`targets` `(` $targets `)` attr-dict-with-keyword $body";
}

def KilnPlan_KernelOp : KilnPlan_Op<"kernel", [Symbol]> {
  let summary = "what running a GPU kernel function takes";
  let description = [{
    The host side of a GPU kernel function, read back after outlining
    (`kiln-gpu-record-launches`): its `launches` in order, the argument that
    is its scratch memory (`scratch_arg`, -1: none) and how many bytes that
    is, its TMA tensor map arguments (`tensor_map_args[i]` holds
    `tensor_maps[i]`), the number of arguments it has, and, for a region
    built in several tactic variants, their `choice`.

    ```mlir
    kiln_plan.kernel @kernel_3 {num_args = 3 : i64,
        launches = [#kiln_plan.launch<kernel = @kiln_kernels::@kernel_3_0,
                    grid = array<i64: 49, 1, 1>, block = array<i64: 256, 1, 1>,
                    shared_memory = 0, args = array<i64: 0, 1, 2>>],
        scratch_arg = -1 : i64, scratch_bytes = 0 : i64,
        tensor_map_args = array<i64>, tensor_maps = []}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$num_args,
                       TypedArrayAttrBase<KilnPlan_LaunchAttr, "launches">:$launches,
                       I64Attr:$scratch_arg, I64Attr:$scratch_bytes,
                       DenseI64ArrayAttr:$tensor_map_args,
                       TypedArrayAttrBase<KilnPlan_TensorMapAttr, "tensor maps">:$tensor_maps,
                       OptionalAttr<KilnPlan_ChoiceAttr>:$choice);
  let assemblyFormat = "$sym_name attr-dict";
  let hasVerifier = 1;
}

#endif // KILN_PLAN_OPS
