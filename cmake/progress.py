#!/usr/bin/env python3
"""A student's progress: runs every exercise's test through ctest and prints one line per step
and `N of M exercises pass`. GPU exercises on a machine without a device are *skipped*, never
counted as passed or failed. On a GPU machine, each GPU exercise that passes is run once more on
its step's default problem (`--format json`), and the solution's program right after it where this
copy of the lab has the solutions: the kernel's GB/s and % of the measured ceiling, beside the
solution's. Beside the table, in BUILD_DIR, it writes what an instructor collects: progress.json
(per step: passes, not yet, skipped or not built, the first failure's message and those figures)
and progress-junit.xml (ctest's JUnit XML of the same run). cmake/class_report.py gathers the
progress.json files of a class.

  progress.py BUILD_DIR [CTEST]   (the `progress` target of an exercises build runs this)

An exercise is the test program test_stepNN_<name>_exercise that gemv_add_step builds against
exercises/NN_<name>/. In the maintainer build those tests are WILL_FAIL (an untouched exercise
must fail); this report undoes that inversion, so it always says whether the exercise works.
Always exits 0 when ctest ran: it is a report, not a gate.
"""
import datetime
import hashlib
import json
import os
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
PROGRAMS = "progress_programs.json"  # each GPU step's programs, written by the build (gemv_progress_programs)
RUN_SECONDS = 300  # one program on its default problem takes a few seconds; this is a hang
MPI_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}  # step 14 alone, as root


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


def report_rows(text):
    """The JSON array a step program printed, from the first line that opens one (a library may
    print a notice before it); None where there is none."""
    for line in re.finditer(r"^\[", text, re.MULTILINE):
        try:
            return json.JSONDecoder().raw_decode(text, line.start())[0]
        except ValueError:
            continue
    return None


def run_program(path):
    """The report rows of one run of a step program on its default problem (`--format json`), and
    '' or why there are none."""
    if not path:
        return None, "its program is not built by this preset"
    name = pathlib.Path(path).name
    if not pathlib.Path(path).is_file():
        return None, f"{name} is not built"
    try:
        done = subprocess.run([path, "--format", "json"], capture_output=True, text=True, timeout=RUN_SECONDS,
                              env={**os.environ, **MPI_ROOT})
    except subprocess.TimeoutExpired:
        return None, f"{name} ran past {RUN_SECONDS} s"
    except OSError as e:
        return None, f"{name} did not start: {e.strerror}"
    if done.returncode == 77:
        return None, f"{name} found no CUDA device"
    rows = report_rows(done.stdout)
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return None, f"{name} exited {done.returncode} without a report" + (f": {last}" if last else "")
    return rows, ""


def figures(row):
    """(GB/s, % of the ceiling) of a report row: None where its run was not verified right (or the
    figure is not a number: a ceiling taken on a busy host, a step with no ceiling)."""
    def number(key):
        v = (row or {}).get(key)
        ok = (row or {}).get("verified") == "yes" and isinstance(v, (int, float)) and not isinstance(v, bool)
        return float(v) if ok else None
    return number("gbps"), number("pct_ceiling")


def measure(entry):
    """One passing GPU exercise's figures: its program on the default problem, then the solution's.
    Returns ({variant, gbps, pct_ceiling, solution_gbps, solution_pct_ceiling, rows, note}, device):
    the headline is the exercise's fastest verified row (rows: each row of the exercise's kernel),
    a figure is None where it was not measured, and note says why."""
    perf = {"variant": "", "gbps": None, "pct_ceiling": None, "solution_gbps": None, "solution_pct_ceiling": None,
            "rows": [], "note": ""}
    rows, why = run_program(entry.get("exercise", ""))
    if rows is None:
        perf["note"] = f"not measured: {why}"
        return perf, ""
    device = str(rows[0].get("device", ""))
    wanted = entry.get("exercise_rows") or []
    mine = [r for r in rows if not wanted or any(str(r.get("variant", "")).startswith(w) for w in wanted)]
    if not mine:
        perf["note"] = "not measured: its report has no row " + " or ".join(repr(w) for w in wanted)
        return perf, device
    solution, solution_why = run_program(entry["solution"]) if entry.get("solution") else ([], "")
    theirs = {r.get("variant"): r for r in solution or []}
    for r in mine:
        variant = str(r.get("variant", ""))
        (gbps, pct), (s_gbps, s_pct) = figures(r), figures(theirs.get(variant))
        perf["rows"].append({"variant": variant, "verified": r.get("verified", ""), "gbps": gbps, "pct_ceiling": pct,
                             "solution_gbps": s_gbps, "solution_pct_ceiling": s_pct})
    notes = [f"{r['variant']} failed verification on the default problem: no figures" for r in perf["rows"]
             if r["verified"] != "yes"]
    if solution is None:
        notes.append(f"the solution's run: {solution_why}")
    measured = [r for r in perf["rows"] if r["gbps"] is not None]
    if measured:
        best = max(measured, key=lambda r: r["gbps"])
        perf.update({k: best[k] for k in ("variant", "gbps", "pct_ceiling", "solution_gbps", "solution_pct_ceiling")})
    perf["note"] = "; ".join(notes)
    return perf, device


def performance(build, rows):
    """The figures of the passing GPU exercises: ({gpu, device, solutions, note}, {step: measure's
    figures}). gpu is True where the GPU exercises ran, False where they were skipped (no device),
    None where none was built; note is the report's plain line about the figures."""
    try:
        entries = {e["step"]: e for e in json.loads((build / PROGRAMS).read_text())}
    except (OSError, ValueError, KeyError, TypeError):
        entries = {}
    gpu = [r for r in rows if r[0] in entries]
    passing = [r[0] for r in gpu if r[2] == "pass"]
    overall = {"gpu": None, "device": "", "solutions": any(entries[r[0]].get("solution") for r in gpu), "note": ""}
    measured = {}
    if passing:
        print(f"measuring {len(passing)} passing GPU exercise(s), each on its step's default problem ...", flush=True)
        for step in passing:
            measured[step], device = measure(entries[step])
            overall["device"] = overall["device"] or device
        where = f" on {overall['device']}" if overall["device"] else ""
        overall["note"] = (f"GB/s and % of the measured ceiling{where}, each passing GPU exercise on its step's "
                           "default problem, " + ("the solution's run right after it" if overall["solutions"] else
                                                  "alone: the solution's figures are not in this copy of the lab"))
    elif any(r[2] == "fail" for r in gpu):
        overall["note"] = "GB/s and % of the ceiling are measured for each GPU exercise that passes: none does yet"
    elif any(r[2] == "skipped" for r in gpu):
        overall["note"] = "GB/s and % of the ceiling need a GPU: there is none here, so the GPU exercises were skipped"
    else:
        overall["note"] = "GB/s and % of the ceiling need a GPU and the GPU exercises built: none is in this build"
    if any(r[2] in ("pass", "fail") for r in gpu):
        overall["gpu"] = True
    elif any(r[2] == "skipped" for r in gpu):
        overall["gpu"] = False
    return overall, measured


def figure_text(perf):
    """The figures of one step in the table's words: '412.3 GB/s, 13.3 % of the ceiling (solution ...)'."""
    if perf["gbps"] is None:
        return perf["note"]
    def pair(gbps, pct):
        return f"{gbps:.1f} GB/s" + (f", {pct:.1f} %" if pct is not None else "")
    text = pair(perf["gbps"], perf["pct_ceiling"]) + (" of the ceiling" if perf["pct_ceiling"] is not None else "")
    if len(perf["rows"]) > 1:
        text = f"{perf['variant']}: {text}"
    if perf["solution_gbps"] is not None:
        text += f" (solution {pair(perf['solution_gbps'], perf['solution_pct_ceiling'])})"
    return text + (f"; {perf['note']}" if perf["note"] else "")


def lab_revision(source):
    """What identifies the lab a clone holds, whatever a student commits in exercises/: a hash of
    every tracked file outside exercises/ at HEAD, and the tracked files outside exercises/ changed
    since ('' and [] outside a git clone)."""
    def git(*args):
        done = subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else None
    tree = git("ls-tree", "-r", "HEAD")
    if tree is None:
        return "", []
    lab = [line for line in tree.splitlines() if not line.split("\t", 1)[-1].startswith("exercises/")]
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)exercises") or ""
    return (hashlib.sha256("\n".join(lab).encode()).hexdigest()[:12],
            sorted(line[3:] for line in changed.splitlines() if line.strip()))


def summary(rows, total, source, perf=None):
    """What progress.json holds: the clone, its revision and the lab's (lab_revision), the totals,
    the figures' line (performance), and per step its state in the table's words, the first
    failure's message and its figures (null where none were measured). perf: performance()'s."""
    git = subprocess.run(["git", "-C", str(source), "describe", "--always", "--dirty"], capture_output=True, text=True)
    lab, changed = lab_revision(source)
    overall, measured = perf or ({"gpu": None, "device": "", "solutions": False, "note": ""}, {})
    return {
        "clone": str(source),
        "revision": git.stdout.strip() if git.returncode == 0 else "",
        "lab": lab,
        "lab_changed": changed,
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "passed": sum(r[2] == "pass" for r in rows),
        "skipped": sum(r[2] == "skipped" for r in rows),
        "exercises": len(rows),
        "total": total,
        "performance": overall,
        "steps": [{"step": number, "name": name, "state": WORDS[state], "message": message if state != "pass" else "",
                   "performance": measured.get(number)}
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
    perf = performance(build, rows)
    width = max(len(r[1]) for r in rows)
    for number, name, state, why, _ in rows:
        if number in perf[1]:
            why = figure_text(perf[1][number])
        print(f"  step {number} {name:<{width}}  {WORDS[state]:<9}  {why}".rstrip())
    print(total)
    print(perf[0]["note"])
    source = pathlib.Path(__file__).resolve().parent.parent
    (build / "progress.json").write_text(json.dumps(summary(rows, total, source, perf), indent=2) + "\n")
    print(f"summary for an instructor: {build / 'progress.json'} and {junit.name} (JUnit XML) beside it")
    first = next((r for r in rows if r[2] in ("fail", "not built")), None)
    if first:
        print(f"what is missing in step {first[0]}: cmake --build {build} --target check_step{first[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
