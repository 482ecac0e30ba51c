// RUN: kiln-opt %s -split-input-file -kiln-convert-precision | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-convert-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not kiln-opt %s -split-input-file -kiln-convert-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that f32 computation becomes f16: the input is cast on entry,
// weights are converted at compile time (round to nearest even: 1/3 is
// 0x3555 in f16, 0x3EAB in bf16), results take the new type, the output is
// cast back to the declared f32, and integer tensors are untouched.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<2xi64>) -> (tensor<2x3xf32>, tensor<2xi64>)
// CHECK:         %[[XH:.+]] = kiln.cast %[[X]] : tensor<2x3xf32> -> tensor<2x3xf16>
// CHECK:         %[[W:.+]] = kiln.constant dense<{{\[\[}}3.332520e-01, 1.000000e+00, -2.000000e+00]]> : tensor<1x3xf16>
// CHECK:         %[[A:.+]] = kiln.add %[[XH]], %[[W]] : (tensor<2x3xf16>, tensor<1x3xf16>) -> tensor<2x3xf16>
// CHECK:         %[[R:.+]] = kiln.relu %[[A]] : tensor<2x3xf16>
// CHECK:         %[[N:.+]] = kiln.neg %[[I]] : tensor<2xi64>
// CHECK:         %[[Y:.+]] = kiln.cast %[[R]] : tensor<2x3xf16> -> tensor<2x3xf32>
// CHECK:         return %[[Y]], %[[N]]
// BF16-LABEL: func.func @main
// BF16:         kiln.cast %{{.+}} : tensor<2x3xf32> -> tensor<2x3xbf16>
// BF16:         kiln.constant dense<{{\[\[}}3.339840e-01, 1.000000e+00, -2.000000e+00]]> : tensor<1x3xbf16>
// BAD: for the --precision option: Cannot find option named 'fp8'
func.func @main(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> (tensor<2x3xf32>, tensor<2xi64>) {
  %w = kiln.constant dense<[[0.333333343, 1.0, -2.0]]> : tensor<1x3xf32>
  %a = kiln.add %x, %w : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %r = kiln.relu %a : tensor<2x3xf32>
  %n = kiln.neg %i : tensor<2xi64>
  return %r, %n : tensor<2x3xf32>, tensor<2xi64>
}

// -----

// Tests that a weight beyond the f16 range stays f32 (here an output as it
// is) and that a constant_of_shape's fill value follows its result type.
// CHECK-LABEL: func.func @main
// CHECK:         kiln.constant dense<[1.000000e+05, 6.550400e+04, -1.000000e+05]> : tensor<3xf32>
// CHECK:         kiln.constant_of_shape %{{.+}} {value = dense<2.500000e-01> : tensor<1xf16>}
func.func @main(%s: tensor<2xi64>) -> (tensor<3xf32>, tensor<?x?xf32>) {
  %c = kiln.constant dense<[1.0e+05, 65504.0, -1.0e+05]> : tensor<3xf32>
  %f = kiln.constant_of_shape %s {value = dense<0.25> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<?x?xf32>
  return %c, %f : tensor<3xf32>, tensor<?x?xf32>
}
