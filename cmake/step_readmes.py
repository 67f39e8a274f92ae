#!/usr/bin/env python3
"""Writes the top of every step's README: where a student edits, and where the rest of the step is.

One step lives in several trees (steps/, solutions/, exercises/, tests/, slides/, slides/data/);
the table right under each README's title names them, so a student opening steps/NN_name/ finds
the exercise first. The table is made from the files that exist, between two comments:

    <!-- begin where: cmake/step_readmes.py writes this table -->
    ...
    <!-- end where -->

  step_readmes.py           rewrite the tables (adding one under the title where there is none)
  step_readmes.py --check   change nothing; exit 1, naming the READMEs, if a table is out of date
  step_readmes.py --length  change nothing; exit 1, naming the READMEs, if one has more than
                            MOST_WORDS words (DESIGN.md: a step's idea in at most 2,000 words),
                            in the lab or in the students' copy (which adds a line)
"""
import argparse
import pathlib
import re
import sys

import generate_exercises  # beside this file

OPEN = "<!-- begin where: cmake/step_readmes.py writes this table -->"
CLOSE = "<!-- end where -->"
BLOCK = re.compile(re.escape(OPEN) + r".*?" + re.escape(CLOSE) + r"\n*", re.S)
# A step README's words at most: what a student reads, outside code blocks (the excerpts), HTML
# comments (where quoted numbers come from) and the table of where things are.
MOST_WORDS = 2000
# The first line of an exercise to fill in, as generate_exercises.py writes it (a file copied only
# because it includes one starts otherwise).
GENERATED = generate_exercises.HEADER.split("{")[0]


def link(path, here):
    """A Markdown link to the repo path `path` from the folder `here` (both relative to the root)."""
    rel = pathlib.PurePosixPath(*([".."] * len(here.parts)), path)
    return f"[`{path}`]({rel.as_posix()})"


def table(root, step_dir):
    here = step_dir.relative_to(root)
    name, number = step_dir.name, step_dir.name[:2]
    rows = []
    exercises = sorted(p for p in (root / "exercises" / name).rglob("*")
                       if p.is_file() and p.read_text().startswith(GENERATED))
    if exercises:
        files = ", ".join(link(p.relative_to(root).as_posix(), here) for p in exercises)
        rows.append(("**your exercise**", f"{files}: fill in the TODOs, then "
                     f"`cmake --build --preset exercises --target check_step{number}`"))
    if (root / "solutions" / name).is_dir():
        rows.append(("the solution", link(f"solutions/{name}/", here)))
    programs = sorted(p.name for p in step_dir.glob("*") if p.suffix in {".cpp", ".cu"})
    rows.append(("the program" if len(programs) == 1 else "the programs", ", ".join(f"[`{p}`]({p})" for p in programs)))
    tests = sorted((root / "tests").glob(f"test_step{number}_*.cpp"))
    if tests:
        rows.append(("the tests", ", ".join(link(p.relative_to(root).as_posix(), here) for p in tests)))
    deck = root / "slides" / f"{name}.md"
    if deck.is_file():
        rows.append(("the deck", link(deck.relative_to(root).as_posix(), here)))
    data = sorted(root.joinpath("slides", "data").rglob(f"*_step{number}*"))
    if data:
        rows.append(("measured data", f"`slides/data/*_step{number}*`"))
    lines = [OPEN, "| what | where |", "|---|---|"] + [f"| {what} | {where} |" for what, where in rows] + [CLOSE]
    return "\n".join(lines) + "\n\n"


def words(text):
    text = BLOCK.sub("", text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return sum(1 for w in text.split() if re.search(r"\w", w))


# gemv_add_step's RUNS_KERNELS_OF: the earlier steps a step runs the kernels of.
BORROWS = re.compile(r"\bRUNS_KERNELS_OF((?:\s+\d+)+)")


def borrowing_note(root, rel):
    """For a step that runs earlier steps' kernels: the line the students' copy adds under its
    README's table (make_release.py), saying that there they are the student's."""
    cmake = root / pathlib.PurePosixPath(rel).parent / "CMakeLists.txt"
    m = BORROWS.search(cmake.read_text()) if cmake.is_file() else None
    if not m:
        return None
    steps = m.group(1).split()
    s = "s" if len(steps) > 1 else ""
    names = " and ".join(steps)
    return (f"In this copy, this step runs your own kernel{s} of step{s} {names}, where the full lab runs "
            f"the solution{s}: solve step{s} {names} first.")


def too_long(root):
    """The READMEs over MOST_WORDS, with their words, counting borrowing_note's line where the
    README does not hold it yet (the students' copy adds it)."""
    out = []
    for readme in sorted(root.glob("steps/[0-9][0-9]_*/README.md")):
        rel, text = readme.relative_to(root).as_posix(), readme.read_text()
        note = borrowing_note(root, rel) or ""
        n = words(text) + (words(note) if note not in text else 0)
        if n > MOST_WORDS:
            out.append((rel, n))
    return out


def with_table(text, block):
    if BLOCK.search(text):
        return BLOCK.sub(lambda _: block, text, count=1)
    title, _, rest = text.partition("\n")  # under the title
    return f"{title}\n\n{block}{rest.lstrip(chr(10))}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--check", action="store_true", help="change nothing; fail if a table is out of date")
    ap.add_argument("--length", action="store_true", help=f"change nothing; fail if a README has over {MOST_WORDS} words")
    args = ap.parse_args()
    root = args.root.resolve()
    if args.length:
        long = too_long(root)
        for name, n in long:
            print(f"step_readmes: {name} has {n} words, more than {MOST_WORDS}: move the maintainers' record to "
                  "the step's NOTES.md beside its data, and say the rest shorter", file=sys.stderr)
        if not long:
            print(f"step_readmes: every step README has at most {MOST_WORDS} words")
        return 1 if long else 0
    stale = []
    for step_dir in sorted(root.glob("steps/[0-9][0-9]_*")):
        readme = step_dir / "README.md"
        if not readme.is_file():
            continue
        text = readme.read_text()
        new = with_table(text, table(root, step_dir))
        if new != text:
            stale.append(readme.relative_to(root).as_posix())
            if not args.check:
                readme.write_text(new)
    if args.check and stale:
        print("step_readmes: these READMEs' tables of where things are are out of date:", file=sys.stderr)
        for name in stale:
            print(f"  {name}", file=sys.stderr)
        print("run: python3 cmake/step_readmes.py", file=sys.stderr)
        return 1
    print(f"step_readmes: {'wrote ' + ', '.join(stale) if stale and not args.check else 'every table is up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
