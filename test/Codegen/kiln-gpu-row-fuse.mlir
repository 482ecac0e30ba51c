// RUN: kiln-opt %s -split-input-file -kiln-gpu-row-fuse | FileCheck %s

// Tests that layer normalization as bufferized (fill, copy for the sum's init,
// sum, variance, normalize) becomes one launch of 4 warps per block, a warp per
// row of 768 (24 elements per lane); each input element is loaded once, the
// mean and variance are butterflies of 5 shuffles, the two row buffers never
// reach memory and the output is stored once per element.
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-NOT:     linalg.
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}})
// CHECK-COUNT-24:  memref.load %arg0[
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK-NOT:       memref.load %arg0[
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           math.rsqrt
// CHECK-NOT:       memref.store {{.*}}memref<1x128xf32>
// CHECK-COUNT-24:  memref.store {{.*}}, %arg3[
// CHECK:           gpu.terminator
// CHECK-NEXT:    } {kiln.tactic = "warp row fusion of 5 ops"}
// CHECK-NEXT:    return
func.func @layer_norm(%arg0: memref<1x128x768xf16>, %arg1: memref<768xf16>, %arg2: memref<768xf16>, %arg3: memref<1x128x768xf16>) {
  %cst = arith.constant 9.99999974E-6 : f32
  %cst_0 = arith.constant 7.680000e+02 : f32
  %cst_1 = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x128xf32>
  linalg.fill ins(%cst_1 : f32) outs(%alloc : memref<1x128xf32>)
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<1x128xf32>
  linalg.copy ins(%alloc : memref<1x128xf32>) outs(%alloc_2 : memref<1x128xf32>)
  linalg.reduce ins(%arg0 : memref<1x128x768xf16>) outs(%alloc_2 : memref<1x128xf32>) dimensions = [2]
    (%in: f16, %init: f32) {
      %0 = arith.extf %in : f16 to f32
      %1 = arith.addf %init, %0 : f32
      linalg.yield %1 : f32
    }
  linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %alloc_2 : memref<1x128x768xf16>, memref<1x128xf32>) outs(%alloc : memref<1x128xf32>) {
  ^bb0(%in: f16, %in_3: f32, %out: f32):
    %0 = arith.divf %in_3, %cst_0 : f32
    %1 = arith.extf %in : f16 to f32
    %2 = arith.subf %1, %0 : f32
    %3 = arith.mulf %2, %2 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  }
  linalg.generic {indexing_maps = [#map1, #map, #map, #map2, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %alloc_2, %alloc, %arg1, %arg2 : memref<1x128x768xf16>, memref<1x128xf32>, memref<1x128xf32>, memref<768xf16>, memref<768xf16>) outs(%arg3 : memref<1x128x768xf16>) {
  ^bb0(%in: f16, %in_3: f32, %in_4: f32, %in_5: f16, %in_6: f16, %out: f16):
    %0 = arith.divf %in_3, %cst_0 : f32
    %1 = arith.divf %in_4, %cst_0 : f32
    %2 = arith.addf %1, %cst : f32
    %3 = math.rsqrt %2 : f32
    %4 = arith.extf %in : f16 to f32
    %5 = arith.subf %4, %0 : f32
    %6 = arith.mulf %5, %3 : f32
    %7 = arith.extf %in_5 : f16 to f32
    %8 = arith.mulf %6, %7 : f32
    %9 = arith.extf %in_6 : f16 to f32
    %10 = arith.addf %8, %9 : f32
    %11 = arith.truncf %10 : f32 to f16
    linalg.yield %11 : f16
  }
  return
}

// -----

// Tests that softmax after an attention matmul (its f32 result in %acc, the
// mask added first) becomes one run: mask, max, exp, sum, divide over rows of
// 40 elements (a ragged last slot: lanes past 40 are kept out of the reductions
// and the stores). The matmul ends any run before it; %acc is reused for the
// exponentials and read by nobody after the run: it is not stored; %out is
// stored once.
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map9 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-LABEL: func.func @softmax
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     linalg.
// CHECK:         gpu.launch
// CHECK:           %[[J:.*]] = arith.addi %{{.*}}, %c32
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[J]], %c40
// CHECK:           arith.minui %[[J]], %c39
// CHECK:           arith.select %[[IN]]
// CHECK-COUNT-5:   gpu.shuffle  xor {{.*}} : f32
// CHECK:           math.exp
// CHECK:           math.exp
// CHECK:           arith.select %[[IN]]
// CHECK-COUNT-5:   gpu.shuffle  xor {{.*}} : f32
// CHECK:           memref.store {{.*}}, %arg3[
// CHECK:           scf.if %[[IN]]
// CHECK-NEXT:        memref.store {{.*}}, %arg3[
// CHECK-NOT:       memref.store
// CHECK:         } {kiln.tactic = "warp row fusion of 7 ops"}
func.func @softmax(%q: memref<12x40x64xf16>, %k: memref<12x64x40xf16>, %mask: memref<12x1x40xf16>, %out: memref<12x40x40xf16>) {
  %ninf = arith.constant 0xFC00 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %acc = memref.alloc() : memref<12x40x40xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<12x40x40xf32>)
  linalg.batch_matmul ins(%q, %k : memref<12x40x64xf16>, memref<12x64x40xf16>) outs(%acc : memref<12x40x40xf32>)
  linalg.generic {indexing_maps = [#map1, #map9, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc, %mask : memref<12x40x40xf32>, memref<12x1x40xf16>) outs(%out : memref<12x40x40xf16>) {
  ^bb0(%in: f32, %m: f16, %o: f16):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.addf %0, %m : f16
    linalg.yield %1 : f16
  }
  %max = memref.alloc() : memref<12x40xf16>
  linalg.fill ins(%ninf : f16) outs(%max : memref<12x40xf16>)
  linalg.reduce { arith.maximumf } ins(%out : memref<12x40x40xf16>) outs(%max : memref<12x40xf16>) dimensions = [2]
  linalg.generic {indexing_maps = [#map1, #map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%out, %max : memref<12x40x40xf16>, memref<12x40xf16>) outs(%acc : memref<12x40x40xf32>) {
  ^bb0(%in: f16, %mx: f16, %o: f32):
    %0 = arith.extf %mx : f16 to f32
    %1 = arith.extf %in : f16 to f32
    %2 = arith.subf %1, %0 : f32
    %3 = math.exp %2 : f32
    linalg.yield %3 : f32
  }
  %sum = memref.alloc() : memref<12x40xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<12x40xf32>)
  linalg.reduce { arith.addf } ins(%acc : memref<12x40x40xf32>) outs(%sum : memref<12x40xf32>) dimensions = [2]
  linalg.generic {indexing_maps = [#map1, #map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%acc, %sum : memref<12x40x40xf32>, memref<12x40xf32>) outs(%out : memref<12x40x40xf16>) {
  ^bb0(%in: f32, %s: f32, %o: f16):
    %0 = arith.divf %in, %s : f32
    %1 = arith.truncf %0 : f32 to f16
    linalg.yield %1 : f16
  }
  return
}

// -----

// Tests that in a transpose then a residual add, the add reads the transpose's
// output from registers; the transposed read itself comes from memory.
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mapT = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @transpose_add
// CHECK:         gpu.launch
// CHECK:           memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : memref<128x1x768xf16>
// CHECK:         } {kiln.tactic = "warp row fusion of 2 ops"}
func.func @transpose_add(%arg0: memref<128x1x768xf16>, %arg1: memref<1x128x768xf16>, %arg2: memref<1x128x768xf16>) {
  linalg.transpose ins(%arg0 : memref<128x1x768xf16>) outs(%arg2 : memref<1x128x768xf16>) permutation = [1, 0, 2]
  linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg2 : memref<1x128x768xf16>, memref<1x128x768xf16>) outs(%arg2 : memref<1x128x768xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %0 = arith.addf %in, %in_0 : f16
    linalg.yield %0 : f16
  }
  return
}

// -----

// Tests that when the second op reads what the first wrote through another map
// (other rows' elements) there is no run; each op stays as it was
// (generalized). Rows of 16 elements are too short for a warp.
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mapT = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @no_run
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT:     gpu.launch
func.func @no_run(%a: memref<4x64x64xf32>, %b: memref<4x64x64xf32>, %c: memref<4x64x64xf32>) {
  linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<4x64x64xf32>) outs(%b : memref<4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#mapT, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : memref<4x64x64xf32>) outs(%c : memref<4x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  return
}
func.func @short_rows(%a: memref<4x16xf32>, %b: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x16xf32>) outs(%b : memref<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : memref<4x16xf32>) outs(%b : memref<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Tests that a run ends before an op that writes a buffer an earlier op of the
// run read through a view: the first op reads %b through a transposed view; the
// second writes %b itself: its stores, deferred to the end of a run, would race
// with other warps' reads of the view, so the run ends before it. The second
// and third ops form a run of their own.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @view_then_write
// CHECK:         memref.transpose
// CHECK:         linalg.generic
// CHECK:         gpu.launch
// CHECK:         } {kiln.tactic = "warp row fusion of 2 ops"}
// CHECK-NEXT:    return
func.func @view_then_write(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %bt = memref.transpose %b (i, j) -> (j, i) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%bt : memref<64x64xf32, strided<[1, 64]>>) outs(%c : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %c : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  }
  return
}
