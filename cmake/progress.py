#!/usr/bin/env python3
"""A student's progress: runs every exercise's test through ctest and prints one line per step
and `N of M exercises pass`. GPU exercises on a machine without a device are *skipped*, never
counted as passed or failed.

  progress.py BUILD_DIR [CTEST]   (the `progress` target of an exercises build runs this)

An exercise is the test program test_stepNN_<name>_exercise that gemv_add_step builds against
exercises/NN_<name>/. In the maintainer build those tests are WILL_FAIL (an untouched exercise
must fail); this report undoes that inversion, so it always says whether the exercise works.
Always exits 0 when ctest ran: it is a report, not a gate.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

EXERCISE_TEST = re.compile(r"^test_step(\d\d)_(\w+)_exercise$")
WRONG_ROWS = re.compile(r"(\d+ of \d+ rows of y are wrong[^.]*\.)")


def exercise_tests(ctest, build):
    """{test name: (step number, step name, will_fail)} of the exercise test programs; the step's
    name is its folder's (a step may have several test programs)."""
    out = subprocess.run([ctest, "--test-dir", str(build), "--show-only=json-v1"], capture_output=True, text=True,
                         check=True).stdout
    tests = {}
    for t in json.loads(out).get("tests", []):
        m = EXERCISE_TEST.match(t.get("name", ""))
        if not m:
            continue
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        if "exercise" not in props.get("LABELS", []):
            continue
        folder = pathlib.Path(props.get("WORKING_DIRECTORY", "")).name
        name = folder[3:] if folder.startswith(m.group(1) + "_") else m.group(2)
        tests[t["name"]] = (m.group(1), name, bool(props.get("WILL_FAIL", False)))
    return tests


def outcome(case, will_fail):
    """('pass' | 'fail' | 'skipped' | 'not built', one line of why) for one JUnit <testcase>."""
    status = case.get("status", "")
    out = " ".join((case.findtext("system-out") or "").split())
    skipped = case.find("skipped")
    if status == "notrun":
        why = skipped.get("message", "") if skipped is not None else ""
        if "SKIP_RETURN_CODE" in why:
            return "skipped", "no CUDA device here: it runs on a GPU machine"
        return "not built", why or "the test program did not run"
    passed = status == "run"
    if will_fail:  # the maintainer build inverts the result; undo it
        passed = not passed
    if passed:
        return "pass", ""
    wrong = WRONG_ROWS.search(out)
    return "fail", wrong.group(1) if wrong else "its test fails"


def summarize(tests, cases):
    """Per step: (number, name, state, why), and the totals line. `cases` maps test name to
    (state, why). A step passes when all its exercise tests pass."""
    steps = {}
    for name, (number, step_name, _) in sorted(tests.items()):
        steps.setdefault((number, step_name), []).append(cases.get(name, ("not built", "no result from ctest")))
    rows = []
    for (number, step_name), results in sorted(steps.items()):
        order = ["not built", "fail", "skipped", "pass"]  # the worst state decides
        state = min((s for s, _ in results), key=order.index)
        why = next((w for s, w in results if s == state), "")
        rows.append((number, step_name, state, why))
    passed = sum(r[2] == "pass" for r in rows)
    skipped = sum(r[2] == "skipped" for r in rows)
    total = f"{passed} of {len(rows)} exercises pass"
    if skipped:
        total += f" ({skipped} skipped: no CUDA device here)"
    return rows, total


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    build = pathlib.Path(sys.argv[1]).resolve()
    ctest = sys.argv[2] if len(sys.argv) == 3 else "ctest"
    tests = exercise_tests(ctest, build)
    if not tests:
        print(f"progress: no exercise tests in {build}: configure the exercises preset "
              "(cmake --preset exercises) and build it", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        junit = pathlib.Path(tmp) / "progress.xml"
        regex = "^(" + "|".join(sorted(tests)) + ")$"
        subprocess.run([ctest, "--test-dir", str(build), "-R", regex, "--output-junit", str(junit), "-Q"],
                       capture_output=True, text=True)
        if not junit.is_file():
            print(f"progress: ctest wrote no results in {build}", file=sys.stderr)
            return 1
        cases = {c.get("name"): outcome(c, tests[c.get("name")][2])
                 for c in ET.parse(junit).getroot().iter("testcase") if c.get("name") in tests}
    rows, total = summarize(tests, cases)
    words = {"pass": "passes", "fail": "not yet", "skipped": "skipped", "not built": "not built"}
    width = max(len(r[1]) for r in rows)
    for number, name, state, why in rows:
        print(f"  step {number} {name:<{width}}  {words[state]:<9}  {why}".rstrip())
    print(total)
    first = next((r for r in rows if r[2] in ("fail", "not built")), None)
    if first:
        print(f"what is missing in step {first[0]}: ctest --test-dir {build} -L step{first[0]} --output-on-failure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
