#!/usr/bin/env python3
"""The bad-input corpus: every case of cases.json runs `lcfr` on its input (inputs/NAME.*) and
must exit with the expected code, say the expected fragment on stderr, and leave no file
behind: the scratch directory it runs in (and any run directory it is given) is byte for byte
what it was before.

Usage: run_cases.py PATH_TO_LCFR SOURCE_DIR [CASE_NAME...]
"""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib


def snapshot(root):
    """Every file and directory under root, with the files' SHA-256."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            state[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = "dir"
        for f in filenames:
            path = os.path.join(dirpath, f)
            with open(path, "rb") as handle:
                state[os.path.relpath(path, root)] = hashlib.sha256(handle.read()).hexdigest()
    return state


def latest_checkpoint(run):
    with open(os.path.join(run, "checkpoints", "LATEST")) as handle:
        return os.path.join(run, "checkpoints", handle.read().strip())


def fix_checksum(checkpoint, name):
    """Makes checksums.json agree with a replaced file, so that the content checks are reached."""
    path = os.path.join(checkpoint, "checksums.json")
    with open(path) as handle:
        manifest = json.load(handle)
    with open(os.path.join(checkpoint, name), "rb") as handle:
        data = handle.read()
    manifest["files"][name] = {"bytes": len(data), "crc32": "%08x" % zlib.crc32(data)}
    with open(path, "w") as handle:
        json.dump(manifest, handle)


def prepare(case, scratch, base_run, input_path):
    setup = case.get("setup", "")
    kind, _, argument = setup.partition(":")
    if kind.startswith("run"):
        run = os.path.join(scratch, "run")
        shutil.copytree(base_run, run)
        checkpoint = latest_checkpoint(run)
        if kind == "run_file":
            shutil.copyfile(input_path, os.path.join(checkpoint, argument))
            if argument != "checksums.json":
                fix_checksum(checkpoint, argument)
        elif kind == "run_flip":
            path = os.path.join(checkpoint, argument)
            data = bytearray(open(path, "rb").read())
            data[len(data) // 2] ^= 0x10
            open(path, "wb").write(data)
        elif kind == "run_latest":
            shutil.copyfile(input_path, os.path.join(run, "checkpoints", "LATEST"))
    elif kind == "user_dir":
        os.makedirs(os.path.join(scratch, "user"))
        with open(os.path.join(scratch, "user", "metrics.jsonl"), "w") as handle:
            handle.write('{"the user\'s": "own file"}\n')
    elif kind == "metrics":
        os.makedirs(os.path.join(scratch, "m"))
        shutil.copyfile(input_path, os.path.join(scratch, "m", "metrics.jsonl"))
    elif setup:
        raise ValueError(f"{case['name']}: unknown setup '{setup}'")


def main():
    lcfr, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    only = set(sys.argv[3:])
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "cases.json")) as handle:
        cases = json.load(handle)["cases"]
    work = tempfile.mkdtemp(prefix="lcfr_bad_inputs_")
    failures = 0
    try:
        # One small trained run that the run_* cases copy and damage.
        base_run = os.path.join(work, "base_run")
        subprocess.run([lcfr, "train", "--config", os.path.join(src, "configs", "smoke.yaml"),
                        "--set", "run.iterations=1", "--run-dir", base_run, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        names = [c["name"] for c in cases]
        if len(set(names)) != len(names):
            raise ValueError("duplicate case names in cases.json")
        for case in cases:
            name = case["name"]
            if only and name not in only:
                continue
            inputs = glob.glob(os.path.join(here, "inputs", name + ".*"))
            input_path = inputs[0] if inputs else None
            scratch = os.path.join(work, name)
            os.makedirs(scratch)
            prepare(case, scratch, base_run, input_path)
            before = snapshot(scratch)
            args = [a.replace("{input}", input_path or "").replace("{tmp}", scratch)
                    .replace("{src}", src) for a in case["args"]]
            stdin = open(input_path, "rb") if case.get("stdin") else subprocess.DEVNULL
            result = subprocess.run([lcfr] + args, cwd=scratch, stdin=stdin,
                                    capture_output=True, timeout=300)
            stderr = result.stderr.decode("utf-8", "replace")
            problems = []
            if result.returncode != case["exit"]:
                problems.append(f"exit {result.returncode}, expected {case['exit']}")
            if case["message"] not in stderr:
                problems.append(f"stderr lacks {case['message']!r}")
            if "frame #" in stderr or "Traceback" in stderr:
                problems.append("stderr holds a backtrace")
            after = snapshot(scratch)
            if after != before:
                changed = sorted(set(after.items()) ^ set(before.items()))
                problems.append(f"files changed: {[path for path, _ in changed][:6]}")
            if problems:
                failures += 1
                print(f"FAIL {name}: {'; '.join(problems)}\n  stderr: {stderr.strip()[:400]}")
            else:
                print(f"ok   {name}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = len(only) if only else len(cases)
    print(f"{total - failures} of {total} bad-input cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
