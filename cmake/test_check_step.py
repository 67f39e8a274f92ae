#!/usr/bin/env python3
"""Tests of check_step.py, the check_stepNN target's wrapper around ctest, with a fake ctest that
writes a given JUnit XML and exit code: every test passing is a pass (exit 0); every test skipped
(no CUDA device), or some passing and the rest skipped, is NOT CHECKED and exits non-zero, never
"passes"; a failure is a failure; a build with no test of the step is not a pass either."""
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
PASS = '<testcase name="{0}" status="run"><system-out>All tests passed</system-out></testcase>'
SKIP = ('<testcase name="{0}" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>'
        '<system-out>no CUDA device: none found</system-out></testcase>')
SKIP_REGEX = ('<testcase name="{0}" status="notrun"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>'
              '<system-out>skipped: no CUDA device (exit 77)</system-out></testcase>')
FAIL = '<testcase name="{0}" status="fail"><failure message=""/><system-out>FAILED</system-out></testcase>'
MISSING = '<testcase name="{0}" status="notrun"><skipped message="Unable to find executable: x"/></testcase>'

FAKE_CTEST = """#!{python}
import sys
args = sys.argv[1:]
open(args[args.index("--output-junit") + 1], "w").write(open({junit!r}).read())
sys.exit({code})
"""


def run(cases, code):
    """check_step.py 08 against a fake ctest reporting `cases` with exit `code`: (exit, last line)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        junit = tmp / "given.xml"
        junit.write_text("<testsuite>" + "".join(kind.format(f"t{i}") for i, kind in enumerate(cases)) + "</testsuite>")
        ctest = tmp / "ctest"
        ctest.write_text(FAKE_CTEST.format(python=sys.executable, junit=str(junit), code=code))
        os.chmod(ctest, 0o755)
        r = subprocess.run([sys.executable, str(HERE / "check_step.py"), "08", str(tmp), str(ctest)],
                           capture_output=True, text=True)
        lines = r.stdout.strip().splitlines()
        return r.returncode, lines[-1] if lines else ""


failures = []
checks = [
    ("all pass", [PASS, PASS], 0, 0, "step 08: passes - all 2 tests ran and passed"),
    ("all skipped", [SKIP, SKIP_REGEX, SKIP], 0, 2,
     "step 08: NOT CHECKED - no CUDA device here (3 of 3 tests skipped); run check_step08 on a machine with a GPU"),
    ("some pass, the rest skipped", [PASS, SKIP], 0, 2,
     "step 08: NOT CHECKED - no CUDA device here (1 of 2 tests skipped); run check_step08 on a machine with a GPU"),
    ("a failure beside skips", [PASS, FAIL, SKIP], 8, 1,
     "step 08: FAILS - 1 of 3 tests failed or did not run (see above)"),
    ("a test program not built", [PASS, MISSING], 8, 1,
     "step 08: FAILS - 1 of 2 tests failed or did not run (see above)"),
    ("no test of the step", [], 8, 1, "step 08: NOT CHECKED - ctest found no test labelled step08 in this build "
     "(a build without CUDA or MPI leaves out the steps that need them)"),
]
for what, cases, code, want_code, want_line in checks:
    got_code, got_line = run(cases, code)
    if (got_code, got_line) != (want_code, want_line):
        failures.append(f"{what}: exit {got_code}, {got_line!r}; expected exit {want_code}, {want_line!r}")

for f in failures:
    print("FAIL:", f)
print(f"{len(checks) - len(failures)} of {len(checks)} cases as expected")
sys.exit(1 if failures else 0)
