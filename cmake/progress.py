#!/usr/bin/env python3
"""A student's progress: runs every exercise's test through ctest and prints one line per step
and `N of M exercises pass`. GPU exercises on a machine without a device are *skipped*, never
counted as passed or failed. Beside the table, in BUILD_DIR, it writes what an instructor collects:
progress.json (per step: passes, not yet, skipped or not built, and the first failure's message)
and progress-junit.xml (ctest's JUnit XML of the same run).

  progress.py BUILD_DIR [CTEST]   (the `progress` target of an exercises build runs this)

An exercise is the test program test_stepNN_<name>_exercise that gemv_add_step builds against
exercises/NN_<name>/. In the maintainer build those tests are WILL_FAIL (an untouched exercise
must fail); this report undoes that inversion, so it always says whether the exercise works.
Always exits 0 when ctest ran: it is a report, not a gate.
"""
import datetime
import json
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

EXERCISE_TEST = re.compile(r"^test_step(\d\d)_(\w+)_exercise$")
WRONG_ROWS = re.compile(r"(\d+ of \d+ rows of y are wrong[^.]*\.)")
COLOUR = re.compile(r"(\[NON-XML-CHAR-0x1B\]|\x1b)\[[0-9;]*m")  # as ctest's JUnit XML writes escapes
KERNEL_NOTE = re.compile(r"kernel under test: (your exercise in \S+ - fill in its TODO lines|the solution in \S+)")
WORDS = {"pass": "passes", "fail": "not yet", "skipped": "skipped", "not built": "not built"}


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


def first_failure(output):
    """The first failed check of a Catch2 program's output, in one line: its test case and its
    messages (the kernel-under-test note, the same in every exercise, left out); '' if none."""
    lines = COLOUR.sub("", output).splitlines()
    at = next((i for i, line in enumerate(lines) if line.rstrip().endswith("FAILED:")), None)
    if at is None:
        return ""
    dashes = [i for i in range(at) if set(lines[i].strip()) == {"-"} and len(lines[i].strip()) > 20]
    case = " ".join(" ".join(lines[dashes[-2] + 1:dashes[-1]]).split()) if len(dashes) >= 2 else ""
    start = next((i for i in range(at, len(lines)) if lines[i].startswith("with message")), None)
    messages = []
    if start is not None:
        for line in lines[start + 1:]:
            if not line.strip():
                break
            messages.append(line.strip())
    text = KERNEL_NOTE.sub("", " ".join(" ".join(messages).split())).strip()
    return ": ".join(p for p in (case, text) if p)


def outcome(case, will_fail):
    """('pass' | 'fail' | 'skipped' | 'not built', one line of why, the first failure's message)
    for one JUnit <testcase>."""
    status = case.get("status", "")
    raw = case.findtext("system-out") or ""
    out = " ".join(raw.split())
    skipped = case.find("skipped")
    if status == "notrun":
        why = skipped.get("message", "") if skipped is not None else ""
        if "SKIP_RETURN_CODE" in why:
            return "skipped", "no CUDA device here: it runs on a GPU machine", "no CUDA device here: it runs on a GPU machine"
        return "not built", why or "the test program did not run", why or "the test program did not run"
    passed = status == "run"
    if will_fail:  # the maintainer build inverts the result; undo it
        passed = not passed
    if passed:
        return "pass", "", ""
    wrong = WRONG_ROWS.search(out)
    message = first_failure(raw)
    return "fail", wrong.group(1) if wrong else (message[:100] or "its test fails"), message or "its test fails"


def summarize(tests, cases):
    """Per step: (number, name, state, why, message), and the totals line. `cases` maps test name
    to (state, why, message). A step passes when all its exercise tests pass."""
    steps = {}
    for name, (number, step_name, _) in sorted(tests.items()):
        steps.setdefault((number, step_name), []).append(
            cases.get(name, ("not built", "no result from ctest", "no result from ctest")))
    rows = []
    for (number, step_name), results in sorted(steps.items()):
        order = ["not built", "fail", "skipped", "pass"]  # the worst state decides
        state = min((s for s, _, _ in results), key=order.index)
        why, message = next(((w, m) for s, w, m in results if s == state), ("", ""))
        rows.append((number, step_name, state, why, message))
    passed = sum(r[2] == "pass" for r in rows)
    skipped = sum(r[2] == "skipped" for r in rows)
    total = f"{passed} of {len(rows)} exercises pass"
    if skipped:
        total += f" ({skipped} skipped: no CUDA device here)"
    return rows, total


def summary(rows, total, source):
    """What progress.json holds: the clone and its revision, the totals, and per step its state in
    the table's words and the first failure's message."""
    git = subprocess.run(["git", "-C", str(source), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return {
        "clone": str(source),
        "revision": git.stdout.strip() if git.returncode == 0 else "",
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "passed": sum(r[2] == "pass" for r in rows),
        "skipped": sum(r[2] == "skipped" for r in rows),
        "exercises": len(rows),
        "total": total,
        "steps": [{"step": number, "name": name, "state": WORDS[state], "message": message if state != "pass" else ""}
                  for number, name, state, _, message in rows],
    }


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
    junit = build / "progress-junit.xml"
    junit.unlink(missing_ok=True)
    regex = "^(" + "|".join(sorted(tests)) + ")$"
    subprocess.run([ctest, "--test-dir", str(build), "-R", regex, "--output-junit", str(junit), "-Q"],
                   capture_output=True, text=True)
    if not junit.is_file():
        print(f"progress: ctest wrote no results in {build}", file=sys.stderr)
        return 1
    cases = {c.get("name"): outcome(c, tests[c.get("name")][2])
             for c in ET.parse(junit).getroot().iter("testcase") if c.get("name") in tests}
    rows, total = summarize(tests, cases)
    width = max(len(r[1]) for r in rows)
    for number, name, state, why, _ in rows:
        print(f"  step {number} {name:<{width}}  {WORDS[state]:<9}  {why}".rstrip())
    print(total)
    source = pathlib.Path(__file__).resolve().parent.parent
    (build / "progress.json").write_text(json.dumps(summary(rows, total, source), indent=2) + "\n")
    print(f"summary for an instructor: {build / 'progress.json'} and {junit.name} (JUnit XML) beside it")
    first = next((r for r in rows if r[2] in ("fail", "not built")), None)
    if first:
        print(f"what is missing in step {first[0]}: cmake --build {build} --target check_step{first[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
