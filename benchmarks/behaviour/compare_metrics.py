#!/usr/bin/env python3
"""Compares two metrics.jsonl files key by key, ignoring timing keys.

    compare_metrics.py BEFORE AFTER

Exit 0 when every line has the same keys and values apart from the timing ones (time.*,
traversals_per_s, policy_calls_per_s), 1 otherwise, with each difference printed. Used to show
that a refactoring changed no behaviour (benchmarks/behaviour/README.md).
"""
import json
import sys

TIMING = {"time", "traversals_per_s", "policy_calls_per_s"}


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def diff(path, a, b, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'after' if k in b else 'before'}")
            else:
                diff(f"{path}.{k}", a[k], b[k], out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(f"{path}[{i}]", x, y, out)
    elif a != b:
        out.append(f"{path}: {a!r} != {b!r}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before = [strip(json.loads(l)) for l in open(sys.argv[1]) if l.strip()]
    after = [strip(json.loads(l)) for l in open(sys.argv[2]) if l.strip()]
    out = []
    if len(before) != len(after):
        out.append(f"{len(before)} lines before, {len(after)} after")
    for i, (a, b) in enumerate(zip(before, after)):
        diff(f"line {i + 1}", a, b, out)
    for line in out:
        print(line)
    print(f"{len(before)} lines compared: {'identical apart from timing' if not out else f'{len(out)} differences'}")
    sys.exit(1 if out else 0)


if __name__ == "__main__":
    main()
