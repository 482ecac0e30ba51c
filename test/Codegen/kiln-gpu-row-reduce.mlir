// RUN: kiln-opt %s -split-input-file -kiln-gpu-row-reduce | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-gpu-row-reduce="min-length=1000" | FileCheck %s --check-prefix=LONG
// RUN: kiln-opt %s -split-input-file -kiln-gpu-row-reduce="num-sms=2" | FileCheck %s --check-prefix=FEW
// RUN: kiln-opt %s -split-input-file -kiln-gpu-row-reduce="vector-columns=false" | FileCheck %s --check-prefix=SPLIT
// RUN: kiln-opt %s -split-input-file -kiln-gpu-row-reduce="vector-columns=false num-sms=2" | FileCheck %s --check-prefix=SPLITFEW

// Tests that a sum of squares over the last dim of 128 rows of 768 runs with
// one warp per row (8 warps per block: 16 blocks), lanes striding by 32, a
// shuffle butterfly, and lane 0 adding the total to the output's old value.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C16]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C256]],
// CHECK:           %[[LANE:.+]] = arith.remui
// CHECK:           scf.if
// CHECK:             %[[ACC:.+]] = scf.for %{{.+}} = %[[LANE]] to %{{.+}} step %{{.+}} iter_args
// CHECK:               memref.load %arg0[
// CHECK:               arith.mulf
// CHECK:               arith.addf
// CHECK:             gpu.shuffle  xor %[[ACC]], %{{.+}}, %{{.+}} : f32
// CHECK-COUNT-4:     gpu.shuffle  xor
// CHECK:             scf.if
// CHECK:               %[[OLD:.+]] = memref.load %arg1[
// CHECK:               %[[NEW:.+]] = arith.addf %[[OLD]]
// CHECK:               memref.store %[[NEW]], %arg1[
// CHECK:         } {kiln.tactic = "warp row reduction"}
// CHECK-NOT:     linalg.generic
// LONG-LABEL: func.func @sum_of_squares
// LONG-NOT:     gpu.launch
// LONG:         linalg.generic
func.func @sum_of_squares(%x: memref<128x768xf32>, %y: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
    ins(%x : memref<128x768xf32>) outs(%y : memref<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %o, %sq : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that a linalg.reduce of f16 maxima over two dims (7x7 = 49 elements,
// walked as one): the identity is -inf, lanes exchange f16 values as f32.
// CHECK-LABEL: func.func @max_pool_global
// CHECK:         gpu.launch
// CHECK:           arith.constant 0xFC00 : f16
// CHECK:           scf.for
// CHECK:             arith.remui
// CHECK:             arith.divui
// CHECK:             arith.maximumf
// CHECK:           arith.extf {{.*}} : f16 to f32
// CHECK:           gpu.shuffle  xor {{.*}} : f32
// CHECK:           arith.truncf {{.*}} : f32 to f16
// CHECK:           arith.maximumf
func.func @max_pool_global(%x: memref<2x64x7x7xf16>, %y: memref<2x64xf16>) {
  linalg.reduce { arith.maximumf } ins(%x : memref<2x64x7x7xf16>)
                outs(%y : memref<2x64xf16>) dimensions = [2, 3]
  return
}

// -----

// Tests that short rows, contractions and products are left to the generic path
// (linalg.reduce as the equivalent linalg.generic).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         linalg.matmul
// CHECK:         linalg.generic
// CHECK:           arith.mulf
func.func @left_alone(%x: memref<64x16xf32>, %y: memref<64xf32>, %a: memref<64x64xf32>,
                      %b: memref<64x64xf32>, %c: memref<64x64xf32>, %p: memref<64xf32>) {
  linalg.reduce { arith.addf } ins(%x : memref<64x16xf32>) outs(%y : memref<64xf32>) dimensions = [1]
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.reduce { arith.mulf } ins(%a : memref<64x64xf32>) outs(%p : memref<64xf32>) dimensions = [1]
  return
}

// -----

// Tests that a short channels-last reduction (2x7x7x64 f16 summed over the 49
// pixels into f16) is not given a warp per row: the input is contiguous along
// the kept channel dim, not along the reduced pixels. Its rows of 64 channels
// are whole 16-byte vectors, so it runs as one vector column kernel: 16
// vectors of 8 channels, a block each (fewer than 132 blocks: one vector
// wide), one warp walking the pixels (49 / 4 loads in flight, rounded up to a
// power of two, at least a warp): four 16-byte loads of 8 channels first,
// the last three at clamped places, then their 32 values into 8
// accumulators, those past the end discarded by selects; a butterfly over
// all 32 lanes, the warp's totals through shared memory, and 8 threads
// storing a channel each. Without vector loads
// (SPLIT) the generic path (a thread per output, neighbours reading
// neighbours) keeps it.
// CHECK-LABEL: func.func @sum_channels_last
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C16]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C32]], {{.*}}) workgroup(%[[SMEM:.+]] : memref<1x8xf16, #gpu.address_space<workgroup>>)
// CHECK:           %[[STEP:.+]] = arith.constant 128 : index
// CHECK:           scf.for {{.*}} step %[[STEP]] {{.*}} -> (f16, f16, f16, f16, f16, f16, f16, f16)
// CHECK:             vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<2x7x7x64xf16>, vector<8xf16>
// CHECK:             arith.minui
// CHECK:             vector.load %arg0[
// CHECK:             arith.minui
// CHECK:             vector.load %arg0[
// CHECK:             arith.minui
// CHECK:             vector.load %arg0[
// CHECK-NOT:         scf.if
// CHECK-COUNT-8:     vector.extract
// CHECK-COUNT-24:    arith.select
// CHECK:           }
// CHECK-COUNT-40:  gpu.shuffle xor
// CHECK:           memref.store {{.*}}, %[[SMEM]][
// CHECK:           gpu.barrier
// CHECK:           memref.load %[[SMEM]][
// CHECK-NOT:       memref.load %[[SMEM]][
// CHECK:           memref.store {{.*}}, %arg1[
// CHECK:         } {kiln.tactic = "vector column reduction"}
// CHECK-NOT:     linalg
// SPLIT-LABEL: func.func @sum_channels_last
// SPLIT-NOT:     gpu.launch
// SPLIT:         linalg.generic
// SPLIT:           arith.addf
func.func @sum_channels_last(%x: memref<2x7x7x64xf16>, %y: memref<2x64xf16>) {
  linalg.reduce { arith.addf } ins(%x : memref<2x7x7x64xf16>)
                outs(%y : memref<2x64xf16>) dimensions = [1, 2]
  return
}

// -----

// Tests that a long row (global average pooling of a 1x512x96x48 f16 map in
// NCHW: 512 rows of 4608, summed in f32) gets a block of 256 threads per row
// instead of a warp: each thread keeps four independent f32 partials (loads
// in flight together, the last three guarded), a warp butterfly, the eight
// warps' totals through shared memory, then warp 0's butterfly and lane 0's
// store.
// CHECK-LABEL: func.func @mean_long_rows
// CHECK-DAG:     %[[C512:.+]] = arith.constant 512 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C512]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C256]], {{.*}}) workgroup(%[[SMEM:.+]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[ACC:.+]]:4 = scf.for {{.*}} step %{{.+}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK:             memref.load %arg0[
// CHECK:             arith.extf {{.*}} : f16 to f32
// CHECK-COUNT-3:     scf.if {{.*}} -> (f32)
// CHECK:           arith.addf %[[ACC]]#0, %[[ACC]]#1
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           memref.store {{.*}}, %[[SMEM]][
// CHECK:           gpu.barrier
// CHECK:           memref.load %[[SMEM]][
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           memref.load %arg1[
// CHECK:           memref.store {{.*}}, %arg1[
// CHECK:         } {kiln.tactic = "block row reduction"}
// CHECK-NOT:     linalg.generic
func.func @mean_long_rows(%x: memref<512x4608xf16>, %y: memref<512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
    ins(%x : memref<512x4608xf16>) outs(%y : memref<512xf32>) {
  ^bb0(%a: f16, %o: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.addf %o, %e : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that channels-last global pooling over a long column (1x96x48x512
// f16 summed over 96x48 = 4608 pixels into f32) runs in one launch with
// 16-byte loads: 64 vectors of 8 channels, a block each (64 < 132 SMs: one
// vector wide), 1024 threads walking the pixels, 4096 a step (4 loads in
// flight each), the butterfly, 32 warps' totals through shared memory. With
// 2 SMs (FEW) 16 blocks of 4 neighbouring vectors: 256 walkers each, a
// butterfly over the lanes 4 apart (offsets 16, 8, 4: 24 shuffles a vector).
//
// Without vector loads (SPLIT) it is split over the GPU:
// blocks of 32 neighbouring channels (a warp's lanes: coalesced loads) x 8
// warps walking the pixels; 16 channel tiles x 66 chunks of 70 pixels =
// 1056 blocks, 8 on each of 132 SMs; each block's total goes to a 66x512
// scratch buffer, and a second launch (2 blocks of 256 threads) adds the 66
// partials of each channel in order. With 2 SMs (SPLITFEW) one chunk per tile
// fills them: the blocks store their totals, no scratch, no second launch.
// SPLIT-LABEL: func.func @mean_channels_last_long
// SPLIT:         %[[PART:.+]] = memref.alloc() {alignment = 64 : i64} : memref<66x512xf32>
// SPLIT:         %[[C1056:.+]] = arith.constant 1056 : index
// SPLIT:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C1056]], {{.*}}) threads({{.*}}) workgroup(%[[SMEM:.+]] : memref<8x32xf32, #gpu.address_space<workgroup>>)
// SPLIT:           scf.for {{.*}} -> (f32, f32, f32, f32)
// SPLIT:             memref.load %arg0[
// SPLIT:           memref.store {{.*}}, %[[SMEM]][
// SPLIT:           gpu.barrier
// SPLIT-COUNT-8:   memref.load %[[SMEM]][
// SPLIT:           memref.store {{.*}}, %[[PART]][
// SPLIT:         } {kiln.tactic = "column reduction"}
// SPLIT:         gpu.launch
// SPLIT-COUNT-66:  memref.load %[[PART]][
// SPLIT:           memref.load %arg1[
// SPLIT:           memref.store {{.*}}, %arg1[
// SPLIT:         } {kiln.tactic = "column reduction (combine)"}
// SPLIT-NOT:     linalg.generic
// CHECK-LABEL: func.func @mean_channels_last_long
// CHECK-NOT:     memref.alloc
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:     %[[C1024:.+]] = arith.constant 1024 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C64]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C1024]], {{.*}}) workgroup(%[[SMEM:.+]] : memref<32x8xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[STEP:.+]] = arith.constant 4096 : index
// CHECK:           scf.for {{.*}} step %[[STEP]]
// CHECK-COUNT-4:     vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<1x96x48x512xf16>, vector<8xf16>
// CHECK-COUNT-40:  gpu.shuffle xor
// CHECK:           gpu.barrier
// CHECK-COUNT-32:  memref.load %[[SMEM]][
// CHECK:           memref.store {{.*}}, %arg1[
// CHECK:         } {kiln.tactic = "vector column reduction"}
// CHECK-NOT:     gpu.launch
// CHECK-NOT:     linalg.generic
// FEW-LABEL: func.func @mean_channels_last_long
// FEW-DAG:     %[[C16:.+]] = arith.constant 16 : index
// FEW-DAG:     %[[C1024:.+]] = arith.constant 1024 : index
// FEW:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C16]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C1024]], {{.*}}) workgroup(%{{.+}} : memref<32x32xf32, #gpu.address_space<workgroup>>)
// FEW-COUNT-24:  gpu.shuffle xor
// FEW-NOT:       gpu.shuffle
// FEW:         } {kiln.tactic = "vector column reduction"}
// SPLITFEW-LABEL: func.func @mean_channels_last_long
// SPLITFEW-NOT:     memref.alloc
// SPLITFEW-DAG:     %[[C16:.+]] = arith.constant 16 : index
// SPLITFEW:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[C16]],
// SPLITFEW:           memref.store {{.*}}, %arg1[
// SPLITFEW:         } {kiln.tactic = "column reduction"}
// SPLITFEW-NOT:     gpu.launch
func.func @mean_channels_last_long(%x: memref<1x96x48x512xf16>, %y: memref<1x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>,
                                   affine_map<(n, h, w, c) -> (n, c)>],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
    ins(%x : memref<1x96x48x512xf16>) outs(%y : memref<1x512xf32>) {
  ^bb0(%a: f16, %o: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.addf %o, %e : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tests that the pooling's fill of its f32 accumulator (zeros: the sum's
// identity) and the mean's division and f16 cast after it fold into the
// column kernels. With vector loads, the one launch divides each total by
// 4608, truncates it and stores it into the f16 output. Without (SPLIT),
// the combine launch divides each channel's total by 4608,
// truncates it and stores it into the f16 output; the accumulator, the fill
// and the map are gone (three launches become two). SPLITFEW, one launch: the
// reduction kernel itself stores the mean.
// CHECK-LABEL: func.func @mean_fill_and_map
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.generic
// CHECK:         gpu.launch
// CHECK:           vector.load
// CHECK:           gpu.barrier
// CHECK:           arith.divf
// CHECK:           arith.truncf {{.*}} : f32 to f16
// CHECK:           memref.store {{.*}}, %arg1[{{.*}}] : memref<1x1x1x512xf16>
// CHECK:         } {kiln.tactic = "vector column reduction"}
// CHECK-NOT:     gpu.launch
// CHECK-NOT:     linalg.generic
// SPLIT-LABEL: func.func @mean_fill_and_map
// SPLIT-NOT:     memref.alloc() {alignment = 64 : i64} : memref<1x512xf32>
// SPLIT:         memref.alloc() {alignment = 64 : i64} : memref<66x512xf32>
// SPLIT-NOT:     linalg.generic
// SPLIT:         } {kiln.tactic = "column reduction"}
// SPLIT:         gpu.launch
// SPLIT-NOT:       memref.load %{{.*}} : memref<1x1x1x512xf32>
// SPLIT:           arith.divf
// SPLIT:           arith.truncf {{.*}} : f32 to f16
// SPLIT:           memref.store {{.*}}, %arg1[{{.*}}] : memref<1x1x1x512xf16>
// SPLIT:         } {kiln.tactic = "column reduction (combine)"}
// SPLIT-NOT:     linalg.generic
// SPLITFEW-LABEL: func.func @mean_fill_and_map
// SPLITFEW:         gpu.launch
// SPLITFEW:           arith.divf
// SPLITFEW:           memref.store {{.*}}, %arg1[{{.*}}] : memref<1x1x1x512xf16>
// SPLITFEW:         } {kiln.tactic = "column reduction"}
// SPLITFEW-NOT:     gpu.launch
// SPLITFEW-NOT:     linalg.generic
func.func @mean_fill_and_map(%x: memref<1x96x48x512xf16>, %y: memref<1x1x1x512xf16>) {
  %n = arith.constant 4.608000e+03 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %acc = memref.alloc() {alignment = 64 : i64} : memref<1x512xf32>
  %acc4 = memref.expand_shape %acc [[0, 1, 2], [3]] output_shape [1, 1, 1, 512] : memref<1x512xf32> into memref<1x1x1x512xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%zero : f32) outs(%acc4 : memref<1x1x1x512xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %x5 = memref.expand_shape %x [[0, 1, 2], [3], [4], [5]] output_shape [1, 1, 1, 96, 48, 512] : memref<1x96x48x512xf16> into memref<1x1x1x96x48x512xf16>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
    ins(%x5 : memref<1x1x1x96x48x512xf16>) outs(%acc4 : memref<1x1x1x512xf32>) {
  ^bb0(%a: f16, %o: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.addf %o, %e : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%acc4 : memref<1x1x1x512xf32>) outs(%y : memref<1x1x1x512xf16>) {
  ^bb0(%in: f32, %o: f16):
    %m = arith.divf %in, %n : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// Tests that a fill with another value than the identity stays (the kernel
// combines its total with it) and so does a map of an output that is no
// scratch (a function argument, read after the kernel).
// CHECK-LABEL: func.func @fill_not_identity
// CHECK:         linalg.generic
// CHECK:           linalg.yield
// CHECK:         gpu.launch
// CHECK:           memref.load %arg1[
// CHECK:           arith.addf
// CHECK:           memref.store {{.*}}, %arg1[
// CHECK:         } {kiln.tactic = "vector column reduction"}
// CHECK:         linalg.generic
// CHECK:           arith.divf
// SPLIT-LABEL: func.func @fill_not_identity
// SPLIT:         linalg.generic
// SPLIT:           linalg.yield
// SPLIT:         } {kiln.tactic = "column reduction"}
// SPLIT:         gpu.launch
// SPLIT:           memref.load %arg1[
// SPLIT:           arith.addf
// SPLIT:           memref.store {{.*}}, %arg1[
// SPLIT:         } {kiln.tactic = "column reduction (combine)"}
// SPLIT:         linalg.generic
// SPLIT:           arith.divf
// SPLITFEW-LABEL: func.func @fill_not_identity
// SPLITFEW:         linalg.generic
// SPLITFEW:         } {kiln.tactic = "column reduction"}
// SPLITFEW:         linalg.generic
func.func @fill_not_identity(%x: memref<1x96x48x512xf16>, %acc: memref<1x512xf32>, %y: memref<1x512xf16>) {
  %n = arith.constant 4.608000e+03 : f32
  %one = arith.constant 1.000000e+00 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%one : f32) outs(%acc : memref<1x512xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>,
                                   affine_map<(n, h, w, c) -> (n, c)>],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
    ins(%x : memref<1x96x48x512xf16>) outs(%acc : memref<1x512xf32>) {
  ^bb0(%a: f16, %o: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.addf %o, %e : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
    ins(%acc : memref<1x512xf32>) outs(%y : memref<1x512xf16>) {
  ^bb0(%in: f32, %o: f16):
    %m = arith.divf %in, %n : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  }
  return
}
