#!/usr/bin/env python3
"""No file of the lab names an internal milestone, a development stop or an issue ("stop 23",
"issue 25", "the issue's targets", "milestone", "PR #12"): a student, an instructor or a maintainer
has never seen them. Fails naming file:line and the words for every hit in the tracked files (all
files under ROOT, build output left out, where ROOT is not a git clone).

  no_internal_names.py [--root ROOT]

The patterns are checked first against sentences they must and must not match ("issues a load"
is English), so a pattern that stops matching fails the test too.
"""
import argparse
import pathlib
import re
import subprocess
import sys

PATTERN = re.compile(
    r"\bstops? \d+\b"                    # stop 23, stops 10 and 20
    r"|\bdevelopment stops?\b"
    r"|\bissues? #?\d+\b"                # issue 25, issue #25
    r"|\b(the|this|that) issue's\b"      # the targets
    r"|\bmilestones?\b"
    r"|\b(PR|pull request) ?#\d+\b|\bGH-\d+\b",
    re.IGNORECASE)
MUST_MATCH = ["Staggered loads (stop 23)", "stops 10 and 20", "as issue 25 asks", "see issue #7",
              "The issue's targets", "the next milestone", "fixed in PR #12", "a development stop"]
MUST_NOT_MATCH = ["each thread issues a load", "the loads the core issues", "the issue is the latency",
                  "a fast candidate stops the slower ones", "stop the clock", "step 23", "issued 4 loads"]
# This file names the patterns it looks for.
ALLOWED = {"cmake/no_internal_names.py"}
SKIP_DIRS = {".git", "build", "node_modules", "__pycache__"}


def files(root):
    """The tracked files, or every file outside build output where root is not a git clone."""
    git = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, text=True)
    if git.returncode == 0 and (root / ".git").exists():
        return [n for n in git.stdout.split("\0") if n]
    return [p.relative_to(root).as_posix() for p in sorted(root.rglob("*"))
            if p.is_file() and not SKIP_DIRS & set(p.relative_to(root).parts)]


def self_test():
    wrong = [f"misses {s!r}" for s in MUST_MATCH if not PATTERN.search(s)]
    wrong += [f"matches English: {s!r}" for s in MUST_NOT_MATCH if PATTERN.search(s)]
    return wrong


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    root = ap.parse_args().root.resolve()
    wrong = self_test()
    if wrong:
        print("no_internal_names: its patterns are wrong: " + "; ".join(wrong), file=sys.stderr)
        return 1
    hits, checked = [], 0
    for name in files(root):
        if name in ALLOWED or not (root / name).is_file():
            continue
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary: no prose
        checked += 1
        for number, line in enumerate(text.splitlines(), start=1):
            for m in PATTERN.finditer(line):
                hits.append(f"{name}:{number}: {m.group(0)!r}: {line.strip()[:100]}")
    if hits:
        print("files name an internal milestone, a development stop or an issue, which no reader has seen;",
              file=sys.stderr)
        print("say what was measured or decided instead (history goes to the step's NOTES.md, without the names):",
              file=sys.stderr)
        for h in hits:
            print(f"  {h}", file=sys.stderr)
        return 1
    print(f"no internal milestone or issue named in {checked} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
