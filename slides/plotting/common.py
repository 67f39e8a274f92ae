"""What every figure and table shares: numbers as the tables write them, the data files read with the
machine they were measured on, and the figures' frames, legends and footers (the same look in every
deck). matplotlib is imported only when a figure is drawn, so the tables need none."""
import csv
import math
import subprocess

from quote import sig_text  # sig_text, the one rounding of every table


# --------------------------------------------------- numbers as the tables and labels write them

def sig(x):
    """A measured number as tables show it: three significant figures, '-' where there is none."""
    try:
        return sig_text(x)
    except Exception:
        return "-"


def occupancy_pct(x):
    """Theoretical occupancy as a percentage: 100 %, 75 %, 62.5 %."""
    return f"{100 * float(x):.1f}".rstrip("0").rstrip(".") + " %"


def pct1(x):
    """A percentage: one decimal."""
    return "-" if not math.isfinite(float(x)) else f"{float(x):.1f} %"


def footprint_text(b):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.0f} {unit}" if unit == "B" or b >= 10 else f"{b:.1f} {unit}"
        b /= 1024


SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_text(v):
    """A dimension as a tick label shows it, exactly: 2²⁶ for powers of two from 1024, else the number."""
    v = int(v)
    return f"2{str(v.bit_length() - 1).translate(SUPERSCRIPT)}" if v >= 1024 and v & (v - 1) == 0 else str(v)


def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ data

def read_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["_file"] = path.name
        r["_machine"] = path.name.split("_step")[0] if "_step" in path.name else path.name.split("_")[0]
    return rows


def each_file(files):
    """(rows, path) of each data file that holds rows, in order: an empty file is left out."""
    for path in files:
        rows = read_rows(path)
        if rows:
            yield rows, path


def num(r, key):
    try:
        return float(r.get(key, "nan"))
    except ValueError:
        return float("nan")


GIT_DATES = True  # quote.py turns it off: a README's table must not change with the clone's history


def committed_date(path):
    """The day the file was committed, for data without a date column."""
    if not GIT_DATES:
        return "date: the file's commit"
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%cs", "--", path.name], cwd=path.parent,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        return f"committed {out}" if out else "date not recorded"
    except (OSError, subprocess.SubprocessError):
        return "date not recorded"


def provenance(rows, path):
    """'<machine>: <device>, <units> <SMs|threads> · <date> · rev <revision>' of one data file."""
    r = rows[0]
    date = (r.get("date") or "")[:10] or committed_date(path)
    units = r.get("units") or r.get("sms")
    what = "threads" if (r.get("runtime") == "-") else "SMs"
    if "sms" in r:  # step 00
        what = "SMs"
    device = r.get("device", "unknown device")
    if units:
        device += f", {units} {what}"
    revisions = ", ".join(dict.fromkeys(x.get("git_revision", "?") for x in rows))  # a file may join runs
    return f"{r['_machine']}: {device} · {date} · rev {revisions}"


def machine_label(rows):
    """How a legend tells machines apart: the file's prefix, with its core count on a CPU (two hosts'
    CPUs may report the same model name) or its GPU's name."""
    r = rows[0]
    if r.get("runtime") == "-":
        return f"{r['_machine']}, {r.get('units', '?')} threads"
    return f"{r['_machine']}: {r.get('device', '?')}"


def series(files):
    """[(machine label, footer, {variant: [rows]})] per data file, rows in file order."""
    out = []
    for rows, path in each_file(files):
        by_variant = {}
        for r in rows:
            by_variant.setdefault(r.get("variant", "?"), []).append(r)
        out.append((machine_label(rows), provenance(rows, path), by_variant))
    return out


def first_row_meta(files):
    rows = read_rows(files[0])
    return rows[0] if rows else {}


# --------------------------------------------------------------------------------------- drawing

def pyplot():
    """matplotlib's pyplot, drawing to files only (no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(plt, fig, footers, out, top=1.0):
    """Names every machine (device, date, revision) once under the panels, then writes the PNG."""
    footers = list(dict.fromkeys(footers))
    fig.text(0.01, 0.01, "\n".join(f"measured on {f}" for f in footers), fontsize=8.5, color="#444", va="bottom")
    fig.tight_layout(rect=(0, 0.035 + 0.03 * len(footers), 1, top))
    fig.savefig(out)
    plt.close(fig)


def new_figure(title):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 4.6), dpi=120)
    ax.set_title(title, fontsize=13, loc="left")
    ax.grid(True, which="both", alpha=0.3)
    return plt, fig, ax


def plain_log_axis(axis):
    """Labels 1, 2, 5 of every decade in plain numbers, not 10^k."""
    from matplotlib.ticker import FuncFormatter, LogLocator
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_minor_locator(LogLocator(base=10, subs=(3.0, 4.0, 6.0, 7.0, 8.0, 9.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def finish(plt, fig, ax, footers, out):
    """Names every machine (device, date, revision) under the axes, then writes the PNG. The legend
    stands beside the axes, off the data."""
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    save_figure(plt, fig, footers, out)


def legend_above(fig, axes, footers, out, plt, ncol=3):
    """One legend for every panel (the same label drawn the same way in each), above the panels and
    under the figure's title, off the data; then the footers and the PNG."""
    handles = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    lines = (len(handles) + ncol - 1) // ncol
    fig.legend(list(handles.values()), list(handles), fontsize=9.5, ncol=ncol, loc="upper left",
               bbox_to_anchor=(0.01, 0.94), frameon=False)
    save_figure(plt, fig, footers, out, top=0.925 - 0.042 * lines)


def machine_panels(title, n):
    """A figure of one panel per machine (n of them, side by side, one y axis), titled once."""
    plt = pyplot()
    fig, axes = plt.subplots(1, max(1, n), figsize=(10, 4.6), dpi=120, sharey=True, squeeze=False)
    fig.suptitle(title, fontsize=12.5, x=0.01, ha="left")
    for ax in axes[0]:
        ax.grid(True, which="both", alpha=0.3)
    return plt, fig, list(axes[0])
