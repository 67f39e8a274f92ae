#!/usr/bin/env python3
"""Tests of the students' release (make_release.py), without a compiler: the copy is written to a
scratch folder, searched for answers (and a planted one is found), and the lab's own checks run in
it: the generator's, the README excerpts', the step READMEs' tables.

  test_make_release.py [--root SRC]
"""
import argparse
import contextlib
import io
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import make_release  # beside this file

HERE = pathlib.Path(__file__).resolve().parent


def run(script, *args, cwd):
    return subprocess.run([sys.executable, str(cwd / "cmake" / script), *args], cwd=cwd, capture_output=True,
                          text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=pathlib.Path, default=HERE.parent)
    a = ap.parse_args()
    root = a.root.resolve()
    failures = []

    def expect(ok, what):
        print(f"{'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as scratch:
        lab = pathlib.Path(scratch).resolve() / "lab"
        problems, count = make_release.write(root, lab)
        expect(not problems and count > 100, f"the copy is written ({count} files){': ' + problems[0] if problems else ''}")
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            clean = make_release.check(root, lab)
        expect(clean == 0, "no line of an answer in the copy")

        # A planted answer is found, by file and line: the search is not vacuous.
        answer, where = next(iter(make_release.answer_lines(root).items()))
        readme = lab / "steps" / "README-planted.md"
        readme.write_text(f"intro\n    {answer}\n")
        caught = io.StringIO()
        with contextlib.redirect_stdout(caught), contextlib.redirect_stderr(caught):
            planted = make_release.check(root, lab)
        expect(planted == 1 and "steps/README-planted.md:2" in caught.getvalue() and where in caught.getvalue(),
               f"a planted answer line ({where}) is found and named")
        readme.unlink()

        presets = json.loads((lab / "CMakePresets.json").read_text())
        names = {c["name"] for c in presets["configurePresets"]}
        workflows = {w["name"] for w in presets["workflowPresets"]}
        expect("exercises" in names and not names & {"default", "maintainer", "release"} and "progress" in workflows,
               f"presets: exercises and progress kept, none that builds solutions ({sorted(names)})")
        every = {x["name"] for kind in ("configurePresets", "buildPresets", "testPresets", "workflowPresets")
                 for x in presets[kind]}
        named = {(p.relative_to(lab).as_posix(), m) for p in [lab / "README.md", *lab.glob("steps/*/README.md"),
                                                              *lab.glob("slides/*.md")]
                 for m in re.findall(r"--preset (\w+)", p.read_text())}
        missing = sorted(f"{f}: --preset {m}" for f, m in named if m not in every)
        expect(named and not missing, f"every preset a README or deck of the copy names is there {missing[:3]}")
        expect((lab / make_release.MARK).is_file() and not (lab / ".ci").exists(),
               "RELEASE.md written, .ci/ left out")
        expect(not list(lab.glob("slides/data/**/NOTES.md")), "no maintainers' notes")
        decks = [p for p in lab.glob("slides/*.md") if make_release.readme_excerpts.INSTRUCTOR_LINE.search(p.read_text())
                 or "<!-- student -->" in p.read_text()]
        expect(not decks, f"decks without instructor-only or students-only marks ({[p.name for p in decks]})")
        for script, args in (("generate_exercises.py", ["--check"]), ("readme_excerpts.py", ["check"]),
                             ("step_readmes.py", ["--check"]), ("step_readmes.py", ["--length"])):
            r = run(script, *args, cwd=lab)
            expect(r.returncode == 0, f"in the copy, {script} {' '.join(args)} passes{': ' + r.stderr[-300:] if r.returncode else ''}")
        again = run("generate_exercises.py", "--reset", "--step", "1", cwd=lab)
        expect(again.returncode == 0 and "wrote" not in again.stdout,
               "in the copy, --reset finds the untouched exercise as the generator makes it")

    print(f"{'all release checks passed' if not failures else str(len(failures)) + ' release checks failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
