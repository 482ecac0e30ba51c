// RUN: kiln-opt %s -split-input-file -kiln-fuse-sibling-convs | FileCheck %s

// Tests that ResNet's first bottleneck, channels-last, fuses its two 1x1 convs:
// the 1x1 reduction (batch norm, relu, read by a 3x3 conv) and the 1x1
// downsample (batch norm, read by the residual add) of one input become one
// conv of 16 + 32 output channels: filters and batch norm parameters
// concatenated (each part a multiple of 64 bytes: kiln.stack_parts = [16, 32]),
// one prelu whose slope is 0 on the reduction's channels and 1 on the
// downsample's, and a slice per old result that its reader takes.
// CHECK-LABEL: func.func @bottleneck
// CHECK-SAME:    (%[[X:.+]]: tensor<1x4x4x2xf32>
// (The reduction's filter first: 1.0, 1.5, ...; the downsample's last: ... 131.5.)
// CHECK:         %[[W:.+]] = kiln.constant {kiln.stack_parts = array<i64: 16, 32>} dense<{{\[\[\[\[}}1.000000e+00, 1.500000e+00]]]{{.*}}1.315000e+02]]]]> : tensor<48x1x1x2xf32>
// CHECK:         %[[Y:.+]] = kiln.conv %[[X]], %[[W]] {{.*}}channels_last = true{{.*}} : (tensor<1x4x4x2xf32>, tensor<48x1x1x2xf32>) -> tensor<1x4x4x48xf32>
// CHECK-COUNT-4: kiln.constant {kiln.stack_parts = array<i64: 16, 32>} dense<{{.*}}> : tensor<48xf32>
// CHECK:         %[[N:.+]] = kiln.batch_norm %[[Y]], {{.*}} {{.*}}channels_last = true{{.*}} -> tensor<1x4x4x48xf32>
// CHECK:         %[[S:.+]] = kiln.constant {kiln.derived} dense<[0.000000e+00, {{[0., e+, ]*}}0.000000e+00, 1.000000e+00, {{[1., e+0, ]*}}1.000000e+00]> : tensor<48xf32>
// CHECK:         %[[P:.+]] = kiln.prelu %[[N]], %[[S]] : (tensor<1x4x4x48xf32>, tensor<48xf32>) -> tensor<1x4x4x48xf32>
// CHECK:         %[[R:.+]] = kiln.slice %[[P]], {{.*}} -> tensor<1x4x4x16xf32>
// CHECK:         %[[D:.+]] = kiln.slice %[[P]], {{.*}} -> tensor<1x4x4x32xf32>
// CHECK-NOT:     kiln.relu %[[R]]
// CHECK:         kiln.conv %[[R]], %{{.+}}
// CHECK:         kiln.add %{{.+}}, %[[D]]
func.func @bottleneck(%x: tensor<1x4x4x2xf32>, %w2: tensor<32x3x3x16xf32>) -> tensor<1x4x4x32xf32> {
  %w1 = kiln.constant dense<"0x0000803F0000C03F0000004000002040000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F040000000410000084100001041000018410000204100002841000030410000384100004041000048410000504100005841000060410000684100007041000078410000804100008441"> : tensor<16x1x1x2xf32>
  %wd = kiln.constant dense<"0x0000C8420000C9420000CA420000CB420000CC420000CD420000CE420000CF420000D0420000D1420000D2420000D3420000D4420000D5420000D6420000D7420000D8420000D9420000DA420000DB420000DC420000DD420000DE420000DF420000E0420000E1420000E2420000E3420000E4420000E5420000E6420000E7420000E8420000E9420000EA420000EB420000EC420000ED420000EE420000EF420000F0420000F1420000F2420000F3420000F4420000F5420000F6420000F7420000F8420000F9420000FA420000FB420000FC420000FD420000FE420000FF420000004300800043000001430080014300000243008002430000034300800343"> : tensor<32x1x1x2xf32>
  %s16 = kiln.constant dense<"0x0000004000002040000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F04000000041000008410000104100001841"> : tensor<16xf32>
  %s32 = kiln.constant dense<"0x000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F0400000004100000841000010410000184100002041000028410000304100003841000040410000484100005041000058410000604100006841000070410000784100008041000084410000884100008C410000904100009441"> : tensor<32xf32>
  %c1 = kiln.conv %x, %w1 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<16x1x1x2xf32>) -> tensor<1x4x4x16xf32>
  %n1 = kiln.batch_norm %c1, %s16, %s16, %s16, %s16 {channels_last = true} : (tensor<1x4x4x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  %r1 = kiln.relu %n1 : tensor<1x4x4x16xf32>
  %c2 = kiln.conv %r1, %w2 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x16xf32>, tensor<32x3x3x16xf32>) -> tensor<1x4x4x32xf32>
  %cd = kiln.conv %x, %wd {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<32x1x1x2xf32>) -> tensor<1x4x4x32xf32>
  %nd = kiln.batch_norm %cd, %s32, %s32, %s32, %s32 {channels_last = true} : (tensor<1x4x4x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x4x4x32xf32>
  %sum = kiln.add %c2, %nd : (tensor<1x4x4x32xf32>, tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  return %sum : tensor<1x4x4x32xf32>
}

// -----

// Tests that Inception's reductions fuse: two convs with biases, each followed
// by a relu and read by a conv. The relu runs once after the fused conv (no
// prelu).
// CHECK-LABEL: func.func @same_activation
// CHECK:         %[[Y:.+]] = kiln.conv %{{.+}}, %{{.+}}, %{{.+}} {{.*}} -> tensor<1x4x4x48xf32>
// CHECK-NEXT:    %[[R:.+]] = kiln.relu %[[Y]] : tensor<1x4x4x48xf32>
// CHECK-NOT:     kiln.prelu
// CHECK:         %[[A:.+]] = kiln.slice %[[R]], {{.*}} -> tensor<1x4x4x16xf32>
// CHECK:         %[[B:.+]] = kiln.slice %[[R]], {{.*}} -> tensor<1x4x4x32xf32>
// CHECK:         kiln.conv %[[A]],
// CHECK:         kiln.conv %[[B]],
func.func @same_activation(%x: tensor<1x4x4x2xf32>, %wa: tensor<8x3x3x16xf32>, %wb: tensor<8x5x5x32xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) {
  %w1 = kiln.constant dense<"0x0000803F0000C03F0000004000002040000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F040000000410000084100001041000018410000204100002841000030410000384100004041000048410000504100005841000060410000684100007041000078410000804100008441"> : tensor<16x1x1x2xf32>
  %wd = kiln.constant dense<"0x0000C8420000C9420000CA420000CB420000CC420000CD420000CE420000CF420000D0420000D1420000D2420000D3420000D4420000D5420000D6420000D7420000D8420000D9420000DA420000DB420000DC420000DD420000DE420000DF420000E0420000E1420000E2420000E3420000E4420000E5420000E6420000E7420000E8420000E9420000EA420000EB420000EC420000ED420000EE420000EF420000F0420000F1420000F2420000F3420000F4420000F5420000F6420000F7420000F8420000F9420000FA420000FB420000FC420000FD420000FE420000FF420000004300800043000001430080014300000243008002430000034300800343"> : tensor<32x1x1x2xf32>
  %b16 = kiln.constant dense<"0x0000004000002040000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F04000000041000008410000104100001841"> : tensor<16xf32>
  %b32 = kiln.constant dense<"0x000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F0400000004100000841000010410000184100002041000028410000304100003841000040410000484100005041000058410000604100006841000070410000784100008041000084410000884100008C410000904100009441"> : tensor<32xf32>
  %c1 = kiln.conv %x, %w1, %b16 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<16x1x1x2xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  %r1 = kiln.relu %c1 : tensor<1x4x4x16xf32>
  %c2 = kiln.conv %x, %wd, %b32 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<32x1x1x2xf32>, tensor<32xf32>) -> tensor<1x4x4x32xf32>
  %r2 = kiln.relu %c2 : tensor<1x4x4x32xf32>
  %a = kiln.conv %r1, %wa {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x16xf32>, tensor<8x3x3x16xf32>) -> tensor<1x4x4x8xf32>
  %b = kiln.conv %r2, %wb {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x4x4x32xf32>, tensor<8x5x5x32xf32>) -> tensor<1x4x4x8xf32>
  return %a, %b : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>
}

// -----

// Tests that NCHW convs (no layout pass) fuse too: slices along axis 1, the
// slopes [M, 1, 1]; a leaky_relu part (slope 0.1) next to a plain one. The
// biases of 8 f32 (32 bytes) cannot be the plan's back-to-back parts:
// kiln.derived.
// CHECK-LABEL: func.func @nchw_leaky
// CHECK:         %[[B:.+]] = kiln.constant {kiln.derived} dense<{{.*}}> : tensor<16xf32>
// CHECK:         %[[Y:.+]] = kiln.conv %{{.+}}, %{{.+}}, %[[B]] {{.*}} -> tensor<1x16x4x4xf32>
// CHECK:         %[[S:.+]] = kiln.constant {kiln.derived} dense<{{\[\[\[}}1.000000e-01]]{{.*}}1.000000e+00]]]> : tensor<16x1x1xf32>
// CHECK:         %[[P:.+]] = kiln.prelu %[[Y]], %[[S]]
// CHECK:         kiln.slice %[[P]], {{.*}} -> tensor<1x8x4x4xf32>
// CHECK:         kiln.slice %[[P]], {{.*}} -> tensor<1x8x4x4xf32>
func.func @nchw_leaky(%x: tensor<1x2x4x4xf32>, %y: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w1 = kiln.constant dense<"0x0000E0400000F0400000004100000841000010410000184100002041000028410000304100003841000040410000484100005041000058410000604100006841"> : tensor<8x2x1x1xf32>
  %w2 = kiln.constant dense<"0x0000E0400000F0400000004100000841000010410000184100002041000028410000304100003841000040410000484100005041000058410000604100006841"> : tensor<8x2x1x1xf32>
  %b = kiln.constant dense<"0x0000104100001841000020410000284100003041000038410000404100004841"> : tensor<8xf32>
  %c1 = kiln.conv %x, %w1, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<8x2x1x1xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %l1 = kiln.leaky_relu %c1 {alpha = 0.1 : f32} : tensor<1x8x4x4xf32>
  %c2 = kiln.conv %x, %w2, %b {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<8x2x1x1xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %m1 = kiln.mul %l1, %y : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %m2 = kiln.add %c2, %y : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %m1, %m2 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Tests that these convs stay apart: another stride; a result the function
// returns (a slice of it would be a copy); a sigmoid against no activation (not
// piecewise linear); a grouped conv; a filter that is no constant.
// CHECK-LABEL: func.func @apart
// CHECK-COUNT-6: kiln.conv %{{.+}}, %{{.+}} {{.*}} -> tensor<1x
// CHECK-NOT:     kiln.slice
// CHECK-NOT:     kiln.prelu
// CHECK:         return
func.func @apart(%x: tensor<1x4x4x2xf32>, %y: tensor<1x4x4x16xf32>, %y2: tensor<1x2x2x16xf32>, %w: tensor<16x1x1x2xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x2x2x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x32xf32>, tensor<1x4x4x16xf32>) {
  %w1 = kiln.constant dense<"0x0000803F0000C03F0000004000002040000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F040000000410000084100001041000018410000204100002841000030410000384100004041000048410000504100005841000060410000684100007041000078410000804100008441"> : tensor<16x1x1x2xf32>
  %wg = kiln.constant dense<"0x0000803F0000C03F0000004000002040000040400000604000008040000090400000A0400000B0400000C0400000D0400000E0400000F040000000410000084100001041000018410000204100002841000030410000384100004041000048410000504100005841000060410000684100007041000078410000804100008441"> : tensor<32x1x1x1xf32>
  %a = kiln.conv %x, %w1 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<16x1x1x2xf32>) -> tensor<1x4x4x16xf32>
  %a1 = kiln.add %a, %y : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %s = kiln.conv %x, %w1 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<16x1x1x2xf32>) -> tensor<1x2x2x16xf32>
  %s1 = kiln.add %s, %y2 : (tensor<1x2x2x16xf32>, tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32>
  %o = kiln.conv %x, %w1 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<16x1x1x2xf32>) -> tensor<1x4x4x16xf32>
  %sg = kiln.conv %x, %w1 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<16x1x1x2xf32>) -> tensor<1x4x4x16xf32>
  %sg0 = kiln.sigmoid %sg : tensor<1x4x4x16xf32>
  %sg1 = kiln.add %sg0, %y : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %g = kiln.conv %x, %wg {group = 2 : i64, channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<32x1x1x1xf32>) -> tensor<1x4x4x32xf32>
  %n = kiln.conv %x, %w {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<16x1x1x2xf32>) -> tensor<1x4x4x16xf32>
  %n1 = kiln.add %n, %y : (tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %a1, %s1, %o, %sg1, %g, %n1 : tensor<1x4x4x16xf32>, tensor<1x2x2x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>, tensor<1x4x4x32xf32>, tensor<1x4x4x16xf32>
}


// -----

// Tests that large GEMMs (128 x 128 rows) fuse only when the fused columns pad
// to fewer than the parts': 64 + 256 columns (of %x) pad to 64 + 256 apart but
// to 384 as 320 (stay apart); 96 + 16 (of %y) pad to 128 + 64 apart and to 128
// as 112 (fuse).
// CHECK-LABEL: func.func @large
// CHECK-DAG:     kiln.conv %{{.+}}, %{{.+}} {{.*}} -> tensor<1x128x128x64xf32>
// CHECK-DAG:     kiln.conv %{{.+}}, %{{.+}} {{.*}} -> tensor<1x128x128x256xf32>
// CHECK-DAG:     kiln.conv %{{.+}}, %{{.+}} {{.*}} -> tensor<1x128x128x112xf32>
// CHECK-NOT:     kiln.conv %{{.+}}, %{{.+}} {{.*}} -> tensor<1x128x128x320xf32>
func.func @large(%x: tensor<1x128x128x1xf32>, %y: tensor<1x128x128x1xf32>, %a: tensor<1x128x128x64xf32>, %b: tensor<1x128x128x256xf32>, %c: tensor<1x128x128x96xf32>, %d: tensor<1x128x128x16xf32>) -> (tensor<1x128x128x64xf32>, tensor<1x128x128x256xf32>, tensor<1x128x128x96xf32>, tensor<1x128x128x16xf32>) {
  %w64 = kiln.constant dense<"0x0000803F0000A03F0000C03F0000E03F0000004000001040000020400000304000004040000050400000604000007040000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000000041000004410000084100000C4100001041000014410000184100001C4100002041000024410000284100002C4100003041000034410000384100003C4100004041000044410000484100004C4100005041000054410000584100005C4100006041000064410000684100006C4100007041000074410000784100007C4100008041000082410000844100008641"> : tensor<64x1x1x1xf32>
  %w256 = kiln.constant dense<"0x0000004000001040000020400000304000004040000050400000604000007040000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000000041000004410000084100000C4100001041000014410000184100001C4100002041000024410000284100002C4100003041000034410000384100003C4100004041000044410000484100004C4100005041000054410000584100005C4100006041000064410000684100006C4100007041000074410000784100007C41000080410000824100008441000086410000884100008A4100008C4100008E41000090410000924100009441000096410000984100009A4100009C4100009E410000A0410000A2410000A4410000A6410000A8410000AA410000AC410000AE410000B0410000B2410000B4410000B6410000B8410000BA410000BC410000BE410000C0410000C2410000C4410000C6410000C8410000CA410000CC410000CE410000D0410000D2410000D4410000D6410000D8410000DA410000DC410000DE410000E0410000E2410000E4410000E6410000E8410000EA410000EC410000EE410000F0410000F2410000F4410000F6410000F8410000FA410000FC410000FE410000004200000142000002420000034200000442000005420000064200000742000008420000094200000A4200000B4200000C4200000D4200000E4200000F420000104200001142000012420000134200001442000015420000164200001742000018420000194200001A4200001B4200001C4200001D4200001E4200001F420000204200002142000022420000234200002442000025420000264200002742000028420000294200002A4200002B4200002C4200002D4200002E4200002F420000304200003142000032420000334200003442000035420000364200003742000038420000394200003A4200003B4200003C4200003D4200003E4200003F420000404200004142000042420000434200004442000045420000464200004742000048420000494200004A4200004B4200004C4200004D4200004E4200004F420000504200005142000052420000534200005442000055420000564200005742000058420000594200005A4200005B4200005C4200005D4200005E4200005F420000604200006142000062420000634200006442000065420000664200006742000068420000694200006A4200006B4200006C4200006D4200006E4200006F420000704200007142000072420000734200007442000075420000764200007742000078420000794200007A4200007B4200007C4200007D4200007E4200007F420000804200808042000081420080814200008242008082420000834200808342"> : tensor<256x1x1x1xf32>
  %w96 = kiln.constant dense<"0x00004040000050400000604000007040000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000000041000004410000084100000C4100001041000014410000184100001C4100002041000024410000284100002C4100003041000034410000384100003C4100004041000044410000484100004C4100005041000054410000584100005C4100006041000064410000684100006C4100007041000074410000784100007C41000080410000824100008441000086410000884100008A4100008C4100008E41000090410000924100009441000096410000984100009A4100009C4100009E410000A0410000A2410000A4410000A6410000A8410000AA410000AC410000AE410000B0410000B2410000B4410000B6410000B8410000BA410000BC410000BE410000C0410000C2410000C4410000C6410000C8410000CA410000CC410000CE410000D0410000D2410000D4410000D641"> : tensor<96x1x1x1xf32>
  %w16 = kiln.constant dense<"0x000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F840"> : tensor<16x1x1x1xf32>
  %c1 = kiln.conv %x, %w64 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x128x128x1xf32>, tensor<64x1x1x1xf32>) -> tensor<1x128x128x64xf32>
  %c2 = kiln.conv %x, %w256 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x128x128x1xf32>, tensor<256x1x1x1xf32>) -> tensor<1x128x128x256xf32>
  %c3 = kiln.conv %y, %w96 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x128x128x1xf32>, tensor<96x1x1x1xf32>) -> tensor<1x128x128x96xf32>
  %c4 = kiln.conv %y, %w16 {channels_last = true, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x128x128x1xf32>, tensor<16x1x1x1xf32>) -> tensor<1x128x128x16xf32>
  %r1 = kiln.add %c1, %a : (tensor<1x128x128x64xf32>, tensor<1x128x128x64xf32>) -> tensor<1x128x128x64xf32>
  %r2 = kiln.add %c2, %b : (tensor<1x128x128x256xf32>, tensor<1x128x128x256xf32>) -> tensor<1x128x128x256xf32>
  %r3 = kiln.add %c3, %c : (tensor<1x128x128x96xf32>, tensor<1x128x128x96xf32>) -> tensor<1x128x128x96xf32>
  %r4 = kiln.add %c4, %d : (tensor<1x128x128x16xf32>, tensor<1x128x128x16xf32>) -> tensor<1x128x128x16xf32>
  return %r1, %r2, %r3, %r4 : tensor<1x128x128x64xf32>, tensor<1x128x128x256xf32>, tensor<1x128x128x96xf32>, tensor<1x128x128x16xf32>
}
