#!/usr/bin/env python3
"""Tests of the class report on made-up progress.json files: the table holds every student and
every step with its state and, where a GPU exercise passes, its % of the ceiling, and a last row
with the solution's; the CSV every figure; a missing or malformed file is named and left out with
exit 1; a second revision of the lab, a second GPU and a changed lab file are warned about; the
figure is written (skipped, exit 77, where matplotlib is in no python here)."""
import csv
import json
import pathlib
import subprocess
import sys
import tempfile

SCRIPT = pathlib.Path(__file__).resolve().parent / "class_report.py"
failures = []


def step(number, name, state, pct=None, gbps=None, solution_pct=None):
    perf = None
    if pct is not None or gbps is not None:
        perf = {"variant": "v", "gbps": gbps, "pct_ceiling": pct, "solution_gbps": None,
                "solution_pct_ceiling": solution_pct, "rows": [], "note": ""}
    return {"step": number, "name": name, "state": state, "message": "" if state == "passes" else "why",
            "performance": perf}


def report(steps, lab="lab1", device="Fake GPU", changed=()):
    return {"revision": "abc", "lab": lab, "lab_changed": list(changed), "passed": sum(s["state"] == "passes" for s in steps),
            "exercises": len(steps), "performance": {"gpu": bool(device), "device": device, "solutions": False, "note": ""},
            "steps": steps}


def run(files, out):
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, files), "--out", str(out)], capture_output=True,
                          text=True)
    return done.returncode, done.stdout + done.stderr


with tempfile.TemporaryDirectory() as tmp:
    results = pathlib.Path(tmp) / "results"
    results.mkdir()
    (results / "alice.json").write_text(json.dumps(report([
        step("01", "cpu_loop", "passes"), step("03", "naive", "passes", pct=13.26, gbps=411.0, solution_pct=13.9),
        step("07", "tiled_matmul", "passes", gbps=812.4)])))
    (results / "bob.json").write_text(json.dumps(report([
        step("01", "cpu_loop", "not yet"), step("03", "naive", "skipped"), step("07", "tiled_matmul", "not built")],
        device="")))
    (results / "carol.json").write_text(json.dumps(report([
        step("01", "cpu_loop", "passes"), step("03", "naive", "passes", pct=87.6, gbps=2700.0, solution_pct=14.1)],
        lab="lab2", device="Other GPU", changed=["tests/test_step03_naive.cpp"])))

    # Good files only: exit 0, the three outputs.
    code, text = run(sorted(results.glob("*.json")), pathlib.Path(tmp) / "out" / "class")
    md = pathlib.Path(tmp) / "out" / "class.md"
    if code not in (0, 1) or not md.is_file():
        failures.append(f"class_report on good files: exit {code}, no table:\n{text}")
    else:
        table = md.read_text()
        lines = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
                 for line in table.splitlines() if line.startswith("| ")}
        want = {
            "student": ["passes", "01 cpu_loop", "03 naive", "07 tiled_matmul"],
            "alice": ["3 of 3", "passes", "passes, 13 %", "passes, 812 GB/s"],
            "bob": ["0 of 3", "not yet", "skipped", "not built"],
            "carol": ["2 of 2", "passes", "passes, 88 %", "-"],
            "solution": ["", "", "14 %", ""],
        }
        if lines != want:
            failures.append(f"the table's rows:\n  {lines}\n  {want}")
        for needed in ("2 revisions of the lab", "lab1: alice, bob; lab2: carol", "2 GPUs",
                       "carol changed files of the lab outside exercises/: tests/test_step03_naive.cpp"):
            if needed not in table or needed not in text:
                failures.append(f"warned in the table and on stderr: {needed!r}\n{text}")
        with open(pathlib.Path(tmp) / "out" / "class.csv") as f:
            rows = list(csv.DictReader(f))
        alice03 = next((r for r in rows if r["student"] == "alice" and r["step"] == "03"), {})
        if len(rows) != 8 or (alice03.get("gbps"), alice03.get("pct_ceiling"), alice03.get("solution_pct_ceiling")) != (
                "411.0", "13.26", "13.9"):
            failures.append(f"the CSV: a line per student and step, with every figure: {len(rows)} lines, {alice03}")
    png = pathlib.Path(tmp) / "out" / "class.png"
    drawn = png.is_file()
    if code == 0 and (not drawn or png.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n" or png.stat().st_size < 10000):
        failures.append("the figure is a PNG of the grid")
    if code == 1 and (drawn or "needs matplotlib" not in text):
        failures.append(f"exit 1 on good files only where matplotlib is missing, and it says so:\n{text}")

    # Bad input: named, left out, exit 1; the others still reported.
    (results / "broken.json").write_text("{\"steps\": [")
    (results / "other.json").write_text(json.dumps({"hello": "world"}))
    code, text = run([results / "alice.json", results / "broken.json", results / "other.json",
                      results / "missing.json"], pathlib.Path(tmp) / "bad" / "class")
    for needed in ("broken.json: not JSON", "other.json: not a progress report", "missing.json: no such file"):
        if needed not in text:
            failures.append(f"bad input is named with its reason: {needed!r}\n{text}")
    bad_md = pathlib.Path(tmp) / "bad" / "class.md"
    if code != 1 or not bad_md.is_file() or "| alice |" not in bad_md.read_text():
        failures.append(f"bad input: exit 1 and the readable files reported: exit {code}")

    # Nothing readable: exit 1, nothing written.
    code, text = run([results / "missing.json"], pathlib.Path(tmp) / "none" / "class")
    if code != 1 or (pathlib.Path(tmp) / "none").exists() or "nothing written" not in text:
        failures.append(f"no readable file: exit 1 and nothing written: exit {code}\n{text}")

for f in failures:
    print("FAILED:", f)
if failures:
    print(f"{len(failures)} class report checks failed")
    sys.exit(1)
if not drawn:
    print("class report checks passed, but the figure was not drawn: no python here has matplotlib (skipped)")
    sys.exit(77)
print("all class report checks passed")
