#!/usr/bin/env python3
"""Writes a kiln timing cache (the format kiln-tune --timing-cache writes) from
`kiln-tune PLAN --list --json`, as if each choice's fastest variant had been
the first whose tactic matches PATTERN (a regex; a choice with none keeps
variant 0). Lets tests check kilnc --timing-cache without a GPU.

  timing_cache.py LIST_JSON TARGET PATTERN > cache.json
"""
import json
import re
import sys


def main():
    listing, target, pattern = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
    with open(listing) as f:
        choices = json.load(f)["choices"]
    entries = []
    for c in choices:
        variants = c["variants"]
        best = next((v for v in variants if pattern.search(v)), variants[0])
        times = {v: (0.01 if v == best else 0.02) for v in variants}
        entries.append({"target": target, "key": c["key"], "name": c["name"],
                        "device": "test", "best": best, "times_ms": times})
    json.dump({"kiln_timing_cache": 1, "entries": entries}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
