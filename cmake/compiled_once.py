#!/usr/bin/env python3
"""Every file of solutions/ and exercises/ is compiled once in a build tree: the files an exercise
does not replace go into one library for both variants, and a later step that runs an earlier step's
kernels links that step's library (gemv_step_kernels, gemv_solution_kernels in cmake/GemvLab.cmake).
Reads the compile commands Ninja would run; fails naming each file compiled more than once.

  compiled_once.py BUILD_DIR NINJA SOURCE_DIR
"""
import collections
import re
import subprocess
import sys

COMPILED = re.compile(r" -c (\S+)")


def counts(commands, source_dir):
    """{file under solutions/ or exercises/: how many commands compile it}"""
    seen = collections.Counter(m.group(1) for line in commands.splitlines() for m in [COMPILED.search(line)] if m)
    return {f: n for f, n in seen.items() if f.startswith((f"{source_dir}/solutions/", f"{source_dir}/exercises/"))}


def main(build_dir, ninja, source_dir):
    # The function's own check first: a file compiled twice is found.
    twice = f"nvcc -c {source_dir}/solutions/a.cu\nc++ -c {source_dir}/solutions/a.cu\nc++ -c {source_dir}/tests/t.cpp"
    if counts(twice, source_dir) != {f"{source_dir}/solutions/a.cu": 2}:
        print("compiled_once: the check itself does not find a file compiled twice")
        return 1
    commands = subprocess.run([ninja, "-C", build_dir, "-t", "commands"], capture_output=True, text=True,
                              check=True).stdout
    seen = counts(commands, source_dir)
    again = sorted(f for f, n in seen.items() if n > 1)
    for f in again:
        print(f"compiled {seen[f]} times: {f}")
    print(f"compiled_once: {len(seen)} files of solutions/ and exercises/, {len(again)} compiled more than once")
    return 1 if again or not seen else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
