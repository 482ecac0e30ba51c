//===- Passes.td - kiln codegen passes ---------------------*- tablegen -*-===//
//
// Passes that take kernel functions to host and GPU code and the plan, in the
// order kiln-compile runs them (lib/Pipelines): outlining per target; the
// lowering both targets share; the host tail; the GPU tactics, mapping and
// NVVM steps; plan export last.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CODEGEN_PASSES
#define KILN_CODEGEN_PASSES

include "mlir/Pass/PassBase.td"

def OutlineTargetKernelsPass : Pass<"kiln-outline-target-kernels", "mlir::ModuleOp"> {
  let summary = "Copy the kernel functions into one container per kind of target";
  let description = [{
    After the region passes: the kernel functions `@main` calls (all but the
    concats `kiln-elide-concats` elided) are copied, in module order, into a
    `kiln_plan.host_kernels` container when `targets` has `host` and a
    `kiln_plan.gpu_kernels` container for the GPU targets, each holding a
    `builtin.module` whose `kiln_plan.kernels` lists them in call order.
    The top-level kernel functions become declarations, so `@main` still
    verifies and plan export reads the steps from it. The host and GPU
    pipelines then run on the containers' modules.

    ```mlir
    func.func @main(...) { %0 = call @kernel_0(%arg0) ... }
    func.func private @kernel_0(...) { ... }
    // becomes
    func.func @main(...) { %0 = call @kernel_0(%arg0) ... }
    func.func private @kernel_0(...)
    kiln_plan.gpu_kernels targets(["sm_90a"]) {
      module attributes {kiln_plan.kernels = [@kernel_0]} {
        func.func private @kernel_0(...) { ... }
      }
    }
    ```
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "Targets of the plan: host and GPU architectures (sm_80, ...)">,
  ];
  let dependentDialects = ["kiln::planir::KilnPlanDialect"];
}

def HostDropArgMarksPass : Pass<"kiln-host-drop-arg-marks", "mlir::ModuleOp"> {
  let summary = "Drop the kiln.* argument marks the host code does not use";
  let description = [{
    Kernel function arguments carry marks for the GPU tactics
    (`kiln.tf32_rounded`); LLVM IR translation of the host kernels would warn
    about each ("Unhandled parameter attribute"). This pass removes every
    argument attribute whose name starts with `kiln.` or `kiln_plan.`.
  }];
}

def ConvertGraphToLinalgPass : Pass<"kiln-convert-graph-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower kiln graph ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Lowers every op of the kiln graph dialect to destination-passing-style
    tensor code: named linalg ops where one exists (convolutions, matmuls,
    pooling, transposes, fills, reductions), `linalg.generic` with
    arith/math bodies otherwise, and `tensor` ops for data movement
    (pad, slices, reshapes, concat). Static and dynamic (`?`) dims are both
    handled; dynamic sizes come from `tensor.dim` and index arithmetic.

    Element types: kiln's unsigned integers (`ui8`..`ui64`) become signless
    (arith and linalg take signless integers only), function signatures
    included; the signedness of each original op selects the arith op
    (`divsi`/`divui`, `cmpi slt`/`ult`, `extsi`/`extui`, ...).

    Assumptions: a dynamic dim is never broadcast at run time (only static
    size-1 dims broadcast), as in the graph dialect's own shape inference.

    Not supported yet (the pass emits "is not supported by
    kiln-convert-graph-to-linalg yet" on the op, with the reason, and fails):
    - `kiln.quantize_linear` / `kiln.dequantize_linear` with float8
      quantized values;
    - `kiln.conv` / pooling with `auto_pad` kept as "SAME_UPPER"/"SAME_LOWER"
      (padding known only at run time), and convolutions whose filter has
      dynamic spatial dims;
    - `kiln.resize` with mode "linear" or "cubic" on integer tensors;
    - `kiln.slice` whose `axes` operand is not a constant;
    - `kiln.reduce_l2`, `kiln.reduce_log_sum`, `kiln.reduce_log_sum_exp` on
      integer tensors;
    - `kiln.cast` from or to element types other than integers, i1, f16,
      bf16, f32 and f64.

    `kiln.cumsum` and `kiln.topk` have no linalg form; they lower to generics
    that are quadratic in the scanned/sorted dim (correct, meant to be
    replaced by kernel generators). Statistics of f16/bf16 reductions,
    softmax and normalizations accumulate in f32. The integer contractions
    (`kiln.matmul_integer`, `kiln.conv_integer`, `kiln.qlinear_matmul`,
    `kiln.qlinear_conv`) shift their 8-bit operands by the zero points into
    i32 and reuse the matmul/conv lowering on i32; the QLinear ops and
    `kiln.quantize_linear` round half to even in f32 and saturate.

    Example:
    ```mlir
    %0 = kiln.relu %x : tensor<?x8xf32>
    // becomes
    %d = tensor.dim %x, %c0 : tensor<?x8xf32>
    %e = tensor.empty(%d) : tensor<?x8xf32>
    %0 = linalg.generic {...} ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %m = arith.maximumf %in, %cst : f32
        linalg.yield %m : f32
    } -> tensor<?x8xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def LinalgGeneralizeContractionsPass : Pass<"kiln-linalg-generalize-contractions", "mlir::func::FuncOp"> {
  let summary = "Generalize transposes and matmuls so that fusion composes their maps";
  let description = [{
    Rewrites `linalg.transpose`, `linalg.matmul` and `linalg.batch_matmul`
    as `linalg.generic` (fills, convolutions and other named ops stay).
    `linalg-fuse-elementwise-ops` fuses only generics: after this pass a
    transpose that feeds a contraction in the same kernel (with the
    reshapes around it, folded by expansion) becomes the contraction's
    operand indexing map, and the transpose's copy disappears; the
    tensor-core tactics read such generics like the named ops. In a
    function with a contraction, generic operands that broadcast a unit dim
    (map result `0`) are read through a `tensor.collapse_shape` that drops
    it: the fusion's reshape propagation needs projected permutations, and
    an attention mask [B*H, 1, S] would otherwise stop the scores'
    elementwise ops from joining the contraction's epilogue. Works on
    tensors (the unit-dim rewrite) and memrefs (the generalization).

    ```mlir
    %t = linalg.transpose ins(%k : tensor<128x24x64xf16>) outs(%e : tensor<24x64x128xf16>) permutation = [1, 2, 0]
    %r = linalg.batch_matmul ins(%q, %t : ...) outs(%acc : tensor<24x128x128xf32>)
    // becomes two linalg.generic ops; after linalg-fuse-elementwise-ops one:
    %r = linalg.generic {indexing_maps = [(b,m,n,k) -> (b,m,k), (b,m,n,k) -> (n,b,k), (b,m,n,k) -> (b,m,n)], ...}
           ins(%q, %k : ...) outs(%acc : ...)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def GpuRoundTf32ResultsPass : Pass<"kiln-gpu-round-tf32-results", "mlir::func::FuncOp"> {
  let summary = "Round the results a kernel function must store as tf32";
  let description = [{
    On tensors, after the lowering to linalg: the results listed in
    `kiln_plan.round_tf32_results` (see `kiln-round-tf32-at-producers`) go
    through an elementwise `linalg.generic` that rounds f32 to tf32 (10
    mantissa bits, to nearest, ties away) before they are returned;
    `linalg-fuse-elementwise-ops` then merges it into the kernel's
    epilogue.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numRounded", "rounded-results", "Results rounded to tf32">,
  ];
}

def PromoteResultsToOutParamsPass : Pass<"kiln-promote-results-to-out-params", "mlir::ModuleOp"> {
  let summary = "Return bufferized kernel results through out-params";
  let description = [{
    After one-shot bufferization: kernel functions return their results
    through out-params (the plan hands every kernel its output buffers).
    Fresh buffers become the out-params themselves (MLIR's
    promoteBufferResultsToOutParams with hoisted static allocations). Before
    that, a buffer returned twice is copied for each repeat (MLIR 22 crashes
    hoisting it). After it, a result that is a reshaped view of a fresh
    buffer makes that buffer the inverse view of its out-param, so that its
    writers write the result in place instead of a copy. Each
    `#kiln_plan.into_slice` of the function gets the out-param its result
    became (`out_param`).
  }];
  let dependentDialects = ["kiln::planir::KilnPlanDialect",
                           "mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numRepeated", "repeated-results", "Results returned twice, copied">,
    Statistic<"numForwarded", "forwarded-views",
              "Reshaped results written in place through an inverse view">,
  ];
}

def PlaceSliceResultsPass : Pass<"kiln-place-slice-results", "mlir::ModuleOp"> {
  let summary = "Write kernel results into their slices of a bigger buffer";
  let description = [{
    A kernel function result placed in a slice of another buffer
    (`kiln_plan.into_slices`, an elided concat's input) after
    `kiln-promote-results-to-out-params`: its out-param becomes the whole
    buffer and the kernel writes the result through a subview at the
    slice's offsets (the views of the result retyped as strided). Where a
    view cannot become strided, the kernel computes the result into a buffer
    of its own and copies it into the slice at the end.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numInPlace", "in-place", "Results written into their slice in place">,
    Statistic<"numCopied", "copied", "Results copied into their slice">,
  ];
}

def LowerMemrefCopiesPass : Pass<"kiln-lower-memref-copies", "mlir::ModuleOp"> {
  let summary = "Turn memref.copy into linalg.copy";
  let description = [{
    A strided `memref.copy` would lower to a call into MLIR's runner
    library, which plans cannot depend on; as `linalg.copy` it becomes loops
    (host) or a kernel (GPU) like any other op.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def HostAbiWrappersPass : Pass<"kiln-host-abi-wrappers", "mlir::ModuleOp"> {
  let summary = "Add the plan's calling convention to the host kernels";
  let description = [{
    On the LLVM dialect (bare-pointer memrefs): for each kernel function in
    `kiln_plan.kernels` (call order), `llvm.func @kiln_NAME(ptr buffers,
    ptr dims)` loads one pointer per argument of NAME from `buffers` and
    calls it; NAME becomes internal. A kernel over empty tensors, which the
    bare-pointer lowering left a `func.func` that only returns, becomes an
    `llvm.func` of pointers that returns. The host runtime calls the
    wrappers through dlsym.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def HostEmitObjectPass : Pass<"kiln-host-emit-object", "mlir::ModuleOp"> {
  let summary = "Compile the host kernels to an object file";
  let description = [{
    Translates the module (LLVM dialect) to LLVM IR, optimizes it at O3 and
    emits an ELF object for the host architecture with a portable CPU
    (`cpu`, default x86-64-v2 on x86-64, generic elsewhere, so that plans run
    on other machines of the architecture). The object replaces the
    module's body, as the module attribute `kiln_plan.object_file`.
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "LLVM CPU to compile for (empty: a portable baseline)">,
  ];
  let statistics = [
    Statistic<"numObjectBytes", "object-bytes", "Bytes of the object file">,
  ];
}

def HostLinkPass : Pass<"kiln-host-link", "mlir::ModuleOp"> {
  let summary = "Link the host object file into a shared object";
  let description = [{
    Links `kiln_plan.object_file` with `ld.lld -shared` (from PATH or
    /usr/lib/llvm-22/bin) into the ELF shared object the host runtime loads
    from memory; it replaces the object as `kiln_plan.shared_object`.
  }];
  let statistics = [
    Statistic<"numBytes", "shared-object-bytes", "Bytes of the shared object">,
  ];
}

def ApplyTimingCachePass : Pass<"kiln-apply-timing-cache", "mlir::ModuleOp"> {
  let summary = "Give regions the tactic a kiln-tune timing cache measured fastest";
  let description = [{
    Before the tensor-core tactics, on bufferized kernel functions: each
    function with a conv or contraction for `kiln-gpu-tensor-core` has a
    timing-cache key (a hash of its IR under a fixed name and of the
    constants it reads, so the same region gets the same key in any model).
    Where the cache at `path` (written by `kiln-tune --timing-cache`) has an
    entry of that key for `target`, the function gets `kiln.tactic_force`
    with its best tactic. A file that is not a kiln timing cache is an error.
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"\"\"",
           "The timing cache (JSON) to read">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "The GPU target whose entries apply (the plan's first)">,
  ];
  let statistics = [
    Statistic<"numEntries", "entries", "Entries of the cache for the target">,
    Statistic<"numHits", "hits", "Regions that took the cache's tactic">,
  ];
}

def CloneTacticVariantsPass : Pass<"kiln-clone-tactic-variants", "mlir::ModuleOp"> {
  let summary = "Clone each region once per further tactic candidate";
  let description = [{
    `kilnc --tactics all`: each kernel function with a conv or contraction
    for `kiln-gpu-tensor-core` that the timing cache did not decide gets
    `candidates - 1` clones `NAME__vK` (`kiln.tactic_variant = K`: run the
    K-th candidate) and `#kiln_plan.choice` listing them with the region's
    timing-cache key. `kiln-finalize-tactic-variants` later drops the clones
    that do not exist or repeat another.
  }];
  let options = [
    Option<"candidates", "candidates", "int64_t", /*default=*/"4",
           "The most variants a region gets (2 to 8)">,
  ];
  let dependentDialects = ["kiln::planir::KilnPlanDialect"];
}

def GpuTensorCorePass : Pass<"kiln-gpu-tensor-core", "mlir::func::FuncOp"> {
  let summary = "Run f16/bf16 convolutions and contractions on tensor cores (mma.sync tactics)";
  let description = [{
    On memrefs, before the generic loop mapping: each
    `linalg.conv_2d_nchw_fchw` (implicit GEMM: M = N*OH*OW pixels, N =
    output channels, K = C*KH*KW taps, read straight from the NCHW input),
    and every linalg contraction (matmul, batch_matmul, and generics with a
    mul-add body whose maps are projections: transposed and broadcast
    operands, several batch/M/N/K dims linearized) with f16 or bf16 operands
    and an f32 accumulator, all statically shaped, becomes a `gpu.launch` of a
    generated tensor-core kernel (codegen/Tactics/TensorCoreGemm.h, MmaGemm.cpp): CTA tiles of
    32x32-warp tiles, K in steps of 32 through shared memory (operands
    whose slices move 16 bytes at a time: a ring of `mma-stages` stages in
    dynamic shared memory filled by `nvgpu.device_async_copy`, stages - 1
    steps ahead; others: registers and two buffers), `nvgpu.ldmatrix`
    fragments and `mma.sync` m16n8k16 with f32
    accumulators (`nvgpu.mma.sync` for f16; `nvvm.mma.sync` for bf16, which
    MLIR 22's nvgpu lowering cannot type). The tile (and split-K, whose partial sums a second kernel
    adds in a fixed order) comes from a cost model of `num-sms`
    multiprocessors. Epilogue fusion: a zero `linalg.fill` of the output
    just before the op is dropped, and the elementwise `linalg.generic` just
    after it that is the only reader of the f32 result (rounding, bias,
    activation, residual add; read directly, through reshapes or through a
    permutation, as a transpose after a gemm; later ops may reuse the dead
    buffer) is evaluated in the kernel's epilogue, so the f32 buffer
    disappears. A grouped channels-last conv
    (`linalg.conv_2d_nhwgc_gfhwc`) is G batched implicit GEMMs (batch =
    group, K = taps x the group's channels), its zero padding folded into
    the loads like the others. Other ops (depthwise convs, f32 unless
    `tf32`) are left to the generic path.

    With `tf32`, f32 convs and contractions take the same kernels as tf32:
    mma.sync m16n8k8 (fragments rounded to tf32 in registers; rows staged
    [outer][k] read with ldmatrix of 32-bit elements, [k][outer] element by
    element) and, for operands both contiguous along K, wgmma m64nNk8 (each
    thread rounds its share of a stage in shared memory once it has landed:
    the MMA would truncate). Operands that are kernel arguments marked
    `kiln.tf32_rounded` (weights kilnc rounded at build time, activations
    the kernel producing them rounded) are not rounded again. A consumer that bufferization ran in place
    on the f32 result, or a result in an output argument that a later op
    overwrites, still fuses into the epilogue. Does nothing below `min-sm` 80 (mma.sync m16n8k16 needs
    sm_80).

    With `wgmma=auto` (every target sm_90a), a GEMM whose operands both
    allow 16-byte loads and that has enough tiles to fill the GPU runs as a
    Hopper kernel instead (codegen/Tactics/WgmmaGemm.cpp): warpgroups of 128
    threads, `wgmma.mma_async` m64nNk16 on 128-byte-swizzled shared memory
    filled by a multi-stage ring, the same fused epilogue. An operand that
    is a plain strided tensor in a kernel argument (a matmul's operands, a
    conv's filter rows, a pointwise conv's image) is loaded into the ring by
    the Tensor Memory Accelerator: one thread arms the stage's mbarrier
    with the bytes to expect and issues `cp.async.bulk.tensor` boxes (128-byte
    swizzle, zeros outside the tensor); the kernel function gets an argument
    `memref<128xi8>` with `kiln.tensor_map` (source argument, byte offset,
    dtype, dims, byte strides, box, swizzle) that the runtime fills with
    the encoded CUtensorMap. Other operands (a conv's im2col gather) go
    through 16-byte `cp.async`. `tma=false` uses cp.async for all.

    With `cluster-split-k` (every target sm_90 or newer), an mma.sync GEMM
    split over K (at most 8 ways) launches its CTAs in thread-block clusters
    of the split (`gpu.launch clusters`): each CTA leaves its partial sums in
    its shared memory and, after a cluster barrier, adds up 1/split of the
    tile over the cluster's CTAs in a fixed order (`nvvm.mapa`,
    `ld.shared::cluster`) and runs the epilogue on it. No second launch, no
    partial sums in global memory.

    Tactic variants (`kilnc --tactics all`, `--timing-cache`): the
    candidates of a GEMM are the cost model's choice, then the other wgmma
    tiles and the other mma.sync tiles and splits by estimated cost,
    alternately. A kernel function with `kiln.tactic_variant = N` runs the
    N-th candidate of each of its GEMMs, one with `kiln.tactic_force =
    "T1;T2"` the named ones (from kiln-tune's timing cache). The function
    gets `kiln.tactics` (what ran, "; "-separated), `kiln.tactic_void` when
    N is past the last candidate (the compiler drops that clone) and
    `kiln.tactic_stale` when a forced tactic is no candidate (the cost
    model's choice runs instead).
  }];
  let options = [
    Option<"minSm", "min-sm", "int64_t", /*default=*/"80",
           "Oldest compute capability (x10) the kernels must run on">,
    Option<"numSms", "num-sms", "int64_t", /*default=*/"132",
           "Multiprocessors of the GPU the cost model plans for">,
    Option<"forceSplitK", "split-k", "int64_t", /*default=*/"0",
           "Use this split-K factor instead of the cost model's (tests)">,
    Option<"mmaStages", "mma-stages", "int64_t", /*default=*/"4",
           "mma.sync kernels whose operands allow 16-byte loads: shared "
           "stages of the cp.async ring (2: registers and two buffers)">,
    Option<"clusterSplitK", "cluster-split-k", "bool", /*default=*/"false",
           "sm_90+: a split-K GEMM's CTAs form a thread-block cluster and "
           "add their partial sums through distributed shared memory (one "
           "launch) instead of a second kernel">,
    Option<"latencyCycles", "latency-cycles", "int64_t", /*default=*/"400",
           "Cost model: cycles until a K step's global loads arrive">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "Also run f32 convs and contractions on the tensor cores, as "
           "tf32 (mma.sync m16n8k8: 10 mantissa bits in, f32 accumulate)">,
    Option<"tma", "tma", "bool", /*default=*/"true",
           "wgmma kernels: load operands that are plain strided tensors in "
           "kernel arguments with TMA (cp.async.bulk.tensor and mbarriers); "
           "false: cp.async for every operand">,
    Option<"wgmma", "wgmma", "std::string", /*default=*/"\"off\"",
           "sm_90a wgmma kernels: off, auto (cost model) or a forced tile "
           "MxNxS[xD] (tile M, tile N, stages, steps of MMAs in flight)">,
  ];
  let dependentDialects = ["kiln::planir::KilnPlanDialect",
                           "mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::gpu::GPUDialect", "mlir::nvgpu::NVGPUDialect",
                           "mlir::NVVM::NVVMDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numTensorCoreOps", "tensor-core-ops",
              "Convs and contractions given a tensor-core kernel (regions' first variants)">,
    Statistic<"numWgmmaOps", "wgmma-ops", "Of those, on the sm_90a wgmma kernel">,
    Statistic<"numTmaOps", "tma-ops", "Of those, loading an operand with TMA">,
    Statistic<"numFusedEpilogues", "fused-epilogues",
              "Of the tensor-core ops, those with a fused elementwise epilogue">,
  ];
}

def GpuWindowPoolPass : Pass<"kiln-gpu-window-pool", "mlir::func::FuncOp"> {
  let summary = "Channels-last max pooling as one direct kernel";
  let description = [{
    On memrefs, before the generic loop mapping: a static
    `linalg.pooling_nhwc_max` over floats whose output was just filled with
    the lowest value (-inf or the most negative finite value) becomes one
    `gpu.launch` with a thread per output pixel and group of channels (8
    channels with 16-byte loads and stores when C and the layouts allow,
    else 1). When its input is a padded copy of an image (a buffer filled
    with the lowest value, the image copied into its middle, read only by
    the pool), the kernel reads the image itself and skips taps in the
    padding, so the fill, the copy and the buffer go away; the output's
    fill goes too. The generic path would otherwise run four launches (pad
    fill, pad copy, init fill, pool).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numPools", "window-pools", "Max pools run as one direct kernel">,
  ];
}

def GpuDepthwiseConvPass : Pass<"kiln-gpu-depthwise-conv", "mlir::func::FuncOp"> {
  let summary = "Channels-last depthwise convolutions as one direct kernel";
  let description = [{
    On memrefs, before the generic loop mapping: a static depthwise
    convolution as the conv lowering leaves it (a `linalg.generic`
    out[n, y, x, c] += widen(image[n, y*sy + i*dy, x*sx + j*dx, c]) *
    widen(filter[c, i, j]) over at most 9x9 taps, the filter's other dims
    of size 1) becomes one `gpu.launch` with a thread per output pixel and
    group of channels: 8 channels with 16-byte image loads (and stores, for
    a 16-bit output) when C and the layouts allow, else 1; the taps
    unrolled, the sums in registers in the accumulator's type (f32 for
    f16 convs).
    - A zero fill of the accumulator right before goes (the kernel starts
      from zero and writes every sum).
    - A padded copy of the image (a zero-filled buffer, the image copied
      into its middle, read only by the conv) goes too: the kernel reads
      the image and skips the taps in the padding.
    - When the accumulator is a fresh buffer that only an elementwise op
      right after reads (the bias, batch norm and activation: identity
      maps, its other inputs broadcast), that op's body runs on each sum in
      the kernel, which stores its result; the op and the buffer go.
    The generic path would run four or five launches (pad fill, pad copy,
    accumulator fill, conv, epilogue), the sums read and written in global
    memory once per tap.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numConvs", "depthwise-convs", "Depthwise convs run as one direct kernel">,
  ];
}

def GpuRowFusePass : Pass<"kiln-gpu-row-fuse", "mlir::func::FuncOp"> {
  let summary = "Run a kernel's row-wise ops as one launch, a warp per row";
  let description = [{
    On memrefs, before the generic loop mapping (and before
    `kiln-gpu-row-reduce`): a run of consecutive `linalg` ops of a kernel
    (fill, copy, transpose, reduce, generic) that all work on the same rows
    — each op either elementwise over rows of L elements, a reduction of
    each row's L elements (`yield combine(out, f(inputs))`, combine
    addf/maximumf/minimumf/maxnumf/minnumf), or elementwise on one value per
    row — becomes one `gpu.launch` with a warp per row: lane l handles
    elements l, l + 32, ... of every op, so what one op writes and the next
    reads with an identity map stays in registers, reductions combine the
    lanes with a `gpu.shuffle xor` butterfly, and only buffers read after
    the run (or not local to the kernel) are stored. Softmax (max, exp,
    sum, divide) and layer normalization (mean, variance, normalize) become
    one launch each instead of four to five. A run needs at least two ops,
    rows of `min-length` to `max-length` elements (all of a row lives in
    registers), static shapes and projected maps; an op that reads a buffer
    the run wrote through another map or view ends the run.
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", /*default=*/"32",
           "Shortest row worth a warp">,
    Option<"maxLength", "max-length", "int64_t", /*default=*/"1024",
           "Longest row kept in registers (L / 32 values per lane per buffer)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numFusions", "row-fusions", "Runs of row-wise ops fused into one launch">,
  ];
}

def GpuRowReducePass : Pass<"kiln-gpu-row-reduce", "mlir::func::FuncOp"> {
  let summary = "Reduce each row of a reduction with one warp";
  let description = [{
    On memrefs, before the generic loop mapping: a `linalg.generic` or
    `linalg.reduce` whose reduction dims (walked as one) cover at least
    `min-length` elements, with projected-permutation maps, an f32/f16/bf16
    output and a body `yield combine(out, f(inputs))` with
    `combine` one of addf, maximumf, minimumf, maxnumf, minnumf (the sums,
    maxima and sums of squares of softmax, layer normalization and pooling)
    becomes a `gpu.launch` with one warp per output element: each lane folds
    every 32nd element, a butterfly of `gpu.shuffle xor` combines the lanes,
    and lane 0 combines the total into the output. Contractions are left to
    the tensor-core tactics. The generic path instead runs each row's
    reduction serially in one thread.

    Reductions of at least `block-length` elements use the whole GPU
    instead, with f32 (the output type) partials in four independent
    accumulators per thread:
    - along a row (the reduced elements contiguous, NCHW global pooling): a
      block of 256 threads per output, the warps' totals combined through
      shared memory;
    - across rows (every input contiguous along the innermost kept dim,
      channels-last global pooling: [N, H, W, C] over H and W): blocks of 32
      neighbouring outputs x 8 warps walking the reduction, split into
      chunks over enough blocks for 8 on each of `num-sms` SMs; each
      chunk's partial goes to a scratch buffer and a second launch combines
      the chunks in order (deterministic, no atomics).
    Across rows, when every input's vectors of the innermost kept dim start
    16-byte aligned (16- or 32-bit elements, static strides), reductions of
    any length from `min-length` on take one launch instead: a block per 1,
    2 or 4 neighbouring 16-byte vectors of outputs (wider only while every
    SM still gets a block), up to 1024 threads walking the reduction with
    16-byte loads, four in flight each (issued before any is added), their
    partials combined by warp shuffles and then through shared memory in a
    fixed order.
    These kernels also take in the ops around them: a fill of the output
    with the combiner's identity right before (the total is stored, not
    combined), and an elementwise map of an output that is scratch right
    after (a mean's division and cast: the map's body is applied to each
    total and stored into its output), two launches fewer.
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", /*default=*/"32",
           "Shortest reduction worth a warp">,
    Option<"blockLength", "block-length", "int64_t", /*default=*/"1024",
           "Shortest reduction worth a block per output (or a split)">,
    Option<"numSms", "num-sms", "int64_t", /*default=*/"132",
           "SMs of the target, for the split of column reductions">,
    Option<"vectorColumns", "vector-columns", "bool", /*default=*/"true",
           "Column reductions with 16-byte loads in one launch where the inputs allow (false: the split kernels; tests, comparisons)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numReductions", "reduction-kernels", "Launches of warp, block and column reduction kernels">,
  ];
}

def FinalizeTacticVariantsPass : Pass<"kiln-finalize-tactic-variants", "mlir::ModuleOp"> {
  let summary = "Keep the tactic variants that exist and differ";
  let description = [{
    After the tensor-core tactics: of a region's variants, those whose
    function is marked `kiln.tactic_void` or repeats an earlier variant's
    tactics are erased; the `#kiln_plan.choice` keeps the others, each with
    its tactics' names and the region's GEMM shapes, and goes away when only
    the region itself is left. A function marked `kiln.tactic_stale` (the
    timing cache's tactic is no candidate any more) gets a warning.
  }];
  let dependentDialects = ["kiln::planir::KilnPlanDialect"];
  let statistics = [
    Statistic<"numChoices", "choices", "Regions built in several variants">,
    Statistic<"numVariants", "variants", "Their variants in all">,
    Statistic<"numStale", "stale", "Timing-cache tactics that are no candidate">,
  ];
}

def GpuAssignScratchPass : Pass<"kiln-gpu-assign-scratch", "mlir::func::FuncOp"> {
  let summary = "Put a kernel function's intermediate buffers in scratch memory";
  let description = [{
    GPU kernels cannot allocate: every `memref.alloc` of a kernel function
    (statically shaped, identity layout, scalars) becomes a `memref.view`
    into one new trailing argument `memref<Nxi8>` marked `kiln.scratch`, at
    256-byte aligned offsets; the plan gives it a slice of the activation
    arena live during the kernel's step. Deallocations are erased; a stack
    allocation is an error.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numBuffers", "buffers", "Intermediate buffers put in scratch memory">,
  ];
}

def LinalgParallelFirstPass : Pass<"kiln-linalg-parallel-first", "mlir::func::FuncOp"> {
  let summary = "Interchange linalg loops so that parallel dims come before reduction dims";
  let description = [{
    GPU kernels map the parallel dims of each linalg op to threads and run
    its reduction dims as sequential loops inside each thread. That needs the
    parallel iterators outermost: an op whose iterator list has a reduction
    before a parallel dim (e.g. `linalg.reduce` over the middle dim of a 3-d
    tensor, iterators `[parallel, reduction, parallel]`) is generalized and
    interchanged to `[parallel, parallel, reduction]`. Ops already in that
    order, named ones included, are left alone. Works on tensors and memrefs.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def GpuMapLoopsPass : Pass<"kiln-gpu-map-loops", "mlir::func::FuncOp"> {
  let summary = "Map the top-level loops of a kernel function to GPU blocks and threads";
  let description = [{
    Prepares a kernel function on memrefs (after
    `convert-linalg-to-parallel-loops`) for `convert-parallel-loops-to-gpu`.
    Each top-level `scf.parallel` with static bounds becomes one launch: its
    dims are linearized (row-major, so consecutive threads touch consecutive
    elements of the innermost dim: coalesced accesses) and split into a grid
    of blocks of `block-size` threads (fewer for small loops, so that at
    least `min-blocks` blocks fill the GPU when possible), with a bounds
    guard; the outer loop is mapped to `block_x`, the inner to `thread_x`.
    Where the innermost dim is short (2, 4 or 8) and the loop's only store
    fills whole rows of that many elements (4, 8 or 16 bytes, aligned), one
    thread computes a row, the dim a constant in each copy of the body, and
    stores it as one vector (the channels-last stem's 8 padded channels).
    Loops nested inside run sequentially in each thread. Top-level code that
    is not a parallel loop but touches memory (a loop nest over reduction
    dims only, a rank-0 op) becomes a one-thread launch. Dynamic bounds and
    parallel loops with reductions are rejected with an error.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block for large loops (a multiple of 32, at most 1024)">,
    Option<"minBlocks", "min-blocks", "int64_t", /*default=*/"264",
           "Blocks wanted before the block size is reduced (down to 64)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::gpu::GPUDialect", "mlir::vector::VectorDialect"];
}

def GpuSinkIntoLaunchesPass : Pass<"kiln-gpu-sink-into-launches", "mlir::func::FuncOp"> {
  let summary = "Recompute views, constants and index math inside each launch";
  let description = [{
    Before outlining: the side-effect-free ops (views, constants, index
    arithmetic, loads of read-only arguments) that a `gpu.launch` uses are
    cloned into it, with everything they depend on down to the function's
    arguments, so that outlined kernels take only the function's buffers.
    (Upstream's sinkOperationsIntoLaunchOp stops at values the launch does
    not already use, such as the arguments a view is taken of.)
  }];
}

def GpuAnnotateKernelsPass : Pass<"kiln-gpu-annotate-kernels", "mlir::ModuleOp"> {
  let summary = "Add the attributes outlined kernels need from their launches";
  let description = [{
    After outlining: shared buffers (workgroup attributions) are 16-byte
    aligned, since the kernels move 16 bytes at a time through them; and a
    launch in thread-block clusters (the cluster split-K GEMM) gets its
    cluster shape compiled into its kernel (`nvvm.cluster_dim`, PTX
    `.reqnctapercluster`), so that a plain cuLaunchKernel forms the clusters
    and the plan needs no launch attribute. A cluster shape that is not a
    constant divisor of its grid is an error.
  }];
  let dependentDialects = ["mlir::NVVM::NVVMDialect"];
}

def GpuMergeModulesPass : Pass<"kiln-gpu-merge-modules", "mlir::ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    After outlining: every `gpu.func` moves into one `gpu.module
    @kiln_kernels`, renamed `<kernel function>_<k>` in launch order, kernel
    functions taken in call order (`kiln_plan.kernels`) and then each
    region's tactic variants; the launches point at them. Symbols the
    kernels share (constants as `memref.global`) are kept once.
  }];
}

def GpuRecordLaunchesPass : Pass<"kiln-gpu-record-launches", "mlir::ModuleOp"> {
  let summary = "Read each kernel function's launches back into kiln_plan.kernel records";
  let description = [{
    After merging: the host side of each kernel function is a list of
    `gpu.launch_func` of constant sizes on its arguments (what was
    recomputed inside the launches is dead and erased first). Each function
    is replaced by a `kiln_plan.kernel` record of the same name: its
    launches (kernel, grid, block, dynamic shared memory, argument numbers),
    its scratch argument and size, its tensor-map arguments and its tactic
    choice. Anything else left on the host side is an error.
  }];
  let dependentDialects = ["kiln::planir::KilnPlanDialect"];
  let statistics = [
    Statistic<"numLaunches", "launches",
              "Launches per inference (regions' first variants)">,
  ];
}

def GpuAttachTargetsPass : Pass<"kiln-gpu-attach-targets", "mlir::ModuleOp"> {
  let summary = "Set the NVVM targets of the kernels' gpu.module";
  let description = [{
    Gives `gpu.module @kiln_kernels` one `#nvvm.target` per GPU target (O3,
    the PTX ISA each architecture is generated with: +ptx80 up to sm_90a,
    +ptx86/+ptx87 for Blackwell), in the order given. An unknown target is
    an error listing the known ones.
  }];
  let options = [
    ListOption<"targets", "targets", "std::string", "GPU architectures (sm_80, ...)">,
  ];
  let dependentDialects = ["mlir::NVVM::NVVMDialect"];
}

def GpuPtxasPass : Pass<"kiln-gpu-ptxas", "mlir::ModuleOp"> {
  let summary = "Assemble each target's PTX into a cubin with ptxas";
  let description = [{
    After `gpu-module-to-binary{format=isa}`: for every PTX object of
    `gpu.binary @kiln_kernels`, runs `ptxas -arch=TARGET -O3` and adds the
    cubin as a `bin` object of the same target. ptxas is `ptxas` if given,
    else found in $CUDA_HOME/bin, `cuda-path`/bin, then PATH; a missing or
    failing ptxas is an error with its output.
  }];
  let options = [
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"\"/usr/local/cuda\"",
           "CUDA toolkit whose bin/ptxas to run">,
    Option<"ptxas", "ptxas", "std::string", /*default=*/"\"\"",
           "ptxas to run (empty: search, see the description)">,
  ];
  let statistics = [
    Statistic<"numPtxBytes", "ptx-bytes", "Bytes of PTX (all targets)">,
    Statistic<"numCubinBytes", "cubin-bytes", "Bytes of cubins (all targets)">,
  ];
}

def ExportPlanPass : Pass<"kiln-export-plan", "mlir::ModuleOp"> {
  let summary = "Write the plan: buffers, weights, modules, steps";
  let description = [{
    The last step of `kiln-compile`. Reads `@main` (inputs, outputs, the
    calls in order as steps, constants as weights, static reshapes as views
    of their source), the host container's shared object, and the GPU
    container's binaries and `kiln_plan.kernel` records, and builds a plan
    (include/kiln/Plan/PlanIO.h): I/O bindings (inputs fixed at build time
    keep their value), weight buffers (stacked parts as back-to-back
    buffers; with `strip-weights` large ones left out, size and XXH64
    only), activation buffers placed in one arena by liveness (largest
    first, 64-byte aligned; an elided concat's buffer lives from its first
    producer; GPU scratch during its step), the host module and, per GPU
    target, a cubin and a PTX module each with the whole step list, tactic
    choices and TMA tensor maps. The serialized plan is written to `output`
    (atomically) when given; kilnc takes the bytes instead.
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "The plan's targets in order of preference">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Plan file to write (empty: none)">,
    Option<"stripWeights", "strip-weights", "bool", /*default=*/"false",
           "Leave weights of at least strip-threshold bytes out of the plan">,
    Option<"stripThreshold", "strip-threshold", "uint64_t", /*default=*/"4096",
           "Bytes from which --strip-weights strips a weight">,
  ];
  let statistics = [
    Statistic<"numWeights", "weights", "Weight buffers">,
    Statistic<"numWeightBytes", "weight-bytes", "Bytes of weights">,
    Statistic<"numStripped", "stripped-weights", "Weights left out of the plan">,
    Statistic<"numStrippedBytes", "stripped-weight-bytes", "Bytes left out">,
    Statistic<"numArenaBytes", "arena-bytes", "Activation arena with reuse">,
    Statistic<"numArenaBytesWithoutReuse", "arena-bytes-without-reuse",
              "Activation bytes without reuse">,
    Statistic<"numTensorMaps", "tensor-maps", "TMA tensor maps">,
    Statistic<"numHostModuleBytes", "host-module-bytes", "Bytes of the host module">,
    Statistic<"numPlanBytes", "plan-bytes", "Bytes of the plan">,
  ];
}

#endif // KILN_CODEGEN_PASSES
