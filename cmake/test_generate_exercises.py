#!/usr/bin/env python3
"""Tests of the exercise generator: stubs keep the marker's indent and hint; malformed markers
are rejected with the file and line, and so is a hint cut in two (it ends mid-expression or
mid-sentence, or its region opens with the rest of it as a comment); only files with regions (and
files that include them) become exercises; an edited exercise is never overwritten without --reset, and --reset keeps a copy."""
import pathlib
import subprocess
import sys
import tempfile

GEN = pathlib.Path(__file__).resolve().parent / "generate_exercises.py"
failures = []
checks = 0


def write(root, files):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def generate(root, *extra):
    return subprocess.run([sys.executable, str(GEN), "--root", str(root), *extra], capture_output=True, text=True)


def exercises(root):
    base = root / "exercises"
    return {p.relative_to(base).as_posix(): p.read_text() for p in base.rglob("*") if p.is_file()} if base.exists() else {}


def run(files, *extra):
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        write(root, {f"solutions/{name}": text for name, text in files.items()})
        r = generate(root, *extra)
        return r, exercises(root)


def expect(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)


good = "void f() {\n    int a = 1;\n    // BEGIN SOLUTION add the row\n    a += 2;\n    // END SOLUTION\n}\n"
r, out = run({"01_x/k.cpp": good, "01_x/notes.txt": "plain\n", "01_x/k.hpp": "void f();\n"})
expect(r.returncode == 0, f"a good file is accepted: {r.stderr}")
ex = out.get("01_x/k.cpp", "")
expect("    // TODO: add the row\n" in ex, f"the stub keeps indent and hint: {ex!r}")
expect("a += 2" not in ex, "the solution is removed")
expect(ex.startswith("// Generated from solutions/01_x/k.cpp") and "--reset --step 01" in ex.splitlines()[0],
       f"the header names the solution and how to start over: {ex.splitlines()[0]!r}")
expect("01_x/notes.txt" not in out, "data files are not copied (the build reads them from solutions/)")
expect("01_x/k.hpp" not in out, "a file with nothing to fill in is not copied (the build takes it from solutions/)")
expect(sorted(out) == ["01_x/k.cpp", "generated.sha256"], f"exactly the exercise and the manifest: {sorted(out)}")
expect(out.get("generated.sha256", "").endswith("  01_x/k.cpp\n"), f"the manifest lists it: {out.get('generated.sha256')!r}")

# A file that includes an exercise file is built from exercises/ too, so it is copied, saying why.
r, out = run({"01_x/k.cuh": good, "01_x/user.cu": '#include "k.cuh"\nint g;\n', "01_x/other.cu": "int h;\n"})
expect(r.returncode == 0 and "01_x/user.cu" in out and "01_x/other.cu" not in out,
       f"the includer is copied, the unrelated file is not: {r.stderr} {sorted(out)}")
expect("nothing to fill in here" in out.get("01_x/user.cu", "") and "k.cuh" in out.get("01_x/user.cu", ""),
       f"the includer says what it is: {out.get('01_x/user.cu')!r}")

# EXCERPT markers (the slides' named regions) are plain comments to the generator: copied as they are,
# around a solution region or inside one (then dropped with it).
excerpted = ("// BEGIN EXCERPT loop\nvoid f() {\n    // BEGIN SOLUTION sum\n    // BEGIN EXCERPT inner\n    g();\n"
             "    // END EXCERPT inner\n    // END SOLUTION\n}\n// END EXCERPT loop\n")
r, out = run({"01_x/k.cpp": excerpted})
ex = out.get("01_x/k.cpp", "")
expect(r.returncode == 0 and "// BEGIN EXCERPT loop\n" in ex and "// END EXCERPT loop\n" in ex
       and "    // TODO: sum\n" in ex and "inner" not in ex and "g();" not in ex,
       f"excerpt markers are copied, solution regions still replaced: {r.stderr} {ex!r}")

for name, text, needle in [
    ("nested", "// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n// END SOLUTION\n", "k.cpp:2: BEGIN SOLUTION inside"),
    ("unclosed", "int a;\n// BEGIN SOLUTION\nint b;\n", "k.cpp:2: BEGIN SOLUTION is never closed"),
    ("stray end", "int a;\n// END SOLUTION\n", "k.cpp:2: END SOLUTION without"),
    # A hint cut in two (a formatter wrapped the marker line): the student would see only its first half.
    ("hint ends mid-expression", "int a;\n// BEGIN SOLUTION acc += A[j] * x[j +\nint b;\n// END SOLUTION\n",
     "k.cpp:2: the hint of BEGIN SOLUTION ends mid-sentence"),
    ("hint ends with a comma", "// BEGIN SOLUTION walk the columns: acc += a * x,\nint b;\n// END SOLUTION\n",
     "k.cpp:1: the hint of BEGIN SOLUTION ends mid-sentence"),
    ("hint ends mid-sentence", "// BEGIN SOLUTION add each product to the\nint b;\n// END SOLUTION\n",
     "k.cpp:1: the hint of BEGIN SOLUTION ends mid-sentence"),
    ("hint continued in a comment", "  // BEGIN SOLUTION walk the columns j\n  // loaded by load_a\nint b;\n// END SOLUTION\n",
     "k.cpp:2: the region of BEGIN SOLUTION (line 1) opens with a comment"),
]:
    r, _ = run({"01_x/k.cpp": text})
    expect(r.returncode != 0 and needle in r.stderr, f"{name}: exit {r.returncode}, stderr {r.stderr!r}")

# Whole hints pass: one ending in a question, one ending in a name, one whose region's comment follows code.
whole = ("// BEGIN SOLUTION where is element (row, j)?\nint b;\n// END SOLUTION\n"
         "// BEGIN SOLUTION z == 0 stores\nint c;  // a note\n// A comment after code.\n// END SOLUTION\n")
r, out = run({"01_x/k.cpp": whole})
expect(r.returncode == 0 and "// TODO: where is element (row, j)?\n" in out.get("01_x/k.cpp", ""),
       f"whole hints are accepted: {r.stderr!r}")

r, _ = run({"01_x/k.cpp": good}, "--check")
expect(r.returncode == 1 and "missing" in r.stderr, f"--check names a missing exercise: {r.stderr!r}")
r, _ = run({"01_x/k.cpp": good}, "--step", "1")
expect(r.returncode == 0, f"--step 1 means step 01: {r.stderr!r}")

# A student's work: never overwritten without --reset; --reset keeps a copy; the check sees the edit.
with tempfile.TemporaryDirectory() as d:
    root = pathlib.Path(d)
    write(root, {"solutions/01_x/k.cpp": good, "solutions/02_y/k.cpp": good})
    generate(root)
    mine = root / "exercises/01_x/k.cpp"
    solved = mine.read_text().replace("// TODO: add the row", "a += 2;  // mine")
    mine.write_text(solved)
    r = generate(root)
    expect(r.returncode == 1 and mine.read_text() == solved and "--reset" in r.stderr and "01_x/k.cpp" in r.stderr,
           f"an edited exercise is kept, and the way to start over named: exit {r.returncode}, {r.stderr!r}")
    r = generate(root, "--step", "01")
    expect(r.returncode == 1 and mine.read_text() == solved, "--step alone does not overwrite it either")
    expect(generate(root, "--check").returncode == 1, "the maintainers' check sees the edit")
    # A changed solution reaches the untouched exercise of step 02 but not the edited one of step 01.
    write(root, {"solutions/01_x/k.cpp": good.replace("add the row", "add it"),
                 "solutions/02_y/k.cpp": good.replace("add the row", "add it")})
    r = generate(root)
    expect(r.returncode == 1 and mine.read_text() == solved
           and "// TODO: add it" in (root / "exercises/02_y/k.cpp").read_text(),
           f"untouched exercises follow their solution, edited ones stay: {r.stdout} {r.stderr}")
    r = generate(root, "--reset", "--step", "1")
    copies = list((root / "exercises/01_x").glob("k.cpp.saved-*"))
    expect(r.returncode == 0 and "// TODO: add it" in mine.read_text(), f"--reset starts it over: {r.stderr!r}")
    expect(len(copies) == 1 and copies[0].read_text() == solved, f"--reset keeps a copy of the edited one: {copies}")
    expect(generate(root, "--check").returncode == 0, "after the reset the check passes, the copy beside it")
    # A file the generator did not write is never removed.
    extra = root / "exercises/01_x/helper.cpp"
    extra.write_text("int mine;\n")
    r = generate(root)
    expect(extra.is_file() and r.returncode == 1, f"a student's own file stays: {r.stderr!r}")

# Exercises written before the manifest (the old header) count as untouched: replaced, not kept.
with tempfile.TemporaryDirectory() as d:
    root = pathlib.Path(d)
    old = "// Generated from solutions/01_x/{} by cmake/generate_exercises.py: fill in the TODOs; regenerate to reset.\n"
    write(root, {"solutions/01_x/k.cpp": good, "solutions/01_x/k.hpp": "void f();\n",
                 "exercises/01_x/k.cpp": old.format("k.cpp") + good.replace(
                     "    // BEGIN SOLUTION add the row\n    a += 2;\n    // END SOLUTION\n", "    // TODO: add the row\n"),
                 "exercises/01_x/k.hpp": old.format("k.hpp") + "void f();\n"})
    r = generate(root)
    expect(r.returncode == 0 and not (root / "exercises/01_x/k.hpp").exists()
           and generate(root, "--check").returncode == 0, f"old-style exercises are replaced: {r.stdout} {r.stderr}")

for f in failures:
    print("FAILED:", f)
print(f"{checks - len(failures)} of {checks} generator checks passed")
sys.exit(1 if failures else 0)
