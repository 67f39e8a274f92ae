#!/usr/bin/python3
"""A class at a glance: gathers the progress.json files that `cmake --workflow --preset progress`
writes in each student's clone (build/exercises/progress.json) into one table and one figure,
every student against every step: passes, not yet, skipped (no GPU) or not built, and for a GPU
exercise that passes, its kernel's % of the measured bandwidth ceiling on the step's default
problem (the fastest of its variants; the solution's, where a clone measured it, on a last row).

  class_report.py FILE.json... [--out PREFIX]     (default PREFIX: class)

writes PREFIX.md (the table), PREFIX.csv (one line per student and step, every figure) and
PREFIX.png (the grid). A student is named by the file's name (results/alice.json: alice). A file
that cannot be read, or is not a progress report, is named with the reason and left out; the
report is written from the others and the exit is 1. Files from different revisions of the lab,
GPUs or clones whose lab files (outside exercises/) were changed are named in warnings.
The figure needs matplotlib (Debian's python3-matplotlib, with /usr/bin/python3).
"""
import argparse
import csv
import json
import os
import pathlib
import statistics
import sys

STATES = ["passes", "not yet", "skipped", "not built"]
COLOURS = {"passes": "#1b9e77", "not yet": "#e6ab02", "skipped": "#d9d9d9", "not built": "#7f7f7f",
           "solution": "#a6cee3", "": "#ffffff"}
MEANINGS = {"passes": "passes", "not yet": "not yet", "skipped": "skipped: no GPU", "not built": "not built",
            "": "no result"}


def load(path):
    """(report, '') for a readable progress.json; (None, why) otherwise."""
    try:
        text = pathlib.Path(path).read_text()
    except FileNotFoundError:
        return None, "no such file"
    except OSError as e:
        return None, f"cannot be read: {e.strerror}"
    except UnicodeDecodeError:
        return None, "not a text file"
    try:
        report = json.loads(text)
    except ValueError as e:
        return None, f"not JSON ({e})"
    steps = report.get("steps") if isinstance(report, dict) else None
    if not isinstance(steps, list) or not all(isinstance(s, dict) and {"step", "name", "state"} <= s.keys()
                                              for s in steps):
        return None, "not a progress report: no list of steps with their state (progress.json, written by progress)"
    bad = sorted({str(s["state"]) for s in steps} - set(STATES))
    if bad:
        return None, f"not a progress report: unknown state {', '.join(map(repr, bad))}"
    return report, ""


def names_of(paths):
    """Each file's student: its name without .json, or its path where two names are the same."""
    stems = [pathlib.Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else str(pathlib.Path(p).with_suffix("")) for s, p in zip(stems, paths)]


def figure(step, key):
    """A step's figure (pct_ceiling, gbps, solution_...) from its performance, or None."""
    v = (step.get("performance") or {}).get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def lab_of(report):
    """The lab a report comes from: its lab revision (outside exercises/), or its clone's revision."""
    return report.get("lab") or str(report.get("revision", "")).replace("-dirty", "")


def device_of(report):
    return (report.get("performance") or {}).get("device") or ""


def warnings_of(students):
    """What an instructor should know before reading the table: different labs, GPUs, changed files."""
    out = []
    for what, key, why in (("revisions of the lab", lab_of, "a step may differ between them"),
                           ("GPUs", device_of, "compare the figures within a GPU")):
        groups = {}
        for name, report in students:
            if key(report):
                groups.setdefault(key(report), []).append(name)
        if len(groups) > 1:
            out.append(f"the files come from {len(groups)} {what} ({why}): " +
                       "; ".join(f"{value}: {', '.join(names)}" for value, names in groups.items()))
    for name, report in students:
        changed = report.get("lab_changed") or []
        if changed:
            more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
            out.append(f"{name} changed files of the lab outside exercises/: {', '.join(changed[:5])}{more}")
    return out


def table(students):
    """(columns [(step, name)], rows [(student, {(step, name): step dict})], solution {(step, name):
    the median of the solution's % of the ceiling, or GB/s where the step has no ceiling})."""
    columns = sorted({(s["step"], s["name"]) for _, r in students for s in r["steps"]})
    rows = [(name, {(s["step"], s["name"]): s for s in r["steps"]}) for name, r in students]
    solution = {}
    for column in columns:
        pct = [figure(c[column], "solution_pct_ceiling") for _, c in rows if column in c]
        gbps = [figure(c[column], "solution_gbps") for _, c in rows if column in c]
        pct, gbps = [v for v in pct if v is not None], [v for v in gbps if v is not None]
        if pct:
            solution[column] = f"{statistics.median(pct):.0f} %"
        elif gbps:
            solution[column] = f"{statistics.median(gbps):.0f} GB/s"
    return columns, rows, solution


def figure_text(step):
    """'13 %' (of the ceiling), '812 GB/s' (a step with no ceiling) or '' for one step's figures."""
    pct, gbps = figure(step, "pct_ceiling"), figure(step, "gbps")
    return f"{pct:.0f} %" if pct is not None else f"{gbps:.0f} GB/s" if gbps is not None else ""


def cell(step):
    """A student's cell in the table: the state, and the figure where it passes."""
    if step is None:
        return "-"
    text = figure_text(step)
    return f"passes, {text}" if text else step["state"]


def write_markdown(path, students, columns, rows, solution, warnings):
    head = ["student", "passes"] + [f"{n} {name}" for n, name in columns]
    lines = ["# Class progress", "",
             f"{len(students)} student(s), {len(columns)} exercises. A cell is the exercise's state: *passes*, "
             "*not yet*, *skipped* (no GPU where it ran) or *not built*; for a GPU exercise that passes, its "
             "kernel's % of the measured bandwidth ceiling on the step's default problem (the fastest of its "
             "variants; GB/s where the step has no ceiling). \"-\": the student's lab has no such step.", ""]
    lines += [f"Warning: {w}." for w in warnings] + ([""] if warnings else [])
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (name, steps), (_, report) in zip(rows, students):
        passed = f"{report.get('passed', sum(s['state'] == 'passes' for s in steps.values()))} of {len(steps)}"
        lines.append("| " + " | ".join([name, passed] + [cell(steps.get(c)) for c in columns]) + " |")
    if solution:
        lines.append("| " + " | ".join(["solution", ""] + [solution.get(c, "") for c in columns]) + " |")
        lines += ["", "solution: the solution's program, run right after the student's in the same progress run "
                  "(the median over the clones that have the solutions)."]
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def write_csv(path, rows, columns):
    keys = ["variant", "gbps", "pct_ceiling", "solution_gbps", "solution_pct_ceiling", "note"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "step", "name", "state"] + keys + ["message"])
        for name, steps in rows:
            for n, step_name in columns:
                s = steps.get((n, step_name))
                if s is None:
                    continue
                perf = s.get("performance") or {}
                w.writerow([name, n, step_name, s["state"]] + ["" if perf.get(k) is None else perf[k] for k in keys] +
                           [s.get("message", "")])


def draw(path, students, columns, rows, solution):
    """The grid: a row a student (and the solution's), a column a step, coloured by state, with the
    % of the ceiling written where a GPU exercise passes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Patch

    labels, colours, texts = [], [], []
    for (name, steps), (_, report) in zip(rows, students):
        passed = sum(s["state"] == "passes" for s in steps.values())
        labels.append(f"{name} ({passed}/{len(steps)})")
        colours.append([COLOURS[steps[c]["state"] if c in steps else ""] for c in columns])
        texts.append([(figure_text(steps[c]) or steps[c]["state"]) if c in steps else "-" for c in columns])
    if solution:
        labels.append("solution")
        colours.append([COLOURS["solution" if c in solution else ""] for c in columns])
        texts.append([solution.get(c, "") for c in columns])

    width, height = max(7.0, 2.5 + 0.62 * len(columns)), 2.3 + 0.3 * len(labels)
    fig, ax = plt.subplots(figsize=(width, height), dpi=150)
    ax.imshow([[to_rgb(c) for c in row] for row in colours], aspect="auto", interpolation="nearest")
    for i, row in enumerate(texts):
        for j, text in enumerate(row):
            dark = colours[i][j] in (COLOURS["passes"], COLOURS["not built"])
            ax.text(j, i, text, ha="center", va="center", fontsize=7.5 if "%" in text or "GB/s" in text else 6.5,
                    color="white" if dark else "black")
    ax.set_xticks(range(len(columns)), [f"{n} {name}" for n, name in columns], rotation=40, ha="right", fontsize=8)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_xticks([x - 0.5 for x in range(1, len(columns))], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, len(labels))], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    ax.set_title("Class progress: each exercise's state and, where a GPU exercise passes, its kernel's\n"
                 "% of the measured bandwidth ceiling on the step's default problem", fontsize=9)
    shown = [s for s in ["passes", "not yet", "skipped", "not built", ""]
             if any(COLOURS[s] in row for row in colours[:len(rows)])]
    handles = [Patch(facecolor=COLOURS[s], edgecolor="#999999", label=MEANINGS[s]) for s in shown]
    if solution:
        handles.append(Patch(facecolor=COLOURS["solution"], edgecolor="#999999",
                             label="solution (median % of the ceiling)"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.07 * 4 / height, 1, 1))
    fig.savefig(path)
    plt.close(fig)


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", metavar="FILE.json", help="progress.json files, one a student")
    parser.add_argument("--out", default="class", help="PREFIX of PREFIX.md, PREFIX.csv and PREFIX.png")
    args = parser.parse_args()
    # The figure wants Debian's python3-matplotlib: where this python has no matplotlib, run again there.
    debian = "/usr/bin/python3"
    if not have_matplotlib() and os.path.exists(debian) and os.path.realpath(sys.executable) != os.path.realpath(
            debian) and not os.environ.get("GEMV_CLASS_REPORT_NO_REEXEC"):
        os.environ["GEMV_CLASS_REPORT_NO_REEXEC"] = "1"
        os.execv(debian, [debian, os.path.abspath(__file__)] + sys.argv[1:])

    students, failed = [], 0
    for name, path in zip(names_of(args.files), args.files):
        report, why = load(path)
        if report is None:
            print(f"class_report: {path}: {why}: left out", file=sys.stderr)
            failed += 1
            continue
        students.append((name, report))
    if not students:
        print("class_report: no progress report could be read: nothing written", file=sys.stderr)
        return 1
    columns, rows, solution = table(students)
    warnings = warnings_of(students)
    for w in warnings:
        print(f"class_report: warning: {w}", file=sys.stderr)
    out = pathlib.Path(args.out)
    if out.parent != pathlib.Path(""):
        out.parent.mkdir(parents=True, exist_ok=True)
    md, csv_path, png = (out.with_name(out.name + ext) for ext in (".md", ".csv", ".png"))
    write_markdown(md, students, columns, rows, solution, warnings)
    write_csv(csv_path, rows, columns)
    written = [md, csv_path]
    if have_matplotlib():
        draw(png, students, columns, rows, solution)
        written.append(png)
    else:
        print(f"class_report: {png} not written: it needs matplotlib (sudo apt-get install python3-matplotlib, "
              "then run this with /usr/bin/python3)", file=sys.stderr)
        failed += 1
    print(f"{len(students)} student(s), {len(columns)} exercises: {', '.join(map(str, written))}")
    if failed:
        print(f"class_report: {failed} problem(s) above: the report leaves them out", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
