#!/usr/bin/env python3
"""One step's tests through ctest, ending with one plain line: the step passes, fails, or was
*not checked*. A test that ctest skipped (exit 77: no CUDA device) checked nothing, so a step with
any skipped test does not pass, even where every test that ran passed: ctest alone would print
"100% tests passed" and exit 0 for it.

  check_step.py NN BUILD_DIR [CTEST]   (the check_stepNN target runs this)

Exit status: 0 every test of the step ran and passed; 1 a test failed or did not run; 2 not
checked (some tests skipped, none failed).
"""
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

NOT_RUN_MISSING = "Unable to find executable"


def reason(case):
    """Why ctest skipped one test, in a few words."""
    out = (case.findtext("system-out") or "") + " " + (case.find("skipped").get("message", "")
                                                       if case.find("skipped") is not None else "")
    if "no CUDA device" in out or "SKIP_RETURN_CODE=77" in out:
        return "no CUDA device here"
    first = next((line.strip() for line in (case.findtext("system-out") or "").splitlines() if line.strip()), "")
    return first[:80] or "skipped by its test"


def verdict(number, junit_root, ctest_code):
    """(exit status, the closing line) from ctest's JUnit XML of the step's run."""
    tests = skipped = failed = 0
    reasons = []
    for case in junit_root.iter("testcase"):
        tests += 1
        status = case.get("status", "")
        skip = case.find("skipped")
        if status == "notrun" and skip is not None and NOT_RUN_MISSING not in skip.get("message", ""):
            skipped += 1
            if reason(case) not in reasons:
                reasons.append(reason(case))
        elif status != "run" or case.find("failure") is not None:
            failed += 1
    if tests == 0:
        return 1, (f"step {number}: NOT CHECKED - ctest found no test labelled step{number} in this build "
                   "(a build without CUDA or MPI leaves out the steps that need them)")
    if failed or (ctest_code != 0 and not skipped):
        return 1, f"step {number}: FAILS - {failed or 'some'} of {tests} tests failed or did not run (see above)"
    if skipped:
        why = "; ".join(reasons)
        gpu = " on a machine with a GPU" if "no CUDA device here" in reasons else " where its tests can run"
        return 2, (f"step {number}: NOT CHECKED - {why} ({skipped} of {tests} tests skipped); "
                   f"run check_step{number}{gpu}")
    return 0, f"step {number}: passes - all {tests} tests ran and passed"


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    number, build = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    ctest = sys.argv[3] if len(sys.argv) == 4 else "ctest"
    junit = build / f"check_step{number}-junit.xml"
    junit.unlink(missing_ok=True)
    sys.stdout.flush()
    code = subprocess.run([ctest, "--test-dir", str(build), "-L", f"^step{number}$", "--output-on-failure",
                           "--output-junit", str(junit)]).returncode
    if not junit.is_file():
        print(f"step {number}: NOT CHECKED - ctest wrote no results (exit {code})")
        return 1
    status, line = verdict(number, ET.parse(junit).getroot(), code)
    print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())
