#!/usr/bin/env python3
"""Writes exercises/ from solutions/: every region between `// BEGIN SOLUTION [hint]` and
`// END SOLUTION` becomes one `// TODO: hint` line, indented as the marker. The rest of such a file
is copied as it is, so an exercise compiles and runs but does not do the work. Only files with a
region are exercises (and a file that includes one of them, which must be built beside it); the
build takes every other source and header of a step from solutions/. Data beside the solutions
(step 11's tuning tables) is not copied either.

exercises/generated.sha256 lists every generated file with the checksum of what was generated, so
an exercise that differs from it has been edited: it is never overwritten without --reset, and
--reset keeps a copy of it (NAME.saved-DATE) beside it.

  generate_exercises.py                   regenerate what is out of date; edited exercises are kept
  generate_exercises.py --reset --step 3  start step 03's exercise over (a copy of yours is kept)
  generate_exercises.py --reset           every exercise back to its untouched state (a new cohort)
  generate_exercises.py --check           exit 1, naming the files, if exercises/ is out of date
"""
import argparse
import datetime
import hashlib
import pathlib
import re
import sys

BEGIN = re.compile(r"^(\s*)//\s*BEGIN SOLUTION\b\s*(.*?)\s*$")
END = re.compile(r"^\s*//\s*END SOLUTION\b")
MARKER = re.compile(r"^\s*//\s*(BEGIN|END) EXCERPT\b")  # the slides' named regions, not a hint's rest
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
HEADER = ("// Generated from {src} by cmake/generate_exercises.py: fill in the TODOs. Start over with"
          " generate_exercises.py --reset --step {step}\n")
INCLUDER = ("// Copied from {src} by cmake/generate_exercises.py: nothing to fill in here; it is built from"
            " exercises/ because it includes {names}\n")
# What the generator wrote before it kept checksums: recognised as untouched, so that it is replaced.
LEGACY_HEADER = "// Generated from {src} by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.\n"
CODE_SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".cc"}
MANIFEST = "generated.sha256"
SAVED = ".saved-"  # NAME.saved-DATE: a student's version, kept by --reset


class MarkerError(Exception):
    pass


# A hint that ends like this stops mid-expression or mid-sentence: its rest fell inside the region
# (a formatter wrapping a long marker line does that), where the student never sees it.
UNFINISHED_END = re.compile(r"([,+\-*/%(\[{=&|<>^~:;\\]|\b(and|or|of|to|the|a|an|by|with|from|in|into|then|than|"
                            r"at|on|for|as|is|are|if|each|every)\b)$")


def check_hint(hint, lines, begin_at, src_name):
    """Refuses a hint that continues into its region: it ends mid-expression or mid-sentence, or the
    region opens with comment lines (the hint's rest, wrapped). `lines` are the file's lines and
    `begin_at` the marker's index among them."""
    if hint and UNFINISHED_END.search(hint.rstrip()):
        raise MarkerError(f"{src_name}:{begin_at + 1}: the hint of BEGIN SOLUTION ends mid-sentence "
                          f"({hint.rstrip()[-20:]!r}); the student sees only the marker's line: make the hint one "
                          "whole sentence on it")
    following = lines[begin_at + 1] if begin_at + 1 < len(lines) else ""
    if hint and following.strip().startswith("//") and not END.match(following) and not MARKER.match(following):
        raise MarkerError(f"{src_name}:{begin_at + 2}: the region of BEGIN SOLUTION (line {begin_at + 1}) opens with a "
                          "comment, which reads as the hint's continuation and is removed from the exercise: make "
                          "the hint one whole sentence on the marker's line, and start the region with code")


def transform(text, src_name):
    """The exercise text of one solution file; raises MarkerError naming file:line."""
    out, opened_at, indent, hint = [], None, "", ""
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if opened_at is not None:
                raise MarkerError(f"{src_name}:{number}: BEGIN SOLUTION inside the region opened at line {opened_at}")
            opened_at, indent, hint = number, begin.group(1), begin.group(2)
            check_hint(hint, lines, number - 1, src_name)
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


def has_region(text):
    return any(BEGIN.match(line) or END.match(line) for line in text.splitlines())


def step_number(step):
    """'3', '03' and '03_naive' all name step 03."""
    number = step.split("_")[0]
    return number.zfill(2) if number.isdigit() else number


def expected_exercises(root, step=None):
    """{exercise path: text} for the files of solutions/ (or one step's folder) that are exercises."""
    solutions = root / "solutions"
    folders = sorted(p for p in solutions.iterdir() if p.is_dir() and (not step or p.name.split("_")[0] == step))
    result = {}
    for folder in folders:
        texts = {p.relative_to(folder).as_posix(): p.read_text()
                 for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix in CODE_SUFFIXES}
        exercise = {name for name, text in texts.items() if has_region(text)}
        # A file that includes an exercise file must be built from exercises/ too, or its quoted
        # include would find the solution beside it.
        includes = {name: set(INCLUDE.findall(text)) & set(texts) for name, text in texts.items()}
        grew = True
        while grew:
            grew = False
            for name in sorted(set(texts) - exercise):
                if includes[name] & exercise:
                    exercise.add(name)
                    grew = True
        for name in sorted(exercise):
            src = f"solutions/{folder.name}/{name}"
            if has_region(texts[name]):
                text = HEADER.format(src=src, step=folder.name.split("_")[0]) + transform(texts[name], src)
            else:
                text = INCLUDER.format(src=src, names=", ".join(sorted(includes[name] & exercise))) + texts[name]
            result[root / "exercises" / folder.name / name] = text
    return result


def legacy_text(root, path):
    """What the generator made of this exercise's solution before checksums, or None."""
    rel = path.relative_to(root / "exercises").as_posix()
    src = root / "solutions" / rel
    if not src.is_file():
        return None
    try:
        return LEGACY_HEADER.format(src=f"solutions/{rel}") + transform(src.read_text(), rel)
    except MarkerError:
        return None


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def read_manifest(root):
    path = root / "exercises" / MANIFEST
    if not path.is_file():
        return {}
    pairs = (line.split("  ", 1) for line in path.read_text().splitlines() if line.strip())
    return {rel: digest for digest, rel in pairs}


def manifest_text(entries):
    return "".join(f"{digest}  {rel}\n" for rel, digest in sorted(entries.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--step", help="only this step, by number (3 or 03) or folder name (03_naive)")
    ap.add_argument("--check", action="store_true", help="change nothing; fail if exercises/ is out of date")
    ap.add_argument("--reset", action="store_true",
                    help="also overwrite edited exercises, keeping a copy of each as NAME.saved-DATE")
    args = ap.parse_args()
    root = args.root.resolve()
    exercises = root / "exercises"
    step = step_number(args.step) if args.step else None
    if step and not any(p.name.split("_")[0] == step for p in (root / "solutions").iterdir()):
        print(f"generate_exercises: no step {args.step} under {root / 'solutions'}", file=sys.stderr)
        return 2
    try:
        want = expected_exercises(root, step)
    except MarkerError as e:
        print(f"generate_exercises: {e}", file=sys.stderr)
        return 2

    def rel(p):
        return p.relative_to(exercises).as_posix()

    def in_scope(p):
        return not step or rel(p).split("_")[0] == step

    manifest = read_manifest(root)
    present = {p for p in exercises.rglob("*") if p.is_file() and p.name != MANIFEST and SAVED not in p.name
               and in_scope(p)} if exercises.is_dir() else set()
    stale = sorted(present - set(want))
    new_manifest = {r: d for r, d in manifest.items() if not in_scope(exercises / r)}
    new_manifest.update({rel(p): sha256(text) for p, text in want.items()})

    if args.check:
        problems = [f"{rel(p)}: {'differs' if p.is_file() else 'missing'}" for p, text in want.items()
                    if not p.is_file() or p.read_text() != text]
        problems += [f"{rel(p)}: is not generated from solutions/" for p in stale]
        if manifest_text(new_manifest) != manifest_text(manifest):
            problems.append(f"{MANIFEST}: its checksums are not those of what solutions/ generates")
        if problems:
            print("exercises/ is not what solutions/ generates:", file=sys.stderr)
            for line in problems:
                print(f"  exercises/{line}", file=sys.stderr)
            print("run: python3 cmake/generate_exercises.py (a maintainer's check: it keeps edited exercises; "
                  "--reset overwrites them)", file=sys.stderr)
            return 1
        print(f"exercises/ is in sync with solutions/ ({len(want)} files)")
        return 0

    def untouched(p):
        text = p.read_text()
        return manifest.get(rel(p)) == sha256(text) or text == legacy_text(root, p)

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")

    def keep_copy(p):
        copy = p.with_name(f"{p.name}{SAVED}{stamp}")
        k = 1
        while copy.exists():
            k += 1
            copy = p.with_name(f"{p.name}{SAVED}{stamp}-{k}")
        copy.write_text(p.read_text())
        return copy

    kept = []
    for p, text in want.items():
        if p.is_file() and p.read_text() == text:
            continue
        if p.is_file() and not untouched(p):
            if not args.reset:
                kept.append(p)
                new_manifest[rel(p)] = manifest.get(rel(p), "")
                continue
            print(f"kept your version of exercises/{rel(p)} as {keep_copy(p).name}")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        print(f"wrote exercises/{rel(p)}")
    for p in stale:
        if untouched(p) or args.reset:
            if not untouched(p):
                print(f"kept your version of exercises/{rel(p)} as {keep_copy(p).name}")
            p.unlink()
            print(f"removed exercises/{rel(p)} (no longer an exercise)")
        else:
            kept.append(p)
    new_manifest = {r: d for r, d in new_manifest.items() if d}
    if exercises.is_dir() and manifest_text(new_manifest) != manifest_text(manifest):
        (exercises / MANIFEST).write_text(manifest_text(new_manifest))
        print(f"wrote exercises/{MANIFEST}")
    if kept:
        print("left as they are, since they were edited after they were generated:", file=sys.stderr)
        for p in kept:
            print(f"  exercises/{rel(p)}", file=sys.stderr)
        print("to start them over (a copy of each is kept beside it): python3 cmake/generate_exercises.py --reset"
              + (f" --step {step}" if step else ""), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
