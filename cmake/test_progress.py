#!/usr/bin/env python3
"""Tests of the progress report: a passing, a failing, a skipped (no GPU) and an unbuilt exercise
are each reported as such, WILL_FAIL (the maintainer build) is undone, the totals line counts
skipped exercises apart from passed and failed ones, and the summary an instructor collects names
each step's state and the first failure's message. Then the whole report, run against a fake
ctest and fake step programs that print JSON rows: with a GPU, each passing GPU exercise's GB/s and
% of the ceiling beside the solution's (its fastest verified row; only the exercise's rows; none
from a run that fails verification), in a copy without solutions the student's alone, and without
a GPU no program run and a line saying the figures need one."""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

spec = importlib.util.spec_from_file_location("progress", pathlib.Path(__file__).resolve().parent / "progress.py")
progress = importlib.util.module_from_spec(spec)
spec.loader.exec_module(progress)

JUNIT = """<testsuite>
<testcase name="test_step01_cpu_loop_exercise" status="run"><system-out>All tests passed</system-out></testcase>
<testcase name="test_step02_cpu_openmp_exercise" status="fail"><failure message=""/><system-out>
-------------------------------------------------------------------------------
step 02: the dynamic schedule computes y = A*x on every awkward shape - float
-------------------------------------------------------------------------------
/work/lab/tests/test_step02_cpu_openmp.cpp:5
...............................................................................

/work/lab/tests/support.hpp:39: [NON-XML-CHAR-0x1B][1;31mFAILED:
  REQUIRE( v.ok )
with expansion:
  false
with messages:
  kernel under test: your exercise in exercises/02_cpu_openmp/ - fill in its TODO
  lines
  1 x 1, row-major, float: 1 of 1 rows of y are wrong: they were never written
  (they still hold the NaN poured in before the run). Does the loop over the
  rows reach every row (check its bounds), and is each row's sum stored in y?
  First failing rows:
    row 0: got nan, expected 0.227095

-------------------------------------------------------------------------------
step 02: the static schedule computes y = A*x on every awkward shape - float
-------------------------------------------------------------------------------
/work/lab/tests/support.hpp:39: FAILED:
with messages:
  a later failure
</system-out></testcase>
<testcase name="test_step03_naive_exercise" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
  <system-out>no CUDA device: none found</system-out></testcase>
<testcase name="test_step04_coalesced_exercise" status="notrun"><skipped message="Unable to find executable"/>
  </testcase>
<testcase name="test_step05_shared_x_exercise" status="run"></testcase>
</testsuite>"""

tests = {
    "test_step01_cpu_loop_exercise": ("01", "cpu_loop", False),
    "test_step02_cpu_openmp_exercise": ("02", "cpu_openmp", False),
    "test_step03_naive_exercise": ("03", "naive", False),
    "test_step04_coalesced_exercise": ("04", "coalesced", False),
    "test_step05_shared_x_exercise": ("05", "shared_x", True),  # maintainer build: passing means it failed
}
cases = {c.get("name"): progress.outcome(c, tests[c.get("name")][2]) for c in ET.fromstring(JUNIT).iter("testcase")}
rows, total = progress.summarize(tests, cases)
summary = progress.summary(rows, total, pathlib.Path(__file__).resolve().parent.parent)
states = {r[0]: r[2] for r in rows}
failures = []
want = {"01": "pass", "02": "fail", "03": "skipped", "04": "not built", "05": "fail"}
if states != want:
    failures.append(f"states {states}, expected {want}")
why02 = next(r[3] for r in rows if r[0] == "02")
if "were never written" not in why02:
    failures.append(f"step 02's line says what is missing in plain words: {why02!r}")
if total != "1 of 5 exercises pass (1 skipped: no CUDA device here)":
    failures.append(f"totals line: {total!r}")
states = {s["step"]: s["state"] for s in summary["steps"]}
if states != {"01": "passes", "02": "not yet", "03": "skipped", "04": "not built", "05": "not yet"}:
    failures.append(f"the summary's states in the table's words: {states}")
message = next(s["message"] for s in summary["steps"] if s["step"] == "02")
want_message = ("step 02: the dynamic schedule computes y = A*x on every awkward shape - float: 1 x 1, row-major, float: "
                "1 of 1 rows of y are wrong: they were never written (they still hold the NaN poured in before the run). "
                "Does the loop over the rows reach every row (check its bounds), and is each row's sum stored in y? "
                "First failing rows: row 0: got nan, expected 0.227095")
if message != want_message:
    failures.append(f"the first failure's message, whole, without the kernel note:\n  {message!r}\n  {want_message!r}")
if next(s["message"] for s in summary["steps"] if s["step"] == "01") != "":
    failures.append("a passing step has no message")
if (summary["passed"], summary["skipped"], summary["exercises"]) != (1, 1, 5):
    failures.append(f"the summary's counts: {summary}")

# The whole report against a fake ctest (it lists the tests and writes the JUnit XML it is given)
# and fake step programs (each prints the JSON rows it is given, and leaves a mark that it ran).
FAKE_CTEST = """import json, pathlib, sys
fake = json.loads((pathlib.Path(sys.argv[sys.argv.index("--test-dir") + 1]) / "fake_ctest.json").read_text())
if "--show-only=json-v1" in sys.argv:
    print(json.dumps({"tests": fake["tests"]}))
else:
    pathlib.Path(sys.argv[sys.argv.index("--output-junit") + 1]).write_text(fake["junit"])
"""
FAKE_PROGRAM = """import json, pathlib, sys
me = pathlib.Path(sys.argv[0])
(me.parent / (me.name + ".ran")).write_text(" ".join(sys.argv[1:]))
fake = json.loads((me.parent / (me.name + ".json")).read_text())
if fake["code"] == 0:
    print("a library's notice [before the report]")
print(json.dumps(fake["rows"], indent=1))
sys.exit(fake["code"])
"""


def row(variant, gbps, pct, verified="yes"):
    return {"step": "xx", "variant": variant, "device": "Fake GPU 80GB", "gbps": gbps, "pct_ceiling": pct,
            "verified": verified}


def fake_build(build, results, programs):
    """results: {step: (name, junit status, gpu)}; programs: {program name: (rows, exit code)} in bin/;
    the registry names stepNN_<name> and stepNN_<name>_solution where those are given."""
    tests, cases = [], []
    for step, (name, status, _) in results.items():
        test = f"test_step{step}_{name}_exercise"
        tests.append({"name": test, "properties": [{"name": "LABELS", "value": [f"step{step}", "exercise"]},
                                                   {"name": "WORKING_DIRECTORY", "value": f"/lab/tests/{step}_{name}"}]})
        skipped = '<skipped message="SKIP_RETURN_CODE=77"/>' if status == "notrun" else ""
        cases.append(f'<testcase name="{test}" status="{status}">{skipped}<system-out></system-out></testcase>')
    (build / "fake_ctest.json").write_text(json.dumps({"tests": tests,
                                                       "junit": "<testsuite>" + "".join(cases) + "</testsuite>"}))
    (build / "bin").mkdir()
    for program, (rows, code) in programs.items():
        path = build / "bin" / program
        path.write_text(f"#!{sys.executable}\n" + FAKE_PROGRAM)
        path.chmod(0o755)
        (build / "bin" / (program + ".json")).write_text(json.dumps({"rows": rows, "code": code}))
    registry = []
    for step, (name, _, gpu) in results.items():
        if gpu:
            exe, sol = build / "bin" / f"step{step}_{name}", build / "bin" / f"step{step}_{name}_solution"
            registry.append({"step": step, "name": name, "exercise": str(exe),
                             "solution": str(sol) if sol.name in programs else "",
                             "exercise_rows": ["warp per row"] if step == "15" else []})
    (build / "progress_programs.json").write_text(json.dumps(registry))
    ctest = build / "ctest"
    ctest.write_text(f"#!{sys.executable}\n" + FAKE_CTEST)
    ctest.chmod(0o755)
    done = subprocess.run([sys.executable, str(pathlib.Path(__file__).resolve().parent / "progress.py"), str(build),
                           str(ctest)], capture_output=True, text=True)
    if done.returncode != 0:
        failures.append(f"progress exited {done.returncode}: {done.stderr}")
        return done.stdout, {}
    report = json.loads((build / "progress.json").read_text())
    return done.stdout, report


def step_of(report, number):
    return next(s for s in report.get("steps", []) if s["step"] == number)


with tempfile.TemporaryDirectory() as tmp:
    # On a GPU, in the instructor's clone: solutions beside the exercises.
    build = pathlib.Path(tmp) / "gpu"
    build.mkdir()
    out, report = fake_build(build, {
        "01": ("cpu_loop", "run", False),
        "03": ("naive", "run", True),
        "06": ("shared_reduction", "run", True),
        "08": ("threads_per_row", "fail", True),
        "09": ("rows_per_thread", "run", True),
        "15": ("low_precision", "run", True),
    }, {
        "step03_naive": ([row("one thread per row", 412.25, 13.3)], 0),
        "step03_naive_solution": ([row("one thread per row", 420.5, 13.56)], 0),
        "step06_shared_reduction": ([row("reduce", 900.0, 29.0), row("shuffle", 2500.0, 80.6)], 0),
        "step06_shared_reduction_solution": ([row("reduce", 950.0, 30.6), row("shuffle", 2600.0, 83.9)], 0),
        "step08_threads_per_row": ([row("atomic", 1.0, 1.0)], 0),
        "step09_rows_per_thread": ([row("rows per thread", 2000.0, 64.5, verified="NO")], 1),
        "step09_rows_per_thread_solution": ([row("rows per thread", 2100.0, 67.7)], 0),
        "step15_low_precision": ([row("warp per row", 2800.0, 90.3), row("cublasGemmEx op T", 3000.0, 96.8)], 0),
    })
    if report:
        p03 = step_of(report, "03")["performance"] or {}
        want03 = {"variant": "one thread per row", "gbps": 412.25, "pct_ceiling": 13.3, "solution_gbps": 420.5,
                  "solution_pct_ceiling": 13.56, "note": ""}
        if {k: p03.get(k) for k in want03} != want03:
            failures.append(f"step 03's figures beside the solution's: {p03}")
        p06 = step_of(report, "06")["performance"] or {}
        if (p06.get("variant"), p06.get("gbps"), p06.get("solution_gbps"), len(p06.get("rows", []))) != (
                "shuffle", 2500.0, 2600.0, 2):
            failures.append(f"step 06's headline is its fastest row, its solution's on the same variant: {p06}")
        if step_of(report, "08")["performance"] is not None or (build / "bin" / "step08_threads_per_row.ran").exists():
            failures.append("an exercise that fails its test is not measured")
        if step_of(report, "01")["performance"] is not None:
            failures.append("a CPU step has no figures")
        p09 = step_of(report, "09")["performance"] or {}
        if p09.get("gbps") is not None or "failed verification" not in p09.get("note", ""):
            failures.append(f"a run that fails verification reports no figures, and says so: {p09}")
        p15 = step_of(report, "15")["performance"] or {}
        if [r["variant"] for r in p15.get("rows", [])] != ["warp per row"] or p15.get("solution_gbps") is not None:
            failures.append(f"step 15: only the exercise's row, no solution in the registry: {p15}")
        ran = (build / "bin" / "step03_naive.ran").read_text() if (build / "bin" / "step03_naive.ran").exists() else ""
        if ran != "--format json" or not (build / "bin" / "step03_naive_solution.ran").exists():
            failures.append(f"each program runs once on its default problem with --format json: {ran!r}")
        overall = report.get("performance", {})
        if (overall.get("gpu"), overall.get("device"), overall.get("solutions")) != (True, "Fake GPU 80GB", True):
            failures.append(f"the summary's figures line: {overall}")
        if "412.2 GB/s, 13.3 % of the ceiling (solution 420.5 GB/s, 13.6 %)" not in out:
            failures.append(f"the table shows step 03's figures beside the solution's:\n{out}")
        if "shuffle: 2500.0 GB/s" not in out or "the solution's run right after it" not in out:
            failures.append(f"the table names the fastest variant, and how the figures were taken:\n{out}")

    # On a GPU, in the students' release: no solution programs.
    build = pathlib.Path(tmp) / "release"
    build.mkdir()
    out, report = fake_build(build, {"04": ("coalesced", "run", True)},
                             {"step04_coalesced": ([row("one thread per row", 2900.0, 93.5)], 0)})
    if report:
        p04 = step_of(report, "04")["performance"] or {}
        if (p04.get("gbps"), p04.get("solution_gbps"), report["performance"].get("solutions")) != (2900.0, None, False):
            failures.append(f"the release: the student's figures alone: {p04}")
        if "the solution's figures are not in this copy of the lab" not in out:
            failures.append(f"the release's report says the solution's figures are not in it:\n{out}")

    # Without a GPU: the GPU exercises are skipped, nothing is run, the report says why.
    build = pathlib.Path(tmp) / "cpu"
    build.mkdir()
    out, report = fake_build(build, {"01": ("cpu_loop", "run", False), "03": ("naive", "notrun", True)},
                             {"step03_naive": ([row("one thread per row", 1.0, 1.0)], 0),
                              "step03_naive_solution": ([row("one thread per row", 1.0, 1.0)], 0)})
    if report:
        if any((build / "bin" / p).exists() for p in ("step03_naive.ran", "step03_naive_solution.ran")):
            failures.append("without a GPU no step program is run")
        overall = report.get("performance", {})
        if overall.get("gpu") is not False or "need a GPU" not in overall.get("note", ""):
            failures.append(f"without a GPU the summary says the figures need one: {overall}")
        if "GB/s and % of the ceiling need a GPU" not in out:
            failures.append(f"without a GPU the report says in a plain line that the figures need one:\n{out}")
        if any(s["performance"] is not None for s in report["steps"]):
            failures.append("without a GPU no step has figures")

for f in failures:
    print("FAILED:", f)
print("all progress checks passed" if not failures else f"{len(failures)} progress checks failed")
sys.exit(1 if failures else 0)
