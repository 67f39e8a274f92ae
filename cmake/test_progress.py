#!/usr/bin/env python3
"""Tests of the progress report: a passing, a failing, a skipped (no GPU) and an unbuilt exercise
are each reported as such, WILL_FAIL (the maintainer build) is undone, the totals line counts
skipped exercises apart from passed and failed ones, and the summary an instructor collects names
each step's state and the first failure's message."""
import importlib.util
import pathlib
import sys
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
for f in failures:
    print("FAILED:", f)
print("all progress checks passed" if not failures else f"{len(failures)} progress checks failed")
sys.exit(1 if failures else 0)
