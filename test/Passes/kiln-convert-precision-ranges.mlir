// RUN: kiln-opt %s -split-input-file '-kiln-convert-precision=ranges=big=2e5,act=2e5,small=200,tail=200,x=100' | FileCheck %s
// RUN: kiln-opt %s -split-input-file '-kiln-convert-precision=precision=bf16 ranges=big=2e5,act=2e5' | FileCheck %s --check-prefix=BF16
// RUN: not kiln-opt %s -split-input-file '-kiln-convert-precision=ranges=big' 2>&1 | FileCheck %s --check-prefix=BAD

// Tests fp32 islands: `big` writes values beyond the island limit (16384)
// and `act` and `small` read them, so the three stay f32. The graph input
// feeds the island directly (its entry cast is dropped), the weight they
// share with nothing else stays f32, and `small`'s in-range result is
// narrowed where the converted `tail` reads it. The islands are listed
// with their reasons.
// CHECK:       module attributes {kiln.fp32_islands = ["big (kiln.mul): output max |x| 2e+05 on the calibration data", "act (kiln.relu): output max |x| 2e+05 on the calibration data", "small (kiln.div): an input with max |x| 2e+05 on the calibration data"]}
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32> {kiln.name = "x"})
// CHECK-NOT:     kiln.cast %[[X]]
// CHECK:         %[[W:.+]] = kiln.constant dense<1.000000e+03> : tensor<4xf32>
// CHECK:         %[[M:.+]] = kiln.mul %[[X]], %[[W]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[R:.+]] = kiln.relu %[[M]] : tensor<4xf32>
// CHECK:         %[[D:.+]] = kiln.div %[[R]], %[[W]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[DH:.+]] = kiln.cast %[[D]] : tensor<4xf32> -> tensor<4xf16>
// CHECK:         %[[T:.+]] = kiln.neg %[[DH]] : tensor<4xf16>
// CHECK:         %[[Y:.+]] = kiln.cast %[[T]] : tensor<4xf16> -> tensor<4xf32>
// CHECK:         return %[[Y]]
// BF16-NOT:    kiln.fp32_islands
// BF16:        kiln.mul %{{.+}} : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
// BAD: range 'big' is not NODE=AMAX with AMAX >= 0
func.func @main(%x: tensor<4xf32> {kiln.name = "x"}) -> tensor<4xf32> {
  %w = kiln.constant dense<1000.0> : tensor<4xf32> loc("w")
  %m = kiln.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("big")
  %r = kiln.relu %m : tensor<4xf32> loc("act")
  %d = kiln.div %r, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("small")
  %t = kiln.neg %d : tensor<4xf32> loc("tail")
  return %t : tensor<4xf32>
}

// -----

// Tests that a weight f16 cannot hold stays f32 with its reader, without
// any ranges; that the reader's value, of unknown range, keeps its own
// readers in f32 too; and that a weight shared with a converted op is
// split: an f32 copy for the island, f16 for the rest. A weight returned as
// it is stays f32.
// CHECK:       module attributes {kiln.fp32_islands = ["addhuge (kiln.add): a weight with |w| up to 1e+05, beyond f16's 65504", "addboth (kiln.add): reads the f32 value of 'addhuge', whose range no calibration data gives"]}
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[Y:.+]]: tensor<4xf32>
// CHECK:         %[[YH:.+]] = kiln.cast %[[Y]] : tensor<4xf32> -> tensor<4xf16>
// CHECK:         %[[S:.+]] = kiln.constant dense<2.000000e+00> : tensor<4xf16>
// CHECK:         %[[SF:.+]] = kiln.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK:         %[[H:.+]] = kiln.constant dense<1.000000e+05> : tensor<4xf32>
// CHECK:         %[[A:.+]] = kiln.add %[[Y]], %[[H]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[B:.+]] = kiln.add %[[A]], %[[SF]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[P:.+]] = kiln.mul %[[YH]], %[[S]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
// CHECK:         %[[PY:.+]] = kiln.cast %[[P]] : tensor<4xf16> -> tensor<4xf32>
// CHECK:         return %[[B]], %[[PY]], %[[H]]
func.func @main(%y: tensor<4xf32> {kiln.name = "y"}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s = kiln.constant dense<2.0> : tensor<4xf32> loc("s")
  %h = kiln.constant dense<1.0e5> : tensor<4xf32> loc("huge")
  %a = kiln.add %y, %h : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("addhuge")
  %b = kiln.add %a, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("addboth")
  %p = kiln.mul %y, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("plain")
  return %b, %p, %h : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
