// RUN: kiln-opt %s -split-input-file -kiln-layout-nhwc | FileCheck %s

// Tests that a residual block (conv, batch_norm, relu, conv, add, relu) runs
// NHWC from one transpose of the input to one transpose of the result: the
// transposes between the ops cancel, batch_norm becomes channels_last, and
// the constant filters are packed OIHW -> OHWI at compile time. The first
// filter holds its flat OIHW index (o*27 + i*9 + h*3 + w), so OHWI element
// [o][h][w][i] reads back that index: [0][0][0][:] = 0, 9, 18 and
// [1][2][2][:] = 35, 44, 53. A splat filter stays a splat.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x3x8x8xf32>, %[[S:[^:]+]]: tensor<2xf32>, %[[B:[^:]+]]: tensor<2xf32>, %[[M:[^:]+]]: tensor<2xf32>, %[[V:[^:]+]]: tensor<2xf32>)
// CHECK-NEXT:    %[[XT:.+]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    %[[W1:.+]] = kiln.constant dense<{{\[\[\[\[}}0.000000e+00, 9.000000e+00, 1.800000e+01], [1.000000e+00, 1.000000e+01, 1.900000e+01], [2.000000e+00, 1.100000e+01, 2.000000e+01]], {{.*}}]]], {{\[\[\[}}2.700000e+01, 3.600000e+01, 4.500000e+01], {{.*}}, [3.500000e+01, 4.400000e+01, 5.300000e+01]]]]> : tensor<2x3x3x3xf32>
// CHECK-NEXT:    %[[C1:.+]] = kiln.conv %[[XT]], %[[W1]] {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x8x8x2xf32>
// CHECK-NEXT:    %[[BN:.+]] = kiln.batch_norm %[[C1]], %[[S]], %[[B]], %[[M]], %[[V]] {channels_last = true, epsilon = 1.000000e-03 : f32} : (tensor<1x8x8x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x8x8x2xf32>
// CHECK-NEXT:    %[[R1:.+]] = kiln.relu %[[BN]] : tensor<1x8x8x2xf32>
// CHECK-NEXT:    %[[W2:.+]] = kiln.constant dense<5.000000e-01> : tensor<2x3x3x2xf32>
// CHECK-NEXT:    %[[C2:.+]] = kiln.conv %[[R1]], %[[W2]] {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<2x3x3x2xf32>) -> tensor<1x8x8x2xf32>
// CHECK-NEXT:    %[[A:.+]] = kiln.add %[[C2]], %[[R1]] : (tensor<1x8x8x2xf32>, tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
// CHECK-NEXT:    %[[R2:.+]] = kiln.relu %[[A]] : tensor<1x8x8x2xf32>
// CHECK-NEXT:    %[[Y:.+]] = kiln.transpose %[[R2]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x2xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    return %[[Y]] : tensor<1x2x8x8xf32>
// CHECK-NOT:     tensor<2x3x3x3xf32>
func.func @main(%x: tensor<1x3x8x8xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x8x8xf32> {
  %w1 = kiln.constant dense<[[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]], [[9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]], [[18.0, 19.0, 20.0], [21.0, 22.0, 23.0], [24.0, 25.0, 26.0]]], [[[27.0, 28.0, 29.0], [30.0, 31.0, 32.0], [33.0, 34.0, 35.0]], [[36.0, 37.0, 38.0], [39.0, 40.0, 41.0], [42.0, 43.0, 44.0]], [[45.0, 46.0, 47.0], [48.0, 49.0, 50.0], [51.0, 52.0, 53.0]]]]> : tensor<2x3x3x3xf32>
  %w2 = kiln.constant dense<5.000000e-01> : tensor<2x2x3x3xf32>
  %c1 = kiln.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x8x8xf32>
  %n = kiln.batch_norm %c1, %s, %b, %m, %v {epsilon = 1.000000e-03 : f32} : (tensor<1x2x8x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %r1 = kiln.relu %n : tensor<1x2x8x8xf32>
  %c2 = kiln.conv %r1, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x8x8xf32>
  %a = kiln.add %c2, %r1 : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %r2 = kiln.relu %a : tensor<1x2x8x8xf32>
  return %r2 : tensor<1x2x8x8xf32>
}

// -----

// Tests that a max_pool after conv + relu becomes channels_last (NHWC
// result [1, 4, 4, 8]) with its window attributes and ceil_mode kept, and
// that the only transpose back is after it.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT:    %[[XT:.+]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT:    %[[W:.+]] = kiln.constant dense<2.500000e-01> : tensor<8x3x3x3xf32>
// CHECK-NEXT:    %[[C:.+]] = kiln.conv %[[XT]], %[[W]] {channels_last = true, {{.+}}} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:    %[[R:.+]] = kiln.relu %[[C]] : tensor<1x8x8x8xf32>
// CHECK-NEXT:    %[[P:.+]] = kiln.max_pool %[[R]] {ceil_mode = true, channels_last = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[Y:.+]] = kiln.transpose %[[P]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %w = kiln.constant dense<2.500000e-01> : tensor<8x3x3x3xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %r = kiln.relu %c : tensor<1x8x8x8xf32>
  %p = kiln.max_pool %r {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  return %p : tensor<1x8x4x4xf32>
}

// -----

// Tests that reductions keeping their dims run on the NHWC value with the
// axes renumbered (NCHW [2, 3] -> NHWC [1, 2], NCHW [1] -> NHWC [3]) and
// that the transposes back, which then only move dims of size 1, become
// kiln.reshape.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT:    %[[XT:.+]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[W:.+]] = kiln.constant dense<1.000000e+00> : tensor<4x1x1x3xf32>
// CHECK-NEXT:    %[[C:.+]] = kiln.conv %[[XT]], %[[W]] {channels_last = true, {{.+}}} : (tensor<1x8x8x3xf32>, tensor<4x1x1x3xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %[[MEAN:.+]] = kiln.reduce_mean %[[C]] {axes = array<i64: 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x1x1x4xf32>
// CHECK-NEXT:    %[[S1:.+]] = kiln.constant dense<[1, 4, 1, 1]> : tensor<4xi64>
// CHECK-NEXT:    %[[Y1:.+]] = kiln.reshape %[[MEAN]], %[[S1]] : (tensor<1x1x1x4xf32>, tensor<4xi64>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    %[[MAX:.+]] = kiln.reduce_max %[[C]] {axes = array<i64: 3>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x1xf32>
// CHECK-NEXT:    %[[S2:.+]] = kiln.constant dense<[1, 1, 8, 8]> : tensor<4xi64>
// CHECK-NEXT:    %[[Y2:.+]] = kiln.reshape %[[MAX]], %[[S2]] : (tensor<1x8x8x1xf32>, tensor<4xi64>) -> tensor<1x1x8x8xf32>
// CHECK-NEXT:    return %[[Y1]], %[[Y2]]
func.func @main(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x1x1xf32>, tensor<1x1x8x8xf32>) {
  %w = kiln.constant dense<1.000000e+00> : tensor<4x3x1x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  %m = kiln.reduce_mean %c {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %n = kiln.reduce_max %c {axes = array<i64: 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %m, %n : tensor<1x4x1x1xf32>, tensor<1x1x8x8xf32>
}

// -----

// Tests that a depthwise conv (group = C = M, filter [C, 1, 3, 3]) becomes
// channels_last with its group kept and the filter packed to [C, 3, 3, 1]
// (with one input channel per group, OHWI keeps the OIHW element order).
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x2x5x5xf32>)
// CHECK-NEXT:    %[[XT:.+]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x5x5x2xf32>
// CHECK-NEXT:    %[[W:.+]] = kiln.constant dense<{{\[\[\[\[}}1.000000e+00], [2.000000e+00], [3.000000e+00]], {{.*}}, [1.800000e+01]]]]> : tensor<2x3x3x1xf32>
// CHECK-NEXT:    %[[C:.+]] = kiln.conv %[[XT]], %[[W]] {channels_last = true, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x5x5x2xf32>, tensor<2x3x3x1xf32>) -> tensor<1x5x5x2xf32>
// CHECK-NEXT:    %[[Y:.+]] = kiln.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x2xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @main(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %w = kiln.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]], [[[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]]]]> : tensor<2x1x3x3xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %c : tensor<1x2x5x5xf32>
}

// -----

// Tests that a grouped conv that is not depthwise (group 2 of 4 channels)
// becomes channels_last too, its filter packed OIHW -> OHWI like any other
// ([4, 3, 3, 2]: each group's 2 channels innermost).
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x4x6x6xf32>, %[[W:[^:]+]]: tensor<4x2x3x3xf32>)
// CHECK:         %[[XT:.+]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK:         %[[WT:.+]] = kiln.transpose %[[W]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK:         %[[C:.+]] = kiln.conv %[[XT]], %[[WT]] {channels_last = true, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x4x4xf32>
// CHECK:         kiln.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
func.func @main(%x: tensor<1x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// -----

// Tests that a filter that is not a constant is transposed OIHW -> OHWI at
// run time by a kiln.transpose.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x2x6x6xf32>, %[[W:[^:]+]]: tensor<4x2x3x3xf32>)
// CHECK-NEXT:    %[[XT:.+]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x6x6xf32>) -> tensor<1x6x6x2xf32>
// CHECK-NEXT:    %[[WT:.+]] = kiln.transpose %[[W]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<4x2x3x3xf32>) -> tensor<4x3x3x2xf32>
// CHECK-NEXT:    %[[C:.+]] = kiln.conv %[[XT]], %[[WT]] {channels_last = true, {{.+}}} : (tensor<1x6x6x2xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[Y:.+]] = kiln.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @main(%x: tensor<1x2x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// -----

// Tests that a binary op with a single-element operand moves to NHWC but
// one that broadcasts a [1, C, 1, 1] operand stops the movement: the
// transpose back comes before it and it stays NCHW.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x3x6x6xf32>, %[[S:[^:]+]]: tensor<f32>, %[[K:[^:]+]]: tensor<1x8x1x1xf32>)
// CHECK:         %[[C:.+]] = kiln.conv {{.+}} -> tensor<1x6x6x8xf32>
// CHECK-NEXT:    %[[MS:.+]] = kiln.mul %[[C]], %[[S]] : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
// CHECK-NEXT:    %[[T:.+]] = kiln.transpose %[[MS]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x8xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:    %[[MK:.+]] = kiln.mul %[[T]], %[[K]] : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:    %[[R:.+]] = kiln.relu %[[MK]] : tensor<1x8x6x6xf32>
// CHECK-NEXT:    return %[[R]]
func.func @main(%x: tensor<1x3x6x6xf32>, %s: tensor<f32>, %k: tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %w = kiln.constant dense<1.000000e+00> : tensor<8x3x1x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x6x6xf32>
  %ms = kiln.mul %c, %s : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  %mk = kiln.mul %ms, %k : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %r = kiln.relu %mk : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

// -----

// Tests that a squeeze-and-excitation scale stays channels-last: the map's
// mean over H and W (NHWC [1, 1, 1, 8]) through a sigmoid times the map
// broadcasts alike in either layout, so the mul moves too and the only
// transpose back is the result's.
// CHECK-LABEL: func.func @main
// CHECK:         %[[C:.+]] = kiln.conv {{.+}} -> tensor<1x6x6x8xf32>
// CHECK-NEXT:    %[[M:.+]] = kiln.reduce_mean %[[C]] {axes = array<i64: 1, 2>} : (tensor<1x6x6x8xf32>) -> tensor<1x1x1x8xf32>
// CHECK-NEXT:    %[[S:.+]] = kiln.sigmoid %[[M]] : tensor<1x1x1x8xf32>
// CHECK-NEXT:    %[[Y:.+]] = kiln.mul %[[C]], %[[S]] : (tensor<1x6x6x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x6x6x8xf32>
// CHECK-NEXT:    %[[T:.+]] = kiln.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x8xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:    return %[[T]]
func.func @main(%x: tensor<1x3x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %w = kiln.constant dense<1.000000e+00> : tensor<8x3x1x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x6x6xf32>
  %m = kiln.reduce_mean %c {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x8x6x6xf32>) -> tensor<1x8x1x1xf32>
  %s = kiln.sigmoid %m : tensor<1x8x1x1xf32>
  %y = kiln.mul %c, %s : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}

// -----

// Tests that a channel shuffle (ShuffleNet: reshape [1, 8, 6, 6] -> [1, 2, 4,
// 6, 6], swap the two channel dims, reshape back) and the channel slice
// after it stay channels-last: the NHWC map is reshaped to [1, 6, 6, 2, 4],
// its last two dims swapped, reshaped to [1, 6, 6, 8], and sliced along
// axis 3; the only transpose back is the result's.
// CHECK-LABEL: func.func @main
// CHECK:         %[[C:.+]] = kiln.conv {{.+}} -> tensor<1x6x6x8xf32>
// CHECK:         %[[S:.+]] = kiln.reshape %[[C]], %{{.+}} : (tensor<1x6x6x8xf32>, tensor<5xi64>) -> tensor<1x6x6x2x4xf32>
// CHECK:         %[[T:.+]] = kiln.transpose %[[S]] {perm = array<i64: 0, 1, 2, 4, 3>} : (tensor<1x6x6x2x4xf32>) -> tensor<1x6x6x4x2xf32>
// CHECK:         %[[M:.+]] = kiln.reshape %[[T]], %{{.+}} : (tensor<1x6x6x4x2xf32>, tensor<4xi64>) -> tensor<1x6x6x8xf32>
// CHECK:         %[[AX:.+]] = kiln.constant dense<3> : tensor<1xi64>
// CHECK:         %[[H:.+]] = kiln.slice %[[M]], %{{.+}}, %{{.+}}, %[[AX]], %{{.+}} : {{.+}} -> tensor<1x6x6x4xf32>
// CHECK-NEXT:    %[[Y:.+]] = kiln.transpose %[[H]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x4xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @main(%x: tensor<1x3x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %w = kiln.constant dense<1.000000e+00> : tensor<8x3x1x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x6x6xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x6x6xf32>
  %s5 = kiln.constant dense<[1, 2, 4, 6, 6]> : tensor<5xi64>
  %r = kiln.reshape %c, %s5 : (tensor<1x8x6x6xf32>, tensor<5xi64>) -> tensor<1x2x4x6x6xf32>
  %t = kiln.transpose %r {perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x4x6x6xf32>) -> tensor<1x4x2x6x6xf32>
  %s4 = kiln.constant dense<[1, 8, 6, 6]> : tensor<4xi64>
  %m = kiln.reshape %t, %s4 : (tensor<1x4x2x6x6xf32>, tensor<4xi64>) -> tensor<1x8x6x6xf32>
  %b = kiln.constant dense<0> : tensor<1xi64>
  %e = kiln.constant dense<4> : tensor<1xi64>
  %a = kiln.constant dense<1> : tensor<1xi64>
  %st = kiln.constant dense<1> : tensor<1xi64>
  %h = kiln.slice %m, %b, %e, %a, %st : (tensor<1x8x6x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4x6x6xf32>
  return %h : tensor<1x4x6x6xf32>
}

// -----

// Tests that a conv with a dynamic batch stays NCHW with its OIHW filter.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x8x8xf32>)
// CHECK-NOT:     kiln.transpose
// CHECK:         %[[W:.+]] = kiln.constant dense<1.000000e+00> : tensor<4x3x3x3xf32>
// CHECK-NEXT:    %[[C:.+]] = kiln.conv %[[X]], %[[W]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
// CHECK-NEXT:    %[[R:.+]] = kiln.relu %[[C]] : tensor<?x4x8x8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @main(%x: tensor<?x3x8x8xf32>) -> tensor<?x4x8x8xf32> {
  %w = kiln.constant dense<1.000000e+00> : tensor<4x3x3x3xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32>
  %r = kiln.relu %c : tensor<?x4x8x8xf32>
  return %r : tensor<?x4x8x8xf32>
}

// -----

// Tests that an f16 image of 3 channels (an RGB stem) is padded to 8 zero
// channels after its transpose, and its filter packed OHWI with zero taps
// for channels 3..7 and marked kiln.derived (not a tensor of the model:
// stripped plans keep it). Filter value 10*o + i (o, i: output and input
// channel) shows the order: pixel (0, 0) of filter 1 is [10, 11, 12, 0, ...].
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x3x4x4xf16>)
// CHECK:         %[[T:.+]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x4xf16>) -> tensor<1x4x4x3xf16>
// CHECK:         %[[W:.+]] = kiln.constant {kiln.derived} dense<{{\[\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]], {{\[\[\[}}1.000000e+01, 1.100000e+01, 1.200000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<2x1x1x8xf16>
// CHECK:         %[[PADS:.+]] = kiln.constant dense<[0, 0, 0, 0, 0, 0, 0, 5]> : tensor<8xi64>
// CHECK:         %[[P:.+]] = kiln.pad %[[T]], %[[PADS]] : (tensor<1x4x4x3xf16>, tensor<8xi64>) -> tensor<1x4x4x8xf16>
// CHECK:         %[[C:.+]] = kiln.conv %[[P]], %[[W]] {channels_last = true, {{.*}}} : (tensor<1x4x4x8xf16>, tensor<2x1x1x8xf16>) -> tensor<1x4x4x2xf16>
// CHECK:         kiln.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
func.func @main(%x: tensor<1x3x4x4xf16>) -> tensor<1x2x4x4xf16> {
  %w = kiln.constant dense<[[[[0.0]], [[1.0]], [[2.0]]], [[[10.0]], [[11.0]], [[12.0]]]]> : tensor<2x3x1x1xf16>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xf16>, tensor<2x3x1x1xf16>) -> tensor<1x2x4x4xf16>
  return %c : tensor<1x2x4x4xf16>
}

// -----

// Tests that an f16 grouped conv with few channels per group (2 groups of 2
// channels and 2 filters) runs as the dense conv of group 1: its constant
// filter becomes block diagonal over the channels, OHWI [4, 1, 1, 4], marked
// kiln.derived (not a tensor of the model).
// CHECK-LABEL: func.func @main
// CHECK:         %[[W:.+]] = kiln.constant {kiln.derived} dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00]]], {{\[}}{{\[}}[3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00]]], {{\[}}{{\[}}[0.000000e+00, 0.000000e+00, 5.000000e+00, 6.000000e+00]]], {{\[}}{{\[}}[0.000000e+00, 0.000000e+00, 7.000000e+00, 8.000000e+00]]]]> : tensor<4x1x1x4xf16>
// CHECK:         kiln.conv %{{.+}}, %[[W]] {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x6x6x4xf16>, tensor<4x1x1x4xf16>) -> tensor<1x6x6x4xf16>
func.func @main(%x: tensor<1x4x6x6xf16>) -> tensor<1x4x6x6xf16> {
  %w = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[5.0]], [[6.0]]], [[[7.0]], [[8.0]]]]> : tensor<4x2x1x1xf16>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x6x6xf16>, tensor<4x2x1x1xf16>) -> tensor<1x4x6x6xf16>
  return %c : tensor<1x4x6x6xf16>
}

// -----

// Tests that a concat of NHWC values along the channels (NCHW axis 1) runs
// on them along NHWC axis 3, so that one transpose back follows it, and
// that a concat with an NCHW input (the graph input) stays NCHW.
// CHECK-LABEL: func.func @main
// CHECK:         %[[C1:.+]] = kiln.conv {{.*}} -> tensor<1x8x8x4xf32>
// CHECK:         %[[C2:.+]] = kiln.conv {{.*}} -> tensor<1x8x8x6xf32>
// CHECK-NEXT:    %[[CAT:.+]] = kiln.concat %[[C1]], %[[C2]] {axis = 3 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x6xf32>) -> tensor<1x8x8x10xf32>
// CHECK-NEXT:    %[[Y:.+]] = kiln.transpose %[[CAT]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x10xf32>) -> tensor<1x10x8x8xf32>
// CHECK:         kiln.concat %[[Y]], %{{.+}} {axis = 1 : i64} : (tensor<1x10x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x13x8x8xf32>
func.func @main(%x: tensor<1x3x8x8xf32>) -> tensor<1x13x8x8xf32> {
  %w1 = kiln.constant dense<2.500000e-01> : tensor<4x3x1x1xf32>
  %w2 = kiln.constant dense<1.250000e-01> : tensor<6x3x3x3xf32>
  %c1 = kiln.conv %x, %w1 {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x8x8xf32>
  %c2 = kiln.conv %x, %w2 {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x8x8xf32>
  %cat = kiln.concat %c1, %c2 {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x6x8x8xf32>) -> tensor<1x10x8x8xf32>
  %all = kiln.concat %cat, %x {axis = 1 : i64} : (tensor<1x10x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<1x13x8x8xf32>
  return %all : tensor<1x13x8x8xf32>
}
