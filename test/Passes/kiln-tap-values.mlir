// RUN: kiln-opt %s -split-input-file '-kiln-tap-values=nodes=*' | FileCheck %s
// RUN: kiln-opt %s -split-input-file '-kiln-tap-values=nodes=conv*' | FileCheck %s --check-prefix=GLOB
// RUN: not kiln-opt %s -split-input-file '-kiln-tap-values=nodes=[' 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that every f32 value of a model node becomes an output named after
// the node (its second value `<node>#1`), after the model's outputs;
// constants, integer values and values without a node are not tapped, and
// a value that already is an output under its name is not returned twice.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    -> (tensor<4xf32> {kiln.name = "out"}, tensor<4xf32> {kiln.name = "conv1"}, tensor<4xf32> {kiln.name = "conv1#1"}, tensor<4xf32> {kiln.name = "relu"})
// CHECK:         %[[A:.+]] = kiln.add
// CHECK:         %[[B:.+]] = kiln.mul
// CHECK:         %[[R:.+]] = kiln.relu %[[B]]
// CHECK:         %[[N:.+]] = kiln.neg %[[R]]
// CHECK:         return %[[N]], %[[A]], %[[B]], %[[R]]
// GLOB-LABEL:  func.func @main
// GLOB-SAME:     -> (tensor<4xf32> {kiln.name = "out"}, tensor<4xf32> {kiln.name = "conv1"}, tensor<4xf32> {kiln.name = "conv1#1"})
// BAD: kiln-tap-values: bad node pattern '['
func.func @main(%x: tensor<4xf32> {kiln.name = "x"}, %i: tensor<2xi64> {kiln.name = "i"}) -> (tensor<4xf32> {kiln.name = "out"}) {
  %w = kiln.constant dense<2.0> : tensor<4xf32> loc("w")
  %a = kiln.add %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("conv1")
  %b = kiln.mul %a, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("conv1")
  %r = kiln.relu %b : tensor<4xf32> loc("relu")
  %j = kiln.neg %i : tensor<2xi64> loc("ints")
  %n = kiln.neg %r : tensor<4xf32> loc("out")
  %u = kiln.neg %r : tensor<4xf32>
  return %n : tensor<4xf32>
}
