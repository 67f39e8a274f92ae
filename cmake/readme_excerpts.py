#!/usr/bin/env python3
"""Code quoted in a README comes from the source, by name, as in the decks:

    <!-- excerpt: solutions/04_coalesced/gemv_coalesced.cu#kernel -->
    ```cuda
    ...the lines, as this script writes them...
    ```
    <!-- end excerpt -->

`PATH#NAME` is the region between `// BEGIN EXCERPT NAME` and `// END EXCERPT NAME` in that file,
`PATH#solution:HINT` the BEGIN SOLUTION region whose hint starts with HINT (slides/build.py's
excerpt(), which the decks use: one rule for both). The lab's own READMEs show the solution; the
students' edition (cmake/make_release.py) shows each solution region as its exercise's
`// TODO: hint` line, and leaves out what is the instructors' only:

    a line ending in <!-- instructor -->
    the lines from <!-- begin instructor --> to <!-- end instructor -->, both included

  readme_excerpts.py update   rewrite every block from its source
  readme_excerpts.py check    change nothing; exit 1, naming README and line, where a block is stale
"""
import argparse
import importlib.util
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPEN = re.compile(r"^<!--\s*excerpt:\s*(.+?)\s*-->\s*$")
CLOSE = re.compile(r"^<!--\s*end excerpt\s*-->\s*$")
FENCE = re.compile(r"^```")
INSTRUCTOR_LINE = re.compile(r"<!--\s*instructor\s*-->\s*$")
BEGIN_INSTRUCTOR = re.compile(r"^\s*<!--\s*begin instructor\s*-->\s*$")
END_INSTRUCTOR = re.compile(r"^\s*<!--\s*end instructor\s*-->\s*$")
LANGUAGE = {".cu": "cuda", ".cuh": "cuda"}  # anything else is C++


def slides_build(root):
    """slides/build.py of this tree, imported (its excerpt() is the one rule for code on show)."""
    spec = importlib.util.spec_from_file_location("slides_build", root / "slides" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def readmes(root):
    return [root / "README.md"] + sorted(root.glob("steps/*/README.md"))


def fill(root, text, student=False, build=None):
    """(text with every excerpt block written from its source, [problems as 'line: what'])."""
    build = build or slides_build(root)
    lines, out, problems, i = text.split("\n"), [], [], 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        opened = i
        end = next((j for j in range(i, len(lines)) if CLOSE.match(lines[j])), None)
        if end is None:
            problems.append(f"{opened}: <!-- excerpt: {m.group(1)} --> has no <!-- end excerpt --> after it")
            continue
        fence = lines[i] if i < end and FENCE.match(lines[i]) and lines[i] != "```" else None
        try:
            rel, _, body = build.excerpt(root, m.group(1), student)
        except build.DeckError as e:
            problems.append(f"{opened}: {e}")
            out += lines[i:end]
            i = end
            continue
        out += [fence or "```" + LANGUAGE.get(pathlib.PurePath(rel).suffix, "cpp"), *body, "```"]
        i = end
    return "\n".join(out), problems


def without_instructor(text):
    """The text less its instructor-only lines and blocks."""
    out, inside = [], False
    for line in text.split("\n"):
        if BEGIN_INSTRUCTOR.match(line):
            inside = True
        elif END_INSTRUCTOR.match(line):
            inside = False
        elif not inside and not INSTRUCTOR_LINE.search(line):
            out.append(line)
    return "\n".join(out)


def students_edition(root, text, build=None):
    """A README as the students' release has it: excerpts show TODO lines, no instructors' text."""
    filled, problems = fill(root, text, student=True, build=build)
    return without_instructor(filled), problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("update", "check"))
    ap.add_argument("--root", type=pathlib.Path, default=ROOT)
    a = ap.parse_args()
    root = a.root.resolve()
    build = slides_build(root)
    # In the students' copy (make_release.py marks it) the blocks are the students' edition.
    student = (root / "RELEASE.md").is_file()
    stale, bad = [], []
    for readme in readmes(root):
        rel = readme.relative_to(root).as_posix()
        text = readme.read_text()
        new, problems = fill(root, text, student=student, build=build)
        bad += [f"{rel}:{p}" for p in problems]
        if new != text:
            stale.append(rel)
            if a.action == "update":
                readme.write_text(new)
    for p in bad:
        print(f"readme_excerpts: {p}", file=sys.stderr)
    if a.action == "check" and stale:
        print("readme_excerpts: these READMEs quote code that is not what their sources hold now:", file=sys.stderr)
        for rel in stale:
            print(f"  {rel}", file=sys.stderr)
        print("run: python3 cmake/readme_excerpts.py update", file=sys.stderr)
        return 1
    if not bad:
        done = "wrote " + ", ".join(stale) if stale and a.action == "update" else "every excerpt is up to date"
        print(f"readme_excerpts: {done}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
