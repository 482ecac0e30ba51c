#!/bin/bash
# Build machine half of test/gpu/models_vs_ort.py: exports the benchmark models with portable weights
# (batch 1 static, dynamic batch for ResNet-50 b64 and the BERT encoder b32), compiles fp32 and fp16
# weight-stripped sm_90a plans and collects what the GPU machine needs (about 41 MB) into CARRY_DIR.
# Usage: test/gpu/prepare_models.sh [WORK_DIR] [CARRY_DIR] [MODEL ...]
#   MODEL ...: only these models, batch 1 (any name of scripts/kiln_models.py, e.g. the zoo's
#   mobilenet_v3_large shufflenet_v2_x1_0 ...); without them the default set above.
set -u
R=$(cd "$(dirname "$0")/../.." && pwd); W=${1:-$R/.device/pm-work}; C=${2:-$R/.device/pm/carry}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p $W $C
export_one() { # model dir extra-args
  [ -f $2/${1}_op17.onnx ] && return 0
  echo "== export $1 -> $2 $(date +%T)"
  /usr/bin/python3 $R/scripts/export_models.py --out $2 --models $1 --seq 128 --opset 17 --portable-weights $3 > $W/export_$(basename $2)_$1.log 2>&1 || { echo "export $1 FAILED"; tail -3 $W/export_$(basename $2)_$1.log; return 1; }
}
compile_case() { # model batch dir shape-args
  m=$1; b=$2; d=$3; k=${m}_b$b
  mkdir -p $C/$k
  cp $d/${m}_op17.skeleton.onnx $C/$k/skeleton.onnx; cp $d/${m}_op17.recipe.json $C/$k/recipe.json
  echo "$b" > $C/$k/batch
  for p in fp32 fp16; do
    echo "== kilnc $k $p $(date +%T)"
    $R/build/bin/kilnc $d/${m}_op17.onnx -o $C/$k/$p.stripped.plan --target sm_90a --precision $p --strip-weights -q $4 || echo "kilnc $k $p FAILED"
  done
}
if [ $# -gt 0 ]; then
  for m in "$@"; do
    export_one $m $W/b1 "--batch 1" && compile_case $m 1 $W/b1 ""
  done
  du -sh $C; exit 0
fi
for m in resnet50 mobilenet_v2 efficientnet_b0 vit_b_16 bert_encoder; do
  export_one $m $W/b1 "--batch 1" && compile_case $m 1 $W/b1 ""
done
export_one resnet50 $W/dyn "--dynamic-batch" && compile_case resnet50 64 $W/dyn "--input-shape input=64x3x224x224"
export_one bert_encoder $W/dyn "--dynamic-batch" && compile_case bert_encoder 32 $W/dyn "--input-shape input_ids=32x128 --input-shape attention_mask=32x128"
du -sh $C; du -sh $C/*
