#!/usr/bin/env python3
"""A stand-in for the enigma CLI that runs every `enigma run` in checked mode.

tests/check/test_no_false_positives.py points the repository's kernel suites (tests/cli,
tests/semantic) at this script through ENIGMA_CLI, so that every correct kernel they run,
with the valid inputs they give it, also runs checked. Any checked-mode report (exit 4)
is appended to $ENIGMA_CHECK_FP_LOG with the command line: on correct kernels each one is
a false positive. Everything else passes through unchanged ($ENIGMA_CHECK_REAL_CLI is
the real CLI).
"""
import os
import subprocess
import sys


def main():
    real = os.environ["ENIGMA_CHECK_REAL_CLI"]
    args = sys.argv[1:]
    if args and args[0] == "run" and "--check" not in args and "--help" not in args and "-h" not in args:
        args = ["run", "--check", *args[1:]]
    r = subprocess.run([real, *args], capture_output=True)
    sys.stdout.buffer.write(r.stdout)
    sys.stderr.buffer.write(r.stderr)
    log = os.environ.get("ENIGMA_CHECK_FP_LOG")
    if log and args and args[0] == "run" and (r.returncode == 4 or b": error: " in r.stdout and b"checked mode:" in r.stdout):
        with open(log, "a") as f:
            f.write("$ " + " ".join(args) + "\n" + r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace") + "\n")
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
