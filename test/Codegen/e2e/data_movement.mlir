// RUN: kiln-opt %s -kiln-convert-graph-to-linalg \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata \
// RUN:   -lower-affine -finalize-memref-to-llvm -convert-math-to-funcs \
// RUN:   -convert-math-to-llvm -convert-math-to-libm -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s


// Tests that the data-movement kiln ops lowered by kiln-convert-graph-to-linalg
// move the right elements: concat, transpose, slice (negative step, clamped
// ends, dynamic dims), split, pad (reflect, edge, wrap, constant with a crop),
// depth_to_space (DCR, CRD), space_to_depth, reshape with 0 and -1 on a
// dynamic input, flatten, tile, expand and resize (nearest, linear; several
// coordinate transforms).
//
// Expected values: the numpy equivalents (np.concatenate, transpose, basic
// slicing, np.pad, np.tile, broadcasting, the ONNX reshape-transpose-reshape
// definitions of depth/space conversions) and, for resize, a separable numpy
// reference of ONNX's coordinate transforms. Copies and interpolations of
// small integers with weights that are multiples of 1/8 are exact; the
// align_corners case (weights in thirds) is printed as round(y * 1e3), far
// coarser than f32 rounding, and the generator checked that no expected value
// lies within 0.02 quanta of a rounding boundary.

func.func @concat(%a: tensor<2x1x2xf32>, %b: tensor<2x3x2xf32>) -> tensor<2x4x2xf32> {
  %r = kiln.concat %a, %b {axis = 1 : i64} : (tensor<2x1x2xf32>, tensor<2x3x2xf32>) -> tensor<2x4x2xf32>
  return %r : tensor<2x4x2xf32>
}

func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %r = kiln.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

func.func @slice_negative_step(%x: tensor<5x6xf32>) -> tensor<3x3xf32> {
  %s = kiln.constant dense<[-1, 1]> : tensor<2xi64>
  %e = kiln.constant dense<[-10, 100]> : tensor<2xi64>
  %a = kiln.constant dense<[0, 1]> : tensor<2xi64>
  %t = kiln.constant dense<[-2, 2]> : tensor<2xi64>
  %r = kiln.slice %x, %s, %e, %a, %t : (tensor<5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

func.func @slice_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = kiln.constant dense<[1]> : tensor<1xi64>
  %e = kiln.constant dense<[-1]> : tensor<1xi64>
  %a = kiln.constant dense<[1]> : tensor<1xi64>
  %t = kiln.constant dense<[1]> : tensor<1xi64>
  %r = kiln.slice %x, %s, %e, %a, %t : (tensor<?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @split_swap(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %p:2 = kiln.split %x {axis = 1 : i64, sizes = array<i64: 2, 3>} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>)
  %r = kiln.concat %p#1, %p#0 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

func.func @pad_reflect(%x: tensor<3x4xf32>) -> tensor<6x7xf32> {
  %p = kiln.constant dense<[1, 2, 2, 1]> : tensor<4xi64>
  %r = kiln.pad %x, %p {mode = #kiln.pad_mode<reflect>} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}

func.func @pad_edge(%x: tensor<3x4xf32>) -> tensor<6x7xf32> {
  %p = kiln.constant dense<[1, 2, 2, 1]> : tensor<4xi64>
  %r = kiln.pad %x, %p {mode = #kiln.pad_mode<edge>} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}

func.func @pad_wrap(%x: tensor<3x4xf32>) -> tensor<6x7xf32> {
  %p = kiln.constant dense<[1, 2, 2, 1]> : tensor<4xi64>
  %r = kiln.pad %x, %p {mode = #kiln.pad_mode<wrap>} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<6x7xf32>
  return %r : tensor<6x7xf32>
}

func.func @pad_constant_crop(%x: tensor<3x4xf32>) -> tensor<4x5xf32> {
  %p = kiln.constant dense<[1, -1, 0, 2]> : tensor<4xi64>
  %r = kiln.pad %x, %p {value = 7.500000e+00 : f64} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

func.func @depth_to_space_dcr(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %r = kiln.depth_to_space %x {blocksize = 2 : i64, mode = #kiln.depth_to_space_mode<DCR>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

func.func @depth_to_space_crd(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %r = kiln.depth_to_space %x {blocksize = 2 : i64, mode = #kiln.depth_to_space_mode<CRD>} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

func.func @space_to_depth(%x: tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32> {
  %r = kiln.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32>
  return %r : tensor<1x8x2x2xf32>
}

func.func @reshape_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x?x2xf32> {
  %s = kiln.constant dense<[0, -1, 2]> : tensor<3xi64>
  %r = kiln.reshape %x, %s : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x?x2xf32>
  return %r : tensor<?x?x2xf32>
}

func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %r = kiln.flatten %x {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %t = kiln.constant dense<[2, 2]> : tensor<2xi64>
  %r = kiln.tile %x, %t : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %s = kiln.constant dense<[2, 1, 4]> : tensor<3xi64>
  %r = kiln.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

func.func @resize_nearest_asymmetric(%x: tensor<1x1x2x3xf32>) -> tensor<1x1x4x6xf32> {
  %r = kiln.resize %x {coordinate_transformation_mode = #kiln.coordinate_transformation_mode<asymmetric>, mode = #kiln.interpolation_mode<nearest>, nearest_mode = #kiln.nearest_mode<floor>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x2x3xf32>) -> tensor<1x1x4x6xf32>
  return %r : tensor<1x1x4x6xf32>
}

func.func @resize_nearest_half_pixel(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %r = kiln.resize %x {scales = array<f32: 1.0, 1.0, 0.6, 0.6>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %r : tensor<1x1x3x3xf32>
}

func.func @resize_linear_half_pixel(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %r = kiln.resize %x {mode = #kiln.interpolation_mode<linear>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}

func.func @resize_linear_align_corners(%x: tensor<1x1x2x3xf32>) -> tensor<1x1x3x4xf32> {
  %sz = kiln.constant dense<[1, 1, 3, 4]> : tensor<4xi64>
  %r = kiln.resize %x, %sz {coordinate_transformation_mode = #kiln.coordinate_transformation_mode<align_corners>, mode = #kiln.interpolation_mode<linear>} : (tensor<1x1x2x3xf32>, tensor<4xi64>) -> tensor<1x1x3x4xf32>
  return %r : tensor<1x1x3x4xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

// Prints round(x * 1e3): see the tolerance note above.
func.func @scale_round_1x1x3x4(%t: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %c = kiln.constant dense<1.0e3> : tensor<f32>
  %m = kiln.mul %t, %c : (tensor<1x1x3x4xf32>, tensor<f32>) -> tensor<1x1x3x4xf32>
  %r = kiln.round %m : tensor<1x1x3x4xf32>
  return %r : tensor<1x1x3x4xf32>
}

func.func @main() {
  %concat_a = arith.constant dense<[[[9.0, 7.0]], [[-7.0, -3.0]]]> : tensor<2x1x2xf32>
  %concat_b = arith.constant dense<[[[1.0, 5.0], [-3.0, 9.0], [9.0, 8.0]], [[2.0, 8.0], [1.0, 8.0], [3.0, 2.0]]]> : tensor<2x3x2xf32>
  %concat_r = call @concat(%concat_a, %concat_b) : (tensor<2x1x2xf32>, tensor<2x3x2xf32>) -> tensor<2x4x2xf32>
  %concat_r_u = tensor.cast %concat_r : tensor<2x4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%concat_r_u) : (tensor<*xf32>) -> ()
  %transpose_x = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %transpose_r = call @transpose(%transpose_x) : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %transpose_r_u = tensor.cast %transpose_r : tensor<4x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%transpose_r_u) : (tensor<*xf32>) -> ()
  %slice_negative_step_x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0, 28.0, 29.0]]> : tensor<5x6xf32>
  %slice_negative_step_r = call @slice_negative_step(%slice_negative_step_x) : (tensor<5x6xf32>) -> tensor<3x3xf32>
  %slice_negative_step_r_u = tensor.cast %slice_negative_step_r : tensor<3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%slice_negative_step_r_u) : (tensor<*xf32>) -> ()
  %slice_dynamic_x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0, 28.0, 29.0]]> : tensor<5x6xf32>
  %slice_dynamic_x_d = tensor.cast %slice_dynamic_x : tensor<5x6xf32> to tensor<?x?xf32>
  %slice_dynamic_r = call @slice_dynamic(%slice_dynamic_x_d) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %slice_dynamic_r_s = tensor.cast %slice_dynamic_r : tensor<?x?xf32> to tensor<5x4xf32>
  %slice_dynamic_r_s_u = tensor.cast %slice_dynamic_r_s : tensor<5x4xf32> to tensor<*xf32>
  call @printMemrefF32(%slice_dynamic_r_s_u) : (tensor<*xf32>) -> ()
  %split_swap_x = arith.constant dense<[[-6.0, -6.0, 9.0, -2.0, 6.0], [-8.0, 1.0, 2.0, 6.0, 8.0]]> : tensor<2x5xf32>
  %split_swap_r = call @split_swap(%split_swap_x) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %split_swap_r_u = tensor.cast %split_swap_r : tensor<2x5xf32> to tensor<*xf32>
  call @printMemrefF32(%split_swap_r_u) : (tensor<*xf32>) -> ()
  %pad_reflect_x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %pad_reflect_r = call @pad_reflect(%pad_reflect_x) : (tensor<3x4xf32>) -> tensor<6x7xf32>
  %pad_reflect_r_u = tensor.cast %pad_reflect_r : tensor<6x7xf32> to tensor<*xf32>
  call @printMemrefF32(%pad_reflect_r_u) : (tensor<*xf32>) -> ()
  %pad_edge_x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %pad_edge_r = call @pad_edge(%pad_edge_x) : (tensor<3x4xf32>) -> tensor<6x7xf32>
  %pad_edge_r_u = tensor.cast %pad_edge_r : tensor<6x7xf32> to tensor<*xf32>
  call @printMemrefF32(%pad_edge_r_u) : (tensor<*xf32>) -> ()
  %pad_wrap_x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %pad_wrap_r = call @pad_wrap(%pad_wrap_x) : (tensor<3x4xf32>) -> tensor<6x7xf32>
  %pad_wrap_r_u = tensor.cast %pad_wrap_r : tensor<6x7xf32> to tensor<*xf32>
  call @printMemrefF32(%pad_wrap_r_u) : (tensor<*xf32>) -> ()
  %pad_constant_crop_x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %pad_constant_crop_r = call @pad_constant_crop(%pad_constant_crop_x) : (tensor<3x4xf32>) -> tensor<4x5xf32>
  %pad_constant_crop_r_u = tensor.cast %pad_constant_crop_r : tensor<4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%pad_constant_crop_r_u) : (tensor<*xf32>) -> ()
  %depth_to_space_dcr_x = arith.constant dense<[[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]], [[12.0, 13.0], [14.0, 15.0]], [[16.0, 17.0], [18.0, 19.0]], [[20.0, 21.0], [22.0, 23.0]], [[24.0, 25.0], [26.0, 27.0]], [[28.0, 29.0], [30.0, 31.0]]]]> : tensor<1x8x2x2xf32>
  %depth_to_space_dcr_r = call @depth_to_space_dcr(%depth_to_space_dcr_x) : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  %depth_to_space_dcr_r_u = tensor.cast %depth_to_space_dcr_r : tensor<1x2x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%depth_to_space_dcr_r_u) : (tensor<*xf32>) -> ()
  %depth_to_space_crd_x = arith.constant dense<[[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]], [[12.0, 13.0], [14.0, 15.0]], [[16.0, 17.0], [18.0, 19.0]], [[20.0, 21.0], [22.0, 23.0]], [[24.0, 25.0], [26.0, 27.0]], [[28.0, 29.0], [30.0, 31.0]]]]> : tensor<1x8x2x2xf32>
  %depth_to_space_crd_r = call @depth_to_space_crd(%depth_to_space_crd_x) : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
  %depth_to_space_crd_r_u = tensor.cast %depth_to_space_crd_r : tensor<1x2x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%depth_to_space_crd_r_u) : (tensor<*xf32>) -> ()
  %space_to_depth_x = arith.constant dense<[[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]], [[16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0], [28.0, 29.0, 30.0, 31.0]]]]> : tensor<1x2x4x4xf32>
  %space_to_depth_r = call @space_to_depth(%space_to_depth_x) : (tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32>
  %space_to_depth_r_u = tensor.cast %space_to_depth_r : tensor<1x8x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%space_to_depth_r_u) : (tensor<*xf32>) -> ()
  %reshape_dynamic_x = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %reshape_dynamic_x_d = tensor.cast %reshape_dynamic_x : tensor<2x3x4xf32> to tensor<?x3x4xf32>
  %reshape_dynamic_r = call @reshape_dynamic(%reshape_dynamic_x_d) : (tensor<?x3x4xf32>) -> tensor<?x?x2xf32>
  %reshape_dynamic_r_s = tensor.cast %reshape_dynamic_r : tensor<?x?x2xf32> to tensor<2x6x2xf32>
  %reshape_dynamic_r_s_u = tensor.cast %reshape_dynamic_r_s : tensor<2x6x2xf32> to tensor<*xf32>
  call @printMemrefF32(%reshape_dynamic_r_s_u) : (tensor<*xf32>) -> ()
  %flatten_x = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %flatten_r = call @flatten(%flatten_x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %flatten_r_u = tensor.cast %flatten_r : tensor<6x4xf32> to tensor<*xf32>
  call @printMemrefF32(%flatten_r_u) : (tensor<*xf32>) -> ()
  %tile_x = arith.constant dense<[[-8.0, -8.0, 8.0], [0.0, 5.0, 3.0]]> : tensor<2x3xf32>
  %tile_r = call @tile(%tile_x) : (tensor<2x3xf32>) -> tensor<4x6xf32>
  %tile_r_u = tensor.cast %tile_r : tensor<4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%tile_r_u) : (tensor<*xf32>) -> ()
  %expand_x = arith.constant dense<[[3.0], [-3.0], [-3.0]]> : tensor<3x1xf32>
  %expand_r = call @expand(%expand_x) : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %expand_r_u = tensor.cast %expand_r : tensor<2x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%expand_r_u) : (tensor<*xf32>) -> ()
  %resize_nearest_asymmetric_x = arith.constant dense<[[[[-9.0, 4.0, 2.0], [-8.0, -3.0, 7.0]]]]> : tensor<1x1x2x3xf32>
  %resize_nearest_asymmetric_r = call @resize_nearest_asymmetric(%resize_nearest_asymmetric_x) : (tensor<1x1x2x3xf32>) -> tensor<1x1x4x6xf32>
  %resize_nearest_asymmetric_r_u = tensor.cast %resize_nearest_asymmetric_r : tensor<1x1x4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%resize_nearest_asymmetric_r_u) : (tensor<*xf32>) -> ()
  %resize_nearest_half_pixel_x = arith.constant dense<[[[[-1.0, -6.0, 1.0, 0.0, -1.0], [-4.0, -3.0, 0.0, -5.0, -4.0], [1.0, 2.0, 9.0, 9.0, 7.0], [-6.0, -8.0, 2.0, 2.0, 9.0], [-4.0, -3.0, 6.0, 5.0, -7.0]]]]> : tensor<1x1x5x5xf32>
  %resize_nearest_half_pixel_r = call @resize_nearest_half_pixel(%resize_nearest_half_pixel_x) : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %resize_nearest_half_pixel_r_u = tensor.cast %resize_nearest_half_pixel_r : tensor<1x1x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%resize_nearest_half_pixel_r_u) : (tensor<*xf32>) -> ()
  %resize_linear_half_pixel_x = arith.constant dense<[[[[3.0, -7.0], [5.0, -4.0]]]]> : tensor<1x1x2x2xf32>
  %resize_linear_half_pixel_r = call @resize_linear_half_pixel(%resize_linear_half_pixel_x) : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %resize_linear_half_pixel_r_u = tensor.cast %resize_linear_half_pixel_r : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%resize_linear_half_pixel_r_u) : (tensor<*xf32>) -> ()
  %resize_linear_align_corners_x = arith.constant dense<[[[[-2.0, -5.0, -3.0], [-2.0, -3.0, -1.0]]]]> : tensor<1x1x2x3xf32>
  %resize_linear_align_corners_r = call @resize_linear_align_corners(%resize_linear_align_corners_x) : (tensor<1x1x2x3xf32>) -> tensor<1x1x3x4xf32>
  %resize_linear_align_corners_r_q = call @scale_round_1x1x3x4(%resize_linear_align_corners_r) : (tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %resize_linear_align_corners_r_q_u = tensor.cast %resize_linear_align_corners_r_q : tensor<1x1x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%resize_linear_align_corners_r_q_u) : (tensor<*xf32>) -> ()
  return
}

// @concat
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 4, 2] strides = {{.*}} data =
// CHECK-NEXT: [9, 7]
// CHECK-NEXT: [1, 5]
// CHECK-NEXT: [-3, 9]
// CHECK-NEXT: [9, 8]
// CHECK-NEXT: [-7, -3]
// CHECK-NEXT: [2, 8]
// CHECK-NEXT: [1, 8]
// CHECK-NEXT: [3, 2]
// @transpose
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [4, 2, 3] strides = {{.*}} data =
// CHECK-NEXT: [0, 4, 8]
// CHECK-NEXT: [12, 16, 20]
// CHECK-NEXT: [1, 5, 9]
// CHECK-NEXT: [13, 17, 21]
// CHECK-NEXT: [2, 6, 10]
// CHECK-NEXT: [14, 18, 22]
// CHECK-NEXT: [3, 7, 11]
// CHECK-NEXT: [15, 19, 23]
// @slice_negative_step: rows 4, 2, 0 (step -2, end clamped), columns 1, 3, 5
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [3, 3] strides = {{.*}} data =
// CHECK-NEXT: [25, 27, 29]
// CHECK-NEXT: [13, 15, 17]
// CHECK-NEXT: [1, 3, 5]
// @slice_dynamic: ends from the end of a dynamic dim
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [5, 4] strides = {{.*}} data =
// CHECK-NEXT: [1, 2, 3, 4]
// CHECK-NEXT: [7, 8, 9, 10]
// CHECK-NEXT: [13, 14, 15, 16]
// CHECK-NEXT: [19, 20, 21, 22]
// CHECK-NEXT: [25, 26, 27, 28]
// @split_swap: split then concat the pieces swapped
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 5] strides = {{.*}} data =
// CHECK-NEXT: [9, -2, 6, -6, -6]
// CHECK-NEXT: [2, 6, 8, -8, 1]
// @pad_reflect: pads [1, 2] before, [2, 1] after
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [6, 7] strides = {{.*}} data =
// CHECK-NEXT: [6, 5, 4, 5, 6, 7, 6]
// CHECK-NEXT: [2, 1, 0, 1, 2, 3, 2]
// CHECK-NEXT: [6, 5, 4, 5, 6, 7, 6]
// CHECK-NEXT: [10, 9, 8, 9, 10, 11, 10]
// CHECK-NEXT: [6, 5, 4, 5, 6, 7, 6]
// CHECK-NEXT: [2, 1, 0, 1, 2, 3, 2]
// @pad_edge: pads [1, 2] before, [2, 1] after
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [6, 7] strides = {{.*}} data =
// CHECK-NEXT: [0, 0, 0, 1, 2, 3, 3]
// CHECK-NEXT: [0, 0, 0, 1, 2, 3, 3]
// CHECK-NEXT: [4, 4, 4, 5, 6, 7, 7]
// CHECK-NEXT: [8, 8, 8, 9, 10, 11, 11]
// CHECK-NEXT: [8, 8, 8, 9, 10, 11, 11]
// CHECK-NEXT: [8, 8, 8, 9, 10, 11, 11]
// @pad_wrap: pads [1, 2] before, [2, 1] after
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [6, 7] strides = {{.*}} data =
// CHECK-NEXT: [10, 11, 8, 9, 10, 11, 8]
// CHECK-NEXT: [2, 3, 0, 1, 2, 3, 0]
// CHECK-NEXT: [6, 7, 4, 5, 6, 7, 4]
// CHECK-NEXT: [10, 11, 8, 9, 10, 11, 8]
// CHECK-NEXT: [2, 3, 0, 1, 2, 3, 0]
// CHECK-NEXT: [6, 7, 4, 5, 6, 7, 4]
// @pad_constant_crop: a negative pad crops
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [4, 5] strides = {{.*}} data =
// CHECK-NEXT: [7.5, 7.5, 7.5, 7.5, 7.5]
// CHECK-NEXT: [1, 2, 3, 7.5, 7.5]
// CHECK-NEXT: [5, 6, 7, 7.5, 7.5]
// CHECK-NEXT: [9, 10, 11, 7.5, 7.5]
// @depth_to_space_dcr: ONNX reshape-transpose-reshape definition
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 4, 4] strides = {{.*}} data =
// CHECK-NEXT: [0, 8, 1, 9]
// CHECK-NEXT: [16, 24, 17, 25]
// CHECK-NEXT: [2, 10, 3, 11]
// CHECK-NEXT: [18, 26, 19, 27]
// CHECK-NEXT: [4, 12, 5, 13]
// CHECK-NEXT: [20, 28, 21, 29]
// CHECK-NEXT: [6, 14, 7, 15]
// CHECK-NEXT: [22, 30, 23, 31]
// @depth_to_space_crd: ONNX reshape-transpose-reshape definition
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 2, 4, 4] strides = {{.*}} data =
// CHECK-NEXT: [0, 4, 1, 5]
// CHECK-NEXT: [8, 12, 9, 13]
// CHECK-NEXT: [2, 6, 3, 7]
// CHECK-NEXT: [10, 14, 11, 15]
// CHECK-NEXT: [16, 20, 17, 21]
// CHECK-NEXT: [24, 28, 25, 29]
// CHECK-NEXT: [18, 22, 19, 23]
// CHECK-NEXT: [26, 30, 27, 31]
// @space_to_depth
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 8, 2, 2] strides = {{.*}} data =
// CHECK-NEXT: [0, 2]
// CHECK-NEXT: [8, 10]
// CHECK-NEXT: [16, 18]
// CHECK-NEXT: [24, 26]
// CHECK-NEXT: [1, 3]
// CHECK-NEXT: [9, 11]
// CHECK-NEXT: [17, 19]
// CHECK-NEXT: [25, 27]
// CHECK-NEXT: [4, 6]
// CHECK-NEXT: [12, 14]
// CHECK-NEXT: [20, 22]
// CHECK-NEXT: [28, 30]
// CHECK-NEXT: [5, 7]
// CHECK-NEXT: [13, 15]
// CHECK-NEXT: [21, 23]
// CHECK-NEXT: [29, 31]
// @reshape_dynamic: 0 copies the dynamic dim, -1 is inferred at run time (tensor.reshape)
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 6, 2] strides = {{.*}} data =
// CHECK-NEXT: [0, 1]
// CHECK-NEXT: [2, 3]
// CHECK-NEXT: [4, 5]
// CHECK-NEXT: [6, 7]
// CHECK-NEXT: [8, 9]
// CHECK-NEXT: [10, 11]
// CHECK-NEXT: [12, 13]
// CHECK-NEXT: [14, 15]
// CHECK-NEXT: [16, 17]
// CHECK-NEXT: [18, 19]
// CHECK-NEXT: [20, 21]
// CHECK-NEXT: [22, 23]
// @flatten
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [6, 4] strides = {{.*}} data =
// CHECK-NEXT: [0, 1, 2, 3]
// CHECK-NEXT: [4, 5, 6, 7]
// CHECK-NEXT: [8, 9, 10, 11]
// CHECK-NEXT: [12, 13, 14, 15]
// CHECK-NEXT: [16, 17, 18, 19]
// CHECK-NEXT: [20, 21, 22, 23]
// @tile
// CHECK: rank = 2 offset = {{[0-9]+}} sizes = [4, 6] strides = {{.*}} data =
// CHECK-NEXT: [-8, -8, 8, -8, -8, 8]
// CHECK-NEXT: [0, 5, 3, 0, 5, 3]
// CHECK-NEXT: [-8, -8, 8, -8, -8, 8]
// CHECK-NEXT: [0, 5, 3, 0, 5, 3]
// @expand
// CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 3, 4] strides = {{.*}} data =
// CHECK-NEXT: [3, 3, 3, 3]
// CHECK-NEXT: [-3, -3, -3, -3]
// CHECK-NEXT: [-3, -3, -3, -3]
// CHECK-NEXT: [3, 3, 3, 3]
// CHECK-NEXT: [-3, -3, -3, -3]
// CHECK-NEXT: [-3, -3, -3, -3]
// @resize_nearest_asymmetric: Upsample-style x2
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 1, 4, 6] strides = {{.*}} data =
// CHECK-NEXT: [-9, -9, 4, 4, 2, 2]
// CHECK-NEXT: [-9, -9, 4, 4, 2, 2]
// CHECK-NEXT: [-8, -8, -3, -3, 7, 7]
// CHECK-NEXT: [-8, -8, -3, -3, 7, 7]
// @resize_nearest_half_pixel: downsample, defaults
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 1, 3, 3] strides = {{.*}} data =
// CHECK-NEXT: [-1, 1, -1]
// CHECK-NEXT: [1, 9, 7]
// CHECK-NEXT: [-4, 6, -7]
// @resize_linear_half_pixel: bilinear x2, edges clamped
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 1, 4, 4] strides = {{.*}} data =
// CHECK-NEXT: [3, 0.5, -4.5, -7]
// CHECK-NEXT: [3.5, 1.0625, -3.8125, -6.25]
// CHECK-NEXT: [4.5, 2.1875, -2.4375, -4.75]
// CHECK-NEXT: [5, 2.75, -1.75, -4]
// @resize_linear_align_corners: sizes operand (x 1e3, rounded)
// CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 1, 3, 4] strides = {{.*}} data =
// CHECK-NEXT: [-2000, -4000, -4333, -3000]
// CHECK-NEXT: [-2000, -3333, -3333, -2000]
// CHECK-NEXT: [-2000, -2667, -2333, -1000]
