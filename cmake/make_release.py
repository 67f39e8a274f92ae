#!/usr/bin/env python3
"""The students' copy of the lab: a plain folder an instructor can `git init` and publish, with no
answer in it. `cmake --workflow --preset release` runs

  make_release.py --root SRC --out build/release/lab     write the copy (DIR is emptied first)
  make_release.py --root SRC --check DIR                 exit 1, naming file and line, where DIR
                                                         holds a line of an answer

What the copy holds: every tracked file of the lab (`git ls-files`; outside a git checkout, every
file but build trees), except the maintainers' and instructors' own (LEFT_OUT), and
- in each file of solutions/ with a BEGIN SOLUTION region, the region's lines replaced by the
  `// TODO: hint` line of its exercise, markers kept: the generator writes the same exercises from
  it (so `generate_exercises.py --reset` and `--check` work in the copy), and the build takes from
  solutions/ only code that is not an answer;
- the READMEs in the students' edition (cmake/readme_excerpts.py): code excerpts show the TODO
  lines, instructor-only lines and blocks left out; a step that runs earlier steps' kernels says
  that in the copy they are the student's own;
- the decks without their instructor-only slides and lines (the answers), so the copy's own
  `slides` target builds the students' decks;
- CMakePresets.json without the presets that build the solutions, and the commands of READMEs and
  decks that use them given for the exercises' build (COMMANDS);
- RELEASE.md, saying what the copy is and the revision it was made from. The build recognises a
  students' copy by it (CMakeLists.txt): it refuses to build solutions, and a step that runs an
  earlier step's kernels (gemv_add_step's RUNS_KERNELS_OF) links the student's exercises of those steps.

A line of an answer, for --check: the code of a line inside a BEGIN SOLUTION region of SRC's
solutions/ (its comment and indentation stripped), of at least MIN_LINE characters and more than
braces, that the lab's code does not hold outside such regions anyway (answer_lines).
"""
import argparse
import datetime
import json
import pathlib
import re
import shutil
import subprocess
import sys

import generate_exercises  # beside this file
import readme_excerpts
import step_readmes

MARK = "RELEASE.md"  # CMakeLists.txt looks for it too
MIN_LINE = 12
LONG_LINE = 24  # an answer line this long is found inside other text too
LEFT_OUT = [
    re.compile(r"^\.ci/"),                       # the maintainers' CI
    re.compile(r"^slides/data/.*NOTES\.md$"),    # the maintainers' notes of a step
    re.compile(r"^slides/collect_data\.sh$"),    # measures the committed data on a GPU machine
    re.compile(r"^cmake/(test_)?make_release\.py$"),  # this script and its test
    re.compile(r"(^|/)build/|(^|/)node_modules/|\.saved-"),
]
DECK = re.compile(r"^slides/(\d\d_[^/]*|ladder)\.md$")
README = re.compile(r"^(README\.md|steps/[^/]+/README\.md)$")
# The copy builds the exercises only: a command that the lab's READMEs and decks give for the
# solutions' build runs the student's kernels from the exercises' build there.
COMMANDS = [(re.compile(r"cmake --workflow --preset ladder\b"), "cmake --build --preset exercises --target ladder_run"),
            (re.compile(r"--preset default\b"), "--preset exercises"),
            (re.compile(r"\bbuild/default/"), "build/exercises/")]


def tracked(root):
    """The lab's files, relative to root, as git tracks them (present ones), or every file."""
    r = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, text=True)
    if r.returncode == 0 and r.stdout:
        names = [n for n in r.stdout.split("\0") if n]
    else:
        names = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    return sorted(n for n in names if (root / n).is_file() and not any(p.search(n) for p in LEFT_OUT))


def revision(root):
    r = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else "unknown (not a git checkout)"


def without_answers(text):
    """A solution file with each region's lines left out, its markers kept: the generator writes the
    same exercise from the marker's hint (a region of no lines opens with no comment to misread)."""
    out, hint = [], None
    for line in text.splitlines(keepends=True):
        begin = generate_exercises.BEGIN.match(line)
        if begin and hint is None:
            hint = begin
            out.append(line)
        elif hint is not None and generate_exercises.END.match(line):
            out.append(line)
            hint = None
        elif hint is None:
            out.append(line)
    return "".join(out)


def students_deck(text, build):
    """A deck without the slides and lines only instructors see; students-only lines kept unmarked."""
    parts = build.slides_of(text)
    kept = parts[:2]  # before the front matter, and the front matter
    for slide in parts[2:]:
        if not any(build.INSTRUCTOR.fullmatch(ln.strip()) for ln in slide):
            kept.append([build.STUDENT.sub("", ln).rstrip() if build.STUDENT.search(ln) else ln
                         for ln in slide if not build.INSTRUCTOR.search(ln)])
    text = "\n---\n".join("\n".join(s) for s in kept).lstrip("\n") + "\n"
    return readme_excerpts.without_instructor(text)


def students_commands(text):
    for pattern, replacement in COMMANDS:
        text = pattern.sub(replacement, text)
    return text


def with_note(text, note):
    """The note right after the README's table of where things are (or its title)."""
    close = step_readmes.CLOSE
    if close in text:
        head, _, tail = text.partition(close + "\n")
        return f"{head}{close}\n\n{note}\n{tail}"
    title, _, rest = text.partition("\n")
    return f"{title}\n\n{note}\n{rest}"


def presets_for_students(text):
    """CMakePresets.json without every preset that builds the solutions (or this copy again)."""
    p = json.loads(text)
    configure = {c["name"]: c for c in p.get("configurePresets", [])}

    def variants(c):
        while c:
            if "GEMV_VARIANTS" in c.get("cacheVariables", {}):
                return c["cacheVariables"]["GEMV_VARIANTS"]
            parents = c.get("inherits", [])
            c = configure.get(parents if isinstance(parents, str) else next(iter(parents), None))
        return "solution"  # CMakeLists.txt's default

    gone = {n for n, c in configure.items() if not c.get("hidden") and "solution" in variants(c)}
    gone |= {n for n, c in configure.items() if c.get("cacheVariables", {}).get("GEMV_RELEASE_ONLY")}
    p["configurePresets"] = [c for c in p["configurePresets"] if c["name"] not in gone]
    for kind in ("buildPresets", "testPresets"):
        p[kind] = [b for b in p.get(kind, []) if b.get("hidden") or b.get("configurePreset") not in gone]
    kept = {b["name"] for kind in ("buildPresets", "testPresets") for b in p[kind]} | set(configure) - gone
    p["workflowPresets"] = [w for w in p.get("workflowPresets", []) if all(s["name"] in kept for s in w["steps"])]
    return json.dumps(p, indent=2) + "\n"


def write(root, out):
    build = readme_excerpts.slides_build(root)
    if out.exists():
        shutil.rmtree(out)
    problems = []
    files = tracked(root)
    for rel in files:
        src, dst = root / rel, out / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if rel.startswith("solutions/") and src.suffix in generate_exercises.CODE_SUFFIXES and \
                generate_exercises.has_region(src.read_text()):
            dst.write_text(without_answers(src.read_text()))
        elif README.match(rel):
            text, bad = readme_excerpts.students_edition(root, src.read_text(), build)
            problems += [f"{rel}:{b}" for b in bad]
            note = step_readmes.borrowing_note(root, rel) if rel != "README.md" else \
                f"*The students' copy of the lab, made from revision {revision(root)}: see [RELEASE.md](RELEASE.md).*"
            dst.write_text(students_commands(with_note(text, note) if note else text))
        elif DECK.match(rel):
            dst.write_text(students_commands(students_deck(src.read_text(), build)))
        elif rel == "CMakePresets.json":
            dst.write_text(presets_for_students(src.read_text()))
        else:
            shutil.copy2(src, dst)
    made = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    (out / MARK).write_text(
        f"# GEMV lab: the students' copy\n\n"
        f"Made on {made} by `cmake --workflow --preset release` from revision {revision(root)} of the lab.\n"
        f"It holds the exercises, not their solutions: in `solutions/`, each part a student writes is the\n"
        f"`// TODO` line of the exercise, between its `BEGIN SOLUTION` and `END SOLUTION` markers, so that\n"
        f"`python3 cmake/generate_exercises.py --reset --step NN` starts an exercise over. Start with the\n"
        f"README's \"For students\". The build knows a students' copy by this file: keep it.\n")
    return problems, len(files) + 1


def code_of(line):
    """The code of a line: its trailing // comment and its indentation stripped."""
    return re.sub(r"\s*//.*$", "", line).strip()


def answer_lines(root):
    """{code: 'solutions/FILE:LINE'} of every answer line of root's solutions/: a line of a BEGIN
    SOLUTION region, its code at least MIN_LINE characters and more than braces, that no code file
    of the lab holds outside such a region (common/ or another step gives it anyway), the way
    check() searches for it."""
    given, answers = set(), {}
    for rel in tracked(root):
        path = root / rel
        if path.suffix not in generate_exercises.CODE_SUFFIXES:
            continue
        inside = False
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if generate_exercises.BEGIN.match(line):
                inside = True
            elif generate_exercises.END.match(line):
                inside = False
            elif not inside:
                given.add(code_of(line))
            elif len(code := code_of(line)) >= MIN_LINE and re.sub(r"[{}();\s]", "", code):
                answers.setdefault(code, f"{rel}:{number}")
    given_text = "\n".join(given)
    return {code: where for code, where in answers.items()
            if code not in given and not (len(code) >= LONG_LINE and code in given_text)}


def check(root, lab):
    """Every text file of the copy searched for every answer line: a line whose code is one, or
    (in prose or a line of several statements) that holds a long one."""
    answers = answer_lines(root)
    long = [a for a in answers if len(a) >= LONG_LINE]
    hits, searched = [], 0
    for path in sorted(p for p in lab.rglob("*") if p.is_file() and ".git" not in p.relative_to(lab).parts):
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue  # a picture or an archive: no source line in it
        searched += 1
        for number, line in enumerate(text.splitlines(), start=1):
            code = code_of(line)
            found = [code] if code in answers else [a for a in long if a in line]
            hits += [f"{path.relative_to(lab).as_posix()}:{number}: holds the answer line of {answers[a]}: {a}"
                     for a in found]
    for h in hits:
        print(f"make_release: {h}", file=sys.stderr)
    if not answers:
        print(f"make_release: no answer lines found in {root / 'solutions'}: nothing was checked", file=sys.stderr)
        return 1
    print(f"make_release: {searched} files of {lab} searched for {len(answers)} answer lines: "
          f"{'none found' if not hits else str(len(hits)) + ' found'}")
    return 1 if hits else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    ap.add_argument("--out", type=pathlib.Path, help="write the students' copy here")
    ap.add_argument("--check", type=pathlib.Path, metavar="DIR", help="search DIR for every answer line")
    a = ap.parse_args()
    root = a.root.resolve()
    if (root / MARK).is_file():
        print(f"make_release: {root} is a students' copy already: make the release from the full lab",
              file=sys.stderr)
        return 2
    if not a.out and not a.check:
        ap.error("give --out DIR, --check DIR or both")
    if a.out:
        out = a.out.resolve()
        if out == root or root in out.parents and not any(p.name == "build" for p in out.parents):
            print(f"make_release: write the copy under build/, not into the lab itself ({out})", file=sys.stderr)
            return 2
        problems, count = write(root, out)
        for p in problems:
            print(f"make_release: {p}", file=sys.stderr)
        if problems:
            return 1
        print(f"make_release: the students' copy, {count} files, is in {out}")
        print(f"make_release: to publish it: cd {out} && git init && git add . && git commit -m 'GEMV lab'")
    return check(root, a.check.resolve()) if a.check else 0


if __name__ == "__main__":
    sys.exit(main())
