#!/usr/bin/env python3
"""Tests of the exercise generator: stubs keep the marker's indent and hint; malformed markers
are rejected with the file and line."""
import pathlib
import subprocess
import sys
import tempfile

GEN = pathlib.Path(__file__).resolve().parent / "generate_exercises.py"
failures = []


def run(files, *extra):
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        for name, text in files.items():
            p = root / "solutions" / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        r = subprocess.run([sys.executable, str(GEN), "--root", str(root), *extra], capture_output=True, text=True)
        out = {p.relative_to(root / "exercises").as_posix(): p.read_text()
               for p in (root / "exercises").rglob("*") if p.is_file()} if (root / "exercises").exists() else {}
        return r, out


def expect(cond, what):
    if not cond:
        failures.append(what)


good = "void f() {\n    int a = 1;\n    // BEGIN SOLUTION add the row\n    a += 2;\n    // END SOLUTION\n}\n"
r, out = run({"01_x/k.cpp": good, "01_x/notes.txt": "plain\n"})
expect(r.returncode == 0, f"a good file is accepted: {r.stderr}")
ex = out.get("01_x/k.cpp", "")
expect("    // TODO: add the row\n" in ex, f"the stub keeps indent and hint: {ex!r}")
expect("a += 2" not in ex, "the solution is removed")
expect("01_x/notes.txt" not in out, "data files are not copied (the build reads them from solutions/)")

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
]:
    r, _ = run({"01_x/k.cpp": text})
    expect(r.returncode != 0 and needle in r.stderr, f"{name}: exit {r.returncode}, stderr {r.stderr!r}")

r, _ = run({"01_x/k.cpp": good}, "--check")
expect(r.returncode == 1 and "missing" in r.stderr, f"--check names a missing exercise: {r.stderr!r}")

for f in failures:
    print("FAILED:", f)
print(f"{3 + 1 + 3 + 1 - len(failures)} checks passed, {len(failures)} failed" if failures else "all generator checks passed")
sys.exit(1 if failures else 0)
