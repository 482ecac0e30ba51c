// RUN: kiln-opt %s -split-input-file -kiln-check-static-shapes -verify-diagnostics | FileCheck %s

// Tests that a graph whose inputs and op results all have static shapes
// passes unchanged.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:         %[[S:.+]] = kiln.constant dense<[3, 2]> : tensor<2xi64>
// CHECK:         %[[V:.+]] = kiln.reshape %[[X]], %[[S]]
// CHECK:         %[[R:.+]] = kiln.relu %[[V]]
// CHECK:         return %[[R]]
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %s = kiln.constant dense<[3, 2]> : tensor<2xi64>
  %v = kiln.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %r = kiln.relu %v : tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// Tests that a graph input of dynamic shape is an error that names the input
// and the kilnc flag that fixes its shape, N in place of each dynamic dim.
// expected-error @+1 {{input 'images' has a dynamic shape 'tensor<?x3x8x8xf32>': plans need static shapes; pass --input-shape images=Nx3x8x8 with N replaced by the size to compile for}}
func.func @main(%x: tensor<?x3x8x8xf32> {kiln.name = "images"}) -> tensor<?x3x8x8xf32> {
  %r = kiln.relu %x : tensor<?x3x8x8xf32>
  return %r : tensor<?x3x8x8xf32>
}

// -----

// Tests that an unnamed dynamic input is called by its number.
// expected-error @+1 {{input 'input_1' has a dynamic shape 'tensor<4x?xf32>': plans need static shapes; pass --input-shape input_1=4xN}}
func.func @main(%x: tensor<4xf32>, %y: tensor<4x?xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Tests that an op result whose shape depends on the value of a small graph
// input (a reshape to a shape given at run time) is an error that names
// that input and the --input-value flag that fixes it at build time; the
// large data input is not named.
func.func @main(%x: tensor<2x3xf32> {kiln.name = "data"}, %s: tensor<2xi64> {kiln.name = "shape"}) -> tensor<?x?xf32> {
  // expected-error @+1 {{'kiln.reshape' op has a dynamic result shape 'tensor<?x?xf32>': it depends on the values of graph input 'shape', known only at run time; plans need static shapes: fix it at build time with kilnc --input-value shape=FILE}}
  %r = kiln.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Tests that a value-dependent shape computed from several small inputs
// names all of them, sorted, each with its own --input-value flag.
func.func @main(%x: tensor<2x3xf32>, %rows: tensor<1xi64> {kiln.name = "rows"}, %cols: tensor<1xi64> {kiln.name = "cols"}) -> tensor<?x?xf32> {
  %s = kiln.concat %rows, %cols {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  // expected-error @+1 {{it depends on the values of graph inputs 'cols', 'rows', known only at run time; plans need static shapes: fix them at build time with kilnc --input-value cols=FILE --input-value rows=FILE}}
  %r = kiln.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Tests that a dynamic result computed from no small input (the shape comes
// from a rank-2 input, too big to be shape-like) asks for static input
// shapes instead of naming inputs.
func.func @main(%x: tensor<2x3xf32>, %s: tensor<1x2xi64>) -> tensor<?x?xf32> {
  %flat = kiln.constant dense<2> : tensor<1xi64>
  %v = kiln.reshape %s, %flat : (tensor<1x2xi64>, tensor<1xi64>) -> tensor<2xi64>
  // expected-error @+1 {{'kiln.reshape' op has a dynamic result shape 'tensor<?x?xf32>': plans need static shapes (set every input's shape with --input-shape)}}
  %r = kiln.reshape %x, %v : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Tests that a module without @main is an error.
// expected-error @+1 {{expected a func.func @main (the imported graph)}}
module {
  func.func @graph(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
