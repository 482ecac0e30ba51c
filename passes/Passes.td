//===- Passes.td - kiln graph passes -----------------------*- tablegen -*-===//
//
// Passes over the kiln graph dialect, in the order kiln-compile runs them
// (lib/Pipelines): graph rewrites, kernel formation, then the region passes
// that shape kernel functions and their calls before codegen.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_PASSES
#define KILN_GRAPH_PASSES

include "mlir/Pass/PassBase.td"

def CheckStaticShapesPass : Pass<"kiln-check-static-shapes", "mlir::ModuleOp"> {
  let summary = "Refuse @main unless every tensor in it has a static shape";
  let description = [{
    Plans are static: the first step of `kiln-compile` checks that every
    graph input and every op result of `@main` has a static shape. A
    dynamic input is an error that names it and the `kilnc --input-shape`
    flag to fix it; a dynamic op result (its shape depends on values) names
    the small graph inputs it is computed from and the `--input-value` flags
    that fix them at build time. The IR is not changed.
  }];
}

def ConvertPrecisionPass : Pass<"kiln-convert-precision", "mlir::ModuleOp"> {
  let summary = "Run the f32 computation of @main in f16 or bf16";
  let description = [{
    Reduced-precision inference (kilnc --precision fp16|bf16): every f32
    tensor computed in @main becomes f16 (or bf16): weights are converted
    once at compile time (round to nearest even), results of ops take the
    new element type, f32 graph inputs are cast on entry and outputs are cast
    back to f32 on exit, so the plan's I/O stays f32 as the model declares.
    Integer and boolean tensors are untouched; `kiln.cast` to f32 becomes a
    cast to the reduced type. Ops whose f32-typed attributes must follow the
    element type (`kiln.constant_of_shape`) get converted attributes.
    Lowering keeps the statistics of softmax, normalizations and reductions
    in f32.

    fp32 islands (fp16 only, whose largest value is 65504): an op stays in
    f32 when a value it reads or writes reaches 16384 (a quarter of the
    range, for the headroom of data that calibration did not see) by
    `ranges` (`NODE=AMAX`, the largest |x| of a model node's values over
    calibration data; a graph input by its name), or when it reads an f32
    weight that f16 cannot hold. Casts join the islands to the rest: f16
    values are widened where an island reads them, an island's values are
    narrowed where the rest reads them (within range by construction), and
    weights that only islands read stay f32. The islands are listed in the
    module attribute `kiln.fp32_islands` ("node: reason"). Without ranges,
    values outside the f16 range become infinities (reported by the output
    comparison, never hidden).
  }];
  let options = [
    Option<"precision", "precision", "kiln::Precision",
           /*default=*/"kiln::Precision::fp16",
           "Element type for f32 computation",
           [{::llvm::cl::values(
             clEnumValN(kiln::Precision::fp16, "fp16", "IEEE half"),
             clEnumValN(kiln::Precision::bf16, "bf16", "bfloat16"))}]>,
    ListOption<"ranges", "ranges", "std::string",
           "NODE=AMAX: the largest |x| of a node's values (or a graph input's) over calibration data">,
  ];
  let statistics = [
    Statistic<"numConverted", "converted-values", "Values whose type became reduced-precision">,
    Statistic<"numWeights", "converted-weights", "Weight tensors converted">,
    Statistic<"numKept", "fp32-islands", "Ops kept in f32 (fp32 islands)">,
  ];
}

def TapValuesPass : Pass<"kiln-tap-values", "mlir::ModuleOp"> {
  let summary = "Make the f32 values of model nodes extra outputs of @main";
  let description = [{
    Debug taps and range analysis: every f32 ranked-tensor result of an op
    of @main whose location names a model node (the importer's NameLoc)
    and matches one of `nodes` (globs; "*" = every node) is returned too,
    as an output named `<node>` (`<node>#<k>` for the k-th value of a node
    with several). Constants are not tapped. Outputs keep their values:
    the rest of the pipeline treats a tap as any output (it is
    materialized, and kernels formed around it).
  }];
  let options = [
    ListOption<"nodes", "nodes", "std::string",
           "Globs of the node names whose values are tapped">,
  ];
  let statistics = [
    Statistic<"numTaps", "taps", "Values made outputs">,
  ];
}

def FuseSiblingMatmulsPass : Pass<"kiln-fuse-sibling-matmuls", "mlir::func::FuncOp"> {
  let summary = "Run sibling matmuls that share their input as one batched matmul";
  let description = [{
    Horizontal fusion: `kiln.matmul`s of one left-hand side `x` [..., M, K]
    whose right-hand sides are constants of one type [K, N] (attention's
    query, key and value projections as Hugging Face exports them) become
    one matmul of `x` as [L, K] (L = the rows of x) with the G weights
    stacked, [G, K, N], giving [G, L, N]; each old result is a slice of it
    (reshaped back), which later ops read in place (a matmul's prologue) or
    copy. When every one of them is read only by an add of a constant bias
    of N elements, the biases stack too ([G, 1, N]) and the add follows the
    batched matmul (its epilogue). One launch instead of G, with G times
    the tiles to fill the GPU. The stacked constants carry
    `kiln.stack_parts = G`: a plan stores each part as its own weight
    buffer, back to back, so that weight stripping and kiln-refit still see
    the model's tensors.

    ```mlir
    %q = kiln.matmul %x, %wq : (tensor<128x768xf16>, tensor<768x768xf16>) -> tensor<128x768xf16>
    %k = kiln.matmul %x, %wk : (tensor<128x768xf16>, tensor<768x768xf16>) -> tensor<128x768xf16>
    // becomes
    %w = kiln.constant {kiln.stack_parts = 2 : i64} ... : tensor<2x768x768xf16>
    %y = kiln.matmul %x, %w : (tensor<128x768xf16>, tensor<2x768x768xf16>) -> tensor<2x128x768xf16>
    %q = kiln.reshape (kiln.slice %y [0:1] on axis 0) : tensor<128x768xf16>
    %k = kiln.reshape (kiln.slice %y [1:2] on axis 0) : tensor<128x768xf16>
    ```
  }];
  let statistics = [
    Statistic<"numGroups", "groups", "Batched matmuls made">,
    Statistic<"numMatmuls", "matmuls", "Matmuls they replace">,
  ];
}

def LayoutNhwcPass : Pass<"kiln-layout-nhwc", "mlir::ModuleOp"> {
  let summary = "Run the 2-D convolutions of @main channels-last (NHWC)";
  let description = [{
    Tensor-core convolutions want the channels innermost: an implicit-GEMM
    tile then loads 8 channels of one pixel with one 16-byte access, where
    NCHW gives a scalar gather per element. Every static 2-D float
    convolution (any group count: group 1, grouped, depthwise) becomes `kiln.conv {channels_last}` on a transposed input with
    its filter packed OIHW -> OHWI at compile time (a non-constant filter is
    transposed at run time), followed by a transpose back to NCHW. An f16 or
    bf16 convolution of group 1 whose channel count is not a multiple of 8
    (an RGB stem) reads its image padded with zero channels and a filter
    packed with zero taps, so that tensor-core loads move 8 channels at
    once (with `tf32`, f32 convolutions too: they run on the tensor cores
    as well; with `tf32` also: a matmul's constant [K, N] weight is stored
    [N, K] and read through a transpose, a gemm's B with trans_b, since tf32
    wgmma reads K-major operands only; and weights only convs and matmuls
    read are rounded to tf32 once, here, marked `kiln.tf32_rounded`); that filter is not a tensor of the model, so it carries
    `kiln.derived` and plans keep it when weights are stripped. An f16 or
    bf16 grouped conv whose groups are narrow (at most 4 channels and 4
    filters each, or 8 when the output has at least 8192 pixels; at most 64
    groups) and whose filter is a constant runs as the dense conv of group
    1 with a block-diagonal filter (also `kiln.derived`): G times the MACs,
    but one full-width tensor-core GEMM instead of G tiles mostly of
    padding.

    The transposes then travel: batch norm and max pooling of an NHWC value
    become their `channels_last` forms; unary elementwise ops, binary ones
    whose operands are both NHWC (or one is a single element), and
    reductions that keep dims (axes renumbered) run on the NHWC value; a
    transpose to NHWC of an NHWC value is that value. What remains are the
    transposes at the edges (the graph input, ops that need NCHW); those
    that only move dims of size 1 become reshapes (views, no kernel).

    ```mlir
    %c = kiln.conv %x, %w {pads = [1,1,1,1], ...} : (NCHW, OIHW) -> NCHW
    %r = kiln.relu %c
    // becomes
    %t = kiln.transpose %x {perm = [0, 2, 3, 1]}
    %c = kiln.conv %t, %w_ohwi {channels_last = true, ...}
    %r = kiln.relu %c
    %o = kiln.transpose %r {perm = [0, 3, 1, 2]}
    ```
  }];
  let options = [
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "f32 convs will run on tensor cores as tf32: pad and "
           "block-diagonalize their filters like f16/bf16 ones">,
  ];
  let statistics = [
    Statistic<"numConvs", "convs", "Convolutions made channels-last">,
    Statistic<"numMoved", "moved-ops", "Other ops moved to NHWC">,
    Statistic<"numTransposes", "transposes", "Layout transposes left">,
    Statistic<"numDenseGrouped", "dense-grouped-convs",
              "Grouped convs run as dense ones (block-diagonal filters)">,
    Statistic<"numKMajorWeights", "k-major-weights",
              "tf32: constant matmul weights stored K-major">,
    Statistic<"numRoundedWeights", "rounded-weights",
              "tf32: weights rounded to tf32 at build time">,
  ];
}

def HoistMatmulScalesPass : Pass<"kiln-hoist-matmul-scales", "mlir::func::FuncOp"> {
  let summary = "Move scalar factors of matmul operands after the product";
  let description = [{
    `kiln.matmul (x * c), y` becomes `(kiln.matmul x, y) * c` (and `x / c`
    likewise) when `c` is a finite, non-zero float constant of one element
    and the scaling has no other reader. Attention scales its queries by
    1/sqrt(d) before `Q K^T`: after the move the queries are a transposed
    slice that the matmul reads in place (see `kiln-form-kernels`), and the
    factor joins the matmul's kernel as an elementwise consumer, applied in
    its epilogue (as TensorRT folds it into the GEMM's alpha). The product
    is then rounded before the scaling: it must fit the element type
    unscaled (for attention scores in fp16, |q.k| < 65504).

    ```mlir
    %q = kiln.div %x, %c8 : (tensor<24x128x64xf16>, tensor<f16>) -> tensor<24x128x64xf16>
    %s = kiln.matmul %q, %k : (...) -> tensor<24x128x128xf16>
    // becomes
    %p = kiln.matmul %x, %k : (...) -> tensor<24x128x128xf16>
    %s = kiln.div %p, %c8 : (tensor<24x128x128xf16>, tensor<f16>) -> tensor<24x128x128xf16>
    ```
  }];
  let statistics = [
    Statistic<"numHoisted", "hoisted", "Scalar factors moved after a matmul">,
  ];
}

def FuseSiblingConvsPass : Pass<"kiln-fuse-sibling-convs", "mlir::func::FuncOp"> {
  let summary = "Run sibling convs that share their input as one conv";
  let description = [{
    Horizontal fusion: 2-D `kiln.conv`s of one input with one geometry
    (filters of one type but for the output channels, the same strides,
    pads and dilations, no groups, a bias for all or none, constant filters
    and biases) become one conv with the filters and biases concatenated
    along the output channels; each old result is a slice of its output
    channels (axis 3 channels-last, else 1). ResNet's first bottleneck runs
    its 1x1 reduction and its 1x1 downsample as one conv, Inception's blocks
    their 1x1 reductions.

    The activation chains that follow each conv (single-use unary ops) go
    after the fused conv: once when they are alike; as one `kiln.prelu`
    whose slope per output channel is each part's (1 for none, 0 for relu,
    alpha for leaky_relu) when they are piecewise linear; otherwise those
    convs stay apart. A conv joins only when the value its chain ends in
    has one reader that reads a slice in place (a conv's image, an
    elementwise op: see `kiln-form-kernels`), so that no slice becomes a
    copy.

    The concatenated constants carry `kiln.stack_parts = array<i64: ...>`
    (each part's output channels) when every part is a multiple of 64
    bytes: a plan stores each part as its own weight buffer, back to back,
    so that weight stripping and kiln-refit still see the model's tensors.
    A bias that is not is marked `kiln.derived` (kept whole in stripped
    plans); filters must be.

    ```mlir
    %a = kiln.conv %x, %w1, %b1 {channels_last = true, ...} : ... -> tensor<1x56x56x64xf16>
    %r = kiln.relu %a : tensor<1x56x56x64xf16>
    %d = kiln.conv %x, %w2, %b2 {channels_last = true, ...} : ... -> tensor<1x56x56x256xf16>
    // becomes
    %y = kiln.conv %x, %w, %b {channels_last = true, ...} : ... -> tensor<1x56x56x320xf16>
    %p = kiln.prelu %y, %slopes : ... // 64 zeros, 256 ones
    %r = kiln.slice %p [0:64] on axis 3
    %d = kiln.slice %p [64:320] on axis 3
    ```
  }];
  let statistics = [
    Statistic<"numGroups", "groups", "Convs made">,
    Statistic<"numConvs", "convs", "Convs they replace">,
    Statistic<"numMixed", "mixed-activations",
              "Groups whose parts' activations differ (one prelu)">,
  ];
}

def FormKernelsPass : Pass<"kiln-form-kernels", "mlir::ModuleOp"> {
  let summary = "Outline the ops of @main into one function per future kernel";
  let description = [{
    Partitions `@main` into kernels: every kiln op except `kiln.constant` and
    pure static reshapes (`kiln.reshape`, `kiln.flatten`, `kiln.squeeze`,
    `kiln.unsqueeze` whose input and output shapes are static, which stay in
    `@main` as views of their input) is outlined into a
    `func.func private @kernel_N` and replaced by a `func.call`.

    A chain of single-use elementwise consumers is fused into its producer's
    kernel (conv + bias add + relu): unary elementwise ops, inference batch
    normalization, and binary/ternary elementwise ops with the producer's
    result type, whatever their other operands (constants, arguments, values
    of earlier kernels). Then the kernel grows as a DAG: the first later op
    that reads any of its values joins if it is such an elementwise op (GELU
    reads the bias add twice); an op before it that could not join would
    read a value the kernel's call, placed at its last op, defines later.

    A consumer chain may pass static reshapes (a gemm's [S*B, E] result
    viewed as [S, B, E] before a residual add), and after a matmul or gemm
    a transpose (attention's output projection back to [B, S, E]: the
    tensor-core epilogue writes it permuted).

    A matmul or gemm also takes its operand prologue: chains of single-use
    transposes, slices and static reshapes that feed it and end in a
    transpose or slice (attention's `slice -> reshape -> transpose` of the
    packed QKV projection, the transpose back before the output
    projection). Lowered to linalg, the transposes and reshapes compose
    into the contraction's indexing maps and the slices become views, so
    the operands are read in place instead of copied by kernels of their
    own.

    A conv likewise takes a single-use static slice of its image, and an
    elementwise op of the slice's type (one that joins a kernel as a
    consumer, or starts one) a single-use static slice among its operands:
    the slices of a sibling-conv group's output channels
    (`kiln-fuse-sibling-convs`) are read in place, strided, by the next
    conv and by the residual add in the next conv's epilogue.

    A constant pad likewise takes the single-use transpose and float cast
    that feed it (`pad(transpose(cast(x)))`, the channels-last stem's f32
    NCHW input as f16 NHWC padded to 8 channels): lowered to linalg, one
    generic computes each padded element from `x` directly.

    Small dense constants (at most `max-inline-constant-elements` elements:
    shapes, axes, scalars) are cloned into the kernel; weights and all other
    values become kernel arguments. Kernel results are the values used
    outside the kernel, in order of definition.

    ```mlir
    %c = kiln.conv %x, %w, %b ...
    %r = kiln.relu %c
    // becomes
    %r = call @kernel_0(%x, %w, %b) : (...) -> tensor<...>
    func.func private @kernel_0(...) { kiln.conv; kiln.relu; return }
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let options = [
    Option<"maxInlineConstantElements", "max-inline-constant-elements",
           "int64_t", /*default=*/"64",
           "Dense constants with at most this many elements are cloned into "
           "kernels; larger ones are passed as arguments">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Number of kernels formed">,
    Statistic<"numFusedOps", "fused-ops",
              "Number of elementwise ops fused into a producer's kernel">,
    Statistic<"numViews", "views", "Number of static reshapes kept as views">,
    Statistic<"numPrologueOps", "prologue-ops",
              "Number of data movement ops a matmul's kernel reads through">,
    Statistic<"numPadPrologueOps", "pad-prologue-ops",
              "Number of casts and transposes a pad's kernel reads through">,
    Statistic<"numSliceReads", "slice-reads",
              "Number of slices read in place by convs and elementwise ops">,
  ];
}

def RoundTf32AtProducersPass : Pass<"kiln-round-tf32-at-producers", "mlir::ModuleOp"> {
  let summary = "Round tf32 activations in the conv/matmul kernels that produce them";
  let description = [{
    `--precision tf32` on GPU targets: a result of a conv/matmul kernel
    (called once) that only convs and matmuls/gemms of other kernels read
    (as their A or B operand, maybe through views, transposes, slices and
    zero pads, also through `@main`'s views) is rounded to tf32 where it is
    produced: its function gets `kiln_plan.round_tf32_results` (the result
    numbers; `kiln-gpu-round-tf32-results` appends the rounding, which
    elementwise fusion puts in the kernel's epilogue), and the reading
    functions' arguments get `kiln.tf32_rounded`, so that their tensor-core
    kernels skip rounding them. Kernels called more than once are left alone.

    ```mlir
    %a = call @kernel_0(%x, %w0) : (...) -> tensor<1x64x56x56xf32>
    %b = call @kernel_1(%a, %w1) : (...) -> tensor<1x64x56x56xf32>
    // becomes (kernel_0 and kernel_1 both hold a kiln.conv)
    func.func private @kernel_0(...) attributes {kiln_plan.round_tf32_results = array<i64: 0>}
    func.func private @kernel_1(%arg0: tensor<...> {kiln.tf32_rounded}, ...)
    ```
  }];
  let dependentDialects = ["kiln::planir::KilnPlanDialect"];
  let statistics = [
    Statistic<"numRounded", "rounded-activations",
              "Kernel results rounded to tf32 by their producers">,
  ];
}

def MarkTf32RoundedWeightsPass : Pass<"kiln-mark-tf32-rounded-weights", "mlir::ModuleOp"> {
  let summary = "Mark kernel arguments that are weights rounded to tf32 at build time";
  let description = [{
    A kernel function argument that `@main` binds to a `kiln.constant` marked
    `kiln.tf32_rounded` (a weight `kiln-layout-nhwc` rounded to tf32 at build
    time) gets the argument attribute `kiln.tf32_rounded`, so that the
    tensor-core kernels do not round it again.
  }];
  let statistics = [
    Statistic<"numMarked", "marked-arguments",
              "Kernel arguments marked as rounded to tf32">,
  ];
}

def MaterializeOutputCopiesPass : Pass<"kiln-materialize-output-copies", "mlir::ModuleOp"> {
  let summary = "Give graph outputs a kernel result of their own";
  let description = [{
    The plan binds each graph output to the buffer of a kernel result. An
    output that is not one (a graph input, a weight, a view, a value
    returned twice) gets a copy kernel: a new `func.func private @kernel_N`
    holding a `linalg.copy`, called right before the return.

    ```mlir
    return %arg0, %v, %v : ...
    // becomes (%v a kernel result)
    %c0 = call @kernel_7(%arg0) : ...
    %c1 = call @kernel_8(%v) : ...
    return %c0, %v, %c1 : ...
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numCopies", "output-copies", "Copy kernels made for outputs">,
  ];
}

def ElideConcatsPass : Pass<"kiln-elide-concats", "mlir::ModuleOp"> {
  let summary = "Let a concat's producing kernels write into its slices";
  let description = [{
    A concat kernel (a lone `kiln.concat` of its arguments, in order) whose
    every input is the only use of a result of another kernel called once
    never runs: each producing function gets `kiln_plan.into_slices`
    (`#kiln_plan.into_slice`: its result goes into the slice at `offsets` of
    a buffer of the concat's `shape`), and the concat's call is marked
    `kiln_plan.elided_concat`. Plan export gives the producers' results the
    concat's buffer (live from the first producer), and codegen makes the
    out-param that whole buffer, written through a subview
    (`kiln-place-slice-results`).
  }];
  let dependentDialects = ["kiln::planir::KilnPlanDialect"];
  let statistics = [
    Statistic<"numElided", "elided-concats", "Concats no kernel runs">,
    Statistic<"numInputs", "elided-concat-inputs",
              "Their inputs, written into slices by their producers">,
  ];
}

#endif // KILN_GRAPH_PASSES
