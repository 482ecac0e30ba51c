#!/usr/bin/env python3
"""Prints what a Q/DQ model written by `kilnc --precision int8 --qdq-model` holds, for FileCheck.

One line per node but the Q/DQ: its first two inputs' producers (the DequantizeLinear each reads, or
"f32" when it reads an unquantized tensor), then the count of Q/DQ nodes and whether the
ONNX checker accepts the model. Exits 1 when a Q/DQ node comes before its input's producer
(the node list must stay topologically sorted).
"""
import sys

import onnx


def main():
    model = onnx.load(sys.argv[1])
    onnx.checker.check_model(model)
    g = model.graph
    made = {i.name for i in g.initializer} | {i.name for i in g.input}
    producer = {}
    for n in g.node:
        for i in n.input:
            if i and i not in made:
                print("UNSORTED: %s reads %s before it is made" % (n.name or n.op_type, i))
                return 1
        for o in n.output:
            made.add(o)
            producer[o] = n
    counts = {}
    for n in g.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
        if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
            continue
        reads = []
        for i in n.input[:2]:
            p = producer.get(i)
            if p is not None and p.op_type == "DequantizeLinear":
                axis = [a.i for a in p.attribute if a.name == "axis"]
                reads.append("dq(axis %d)" % axis[0] if axis else "dq(tensor)")
            else:
                reads.append("f32")
        print("%s %s: %s" % (n.op_type, n.name, ", ".join(reads)))
    print("QuantizeLinear %d, DequantizeLinear %d, checker ok" %
          (counts.get("QuantizeLinear", 0), counts.get("DequantizeLinear", 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
