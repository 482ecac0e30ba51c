//===- PlanDialect.td - kiln_plan: what a plan is made of ---*- tablegen -*-===//
//
// The kiln_plan dialect holds what codegen produces for a plan and what plan
// export reads: the per-target kernel containers, and typed records of
// launches, TMA tensor maps, slices written in place and tactic choices.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PLAN_DIALECT
#define KILN_PLAN_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def KilnPlan_Dialect : Dialect {
  let name = "kiln_plan";
  let cppNamespace = "::kiln::planir";
  let summary = "kiln's codegen results on their way into a plan";
  let description = [{
    After kernel formation, `kiln-outline-target-kernels` copies the kernel
    functions of `@main` into one container per kind of target:
    `kiln_plan.host_kernels` (lowered to an ELF shared object) and
    `kiln_plan.gpu_kernels` (lowered to PTX and cubins for its GPU targets).
    Each holds a `builtin.module` on which the host or GPU codegen pipeline
    runs. The GPU pipeline reads each kernel function's launches back into
    `kiln_plan.kernel` records (grid, block, shared memory, arguments, TMA
    tensor maps, scratch memory, tactic choices); `kiln-export-plan` turns
    `@main`, the containers and the records into a plan file.

    The attributes are the typed form of facts passes hand to each other: a
    result written into a slice of another buffer (`#kiln_plan.into_slice`),
    a TMA tensor map argument (`#kiln_plan.tensor_map`), a launch
    (`#kiln_plan.launch`), and a region's tactic variants
    (`#kiln_plan.choice`).
  }];
  let useDefaultAttributePrinterParser = 1;
}

#endif // KILN_PLAN_DIALECT
