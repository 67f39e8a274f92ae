#!/usr/bin/env python3
"""Writes exercises/ from solutions/: every region between `// BEGIN SOLUTION [hint]` and
`// END SOLUTION` becomes one `// TODO: hint` line, indented as the marker. The rest of a source
file is copied as it is, so an exercise compiles and runs but does not do the work. Data beside
the solutions (step 11's tuning tables) is not copied: the build reads it from solutions/.

  generate_exercises.py                 regenerate every step
  generate_exercises.py --step 03       reset one step's exercise (a student's undo)
  generate_exercises.py --check         exit 1, naming the files, if exercises/ is out of date
"""
import argparse
import pathlib
import re
import sys

BEGIN = re.compile(r"^(\s*)//\s*BEGIN SOLUTION\b\s*(.*?)\s*$")
END = re.compile(r"^\s*//\s*END SOLUTION\b")
HEADER = "// Generated from {src} by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.\n"
CODE_SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc"}


class MarkerError(Exception):
    pass


def transform(text, src_name):
    """The exercise text of one solution file; raises MarkerError naming file:line."""
    out, opened_at, indent, hint = [], None, "", ""
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if opened_at is not None:
                raise MarkerError(f"{src_name}:{number}: BEGIN SOLUTION inside the region opened at line {opened_at}")
            opened_at, indent, hint = number, begin.group(1), begin.group(2)
            continue
        if end:
            if opened_at is None:
                raise MarkerError(f"{src_name}:{number}: END SOLUTION without a BEGIN SOLUTION")
            out.append(f"{indent}// TODO: {hint or 'your code here'}\n")
            opened_at = None
            continue
        if opened_at is None:
            out.append(line)
    if opened_at is not None:
        raise MarkerError(f"{src_name}:{opened_at}: BEGIN SOLUTION is never closed")
    return "".join(out)


def expected_exercises(root, step=None):
    """{exercise path: text} for every file under solutions/ (or one step's folder)."""
    solutions = root / "solutions"
    result = {}
    for src in sorted(p for p in solutions.rglob("*") if p.is_file() and p.suffix in CODE_SUFFIXES):
        rel = src.relative_to(solutions)
        if step and not rel.parts[0].startswith(step + "_") and rel.parts[0] != step:
            continue
        text = src.read_text()
        if src.suffix in CODE_SUFFIXES:
            text = HEADER.format(src=f"solutions/{rel.as_posix()}") + transform(text, f"solutions/{rel.as_posix()}")
        result[root / "exercises" / rel] = text
    return result


def existing_exercises(root, step=None):
    exercises = root / "exercises"
    if not exercises.is_dir():
        return set()
    return {p for p in exercises.rglob("*") if p.is_file()
            and (not step or p.relative_to(exercises).parts[0].startswith(step + "_"))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--step", help="only this step, by number (03) or folder name (03_naive)")
    ap.add_argument("--check", action="store_true", help="change nothing; fail if exercises/ is out of date")
    args = ap.parse_args()
    root = args.root.resolve()
    step = args.step.split("_")[0] if args.step else None
    if step and not any(p.name.startswith(step + "_") for p in (root / "solutions").iterdir()):
        print(f"generate_exercises: no step {args.step} under {root / 'solutions'}", file=sys.stderr)
        return 2
    try:
        want = expected_exercises(root, step)
    except MarkerError as e:
        print(f"generate_exercises: {e}", file=sys.stderr)
        return 2
    stale = sorted(existing_exercises(root, step) - set(want))
    if args.check:
        bad = [p for p, text in want.items() if not p.is_file() or p.read_text() != text]
        if bad or stale:
            print("exercises/ is not what solutions/ generates:", file=sys.stderr)
            for p in bad:
                print(f"  {p.relative_to(root)}: {'differs' if p.is_file() else 'missing'}", file=sys.stderr)
            for p in stale:
                print(f"  {p.relative_to(root)}: has no solution", file=sys.stderr)
            print("run: python3 cmake/generate_exercises.py (or --step NN to reset one step)", file=sys.stderr)
            return 1
        print(f"exercises/ is in sync with solutions/ ({len(want)} files)")
        return 0
    for p, text in want.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.is_file() or p.read_text() != text:
            p.write_text(text)
            print(f"wrote {p.relative_to(root)}")
    for p in stale:
        p.unlink()
        print(f"removed {p.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
