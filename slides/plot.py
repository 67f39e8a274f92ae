#!/usr/bin/python3
"""The one plot script of the slides: every figure and every table of measured numbers in a deck
is drawn here from the committed CSV files in slides/data/, never typed by hand.

  plot.py --data slides/data --out DIR NAME...   make the named figures (NAME.png) and tables (NAME.md)
  plot.py --data slides/data --list              what each known name needs, and whether it is there

Data files are the step programs' own `--format csv` output (slides/collect_data.sh writes them,
adding a `date` column): MACHINE_stepNN_sweep.csv (square N x N, growing), MACHINE_stepNN_shapes.csv
(one footprint, tall to wide), MACHINE_stepNN_fig4.csv (Sørensen's three families) and
MACHINE_step00.csv (step 00's one row of key,value columns). Every
machine whose file is committed appears in the figure, named with its device, date and revision.

Names (NN is any step, so a new step's deck needs data, not code):
  00_bandwidth  bars: datasheet, measured read ceiling, device-to-device copy, per GPU
  00_facts      table: the GPU's facts from step 00
  NN_sweep      GB/s against footprint, square matrices, one line per variant and machine
  NN_shapes     GB/s against shape (rows x columns) at one footprint
  NN_fig4       Sørensen's figure 4: GB/s against footprint for tall 100N x N, square 10N x 10N and
                wide N x 100N, one panel per variant (MACHINE_stepNN_fig4.csv)
  NN_summary    table: every variant at the largest square of the sweep
  NN_occupancy  table: launch, registers, shared memory, blocks per SM, occupancy, limiter (GPU steps)
  NN_roofline   GFLOP/s against the model's intensity for k vectors, with the memory and compute roofs
                (MACHINE_stepNN_vectors.csv, step 16)
  NN_roofverdict  table: step 16's speed targets against the chooser's pick and cuBLAS, per machine
                (MACHINE_stepNN_vectors.csv and MACHINE_stepNN_vectors_odd.csv)

Uses Debian's python3-matplotlib (run with /usr/bin/python3); only drawing imports it, so --list
and the deck check work with any python3.
"""
import argparse
import csv
import json
import math
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from quote import chosen_beside_cublas, sig_text  # noqa: E402: sig_text, the one rounding of every table


def sig(x):
    """A measured number as tables show it: three significant figures, '-' where there is none."""
    try:
        return sig_text(x)
    except Exception:
        return "-"


def occupancy_pct(x):
    """Theoretical occupancy as a percentage: 100 %, 75 %, 62.5 %."""
    return f"{100 * float(x):.1f}".rstrip("0").rstrip(".") + " %"


def cublas_ratio(rows, r):
    """cuBLAS time / this row's time on the same problem of one ladder table (above 1: faster), from
    the medians, not from the 3-decimal ratio column."""
    ref = [c for c in rows if c.get("step") == "12"]
    if ref and num(r, "median_ms") > 0:
        return num(ref[0], "median_ms") / num(r, "median_ms")
    return num(r, "ratio_to_cublas")


def pct1(x):
    """A percentage: one decimal."""
    return "-" if not math.isfinite(float(x)) else f"{float(x):.1f} %"

KINDS = {"sweep": "png", "shapes": "png", "fig4": "png", "summary": "md", "occupancy": "md", "ladder": "md",
         "curves": "png", "mesh": "png", "targets": "png", "ranks": "png", "hybrid": "md", "gpus": "md",
         "verdict": "md", "experiments": "png", "vs": "md", "climb": "png", "psweep": "png", "ptable": "md", "ranktable": "md", "fig4vs": "png", "scaling": "png",
         "matmul": "png", "formats": "png", "roofline": "png", "roofverdict": "md"}
# The files each kind is drawn from, relative to slides/data ({step}: NN; {q}: the name's optional
# qualifier, "_float" in 11_mesh_float). Kinds not listed are drawn from the sweep.
DATA_OF = {"shapes": "*_step{step}_shapes{q}.csv", "fig4": "*_step{step}_fig4{q}.csv",
           # every ladder table (ladder --format csv, one problem a file); the qualifier picks rows:
           # steps (two digits), a precision, a shape (08_ladder_float, 06_vs_05_12_float)
           "ladder": "ladder/*_ladder_*.csv", "vs": "ladder/*_ladder_*.csv", "climb": "ladder/*_ladder_*.csv",
           "psweep": "*_step{step}_p_sweep{q}.csv", "ptable": "*_step{step}_p_sweep{q}.csv", "scaling": "*_step{step}_gpus{q}.csv",
           "matmul": "*_step{step}_matmul{q}.csv",
           # step 15: its own runs per format; MACHINE_step15_float.csv (step 11 in float) is read beside them
           "formats": "*_step{step}_formats{q}.csv",
           # step 16: every kernel and cuBLAS at k = 1 … 256 vectors (collect_data.sh 16)
           "roofline": "*_step{step}_vectors{q}.csv",
           # step 16's speed targets (the maintainers' acceptance targets), from both of its files (the roofline's and the odd shapes')
           "roofverdict": "*_step{step}_vectors*.csv",
           "curves": "*/*_step{step}_curves{q}*.csv", "mesh": "*/*_step{step}_mesh{q}*.csv",
           "targets": "*/*_step{step}_targets{q}*.csv",
           # 09_fig4vs_05_08_12: step 09's figure-4 file; the other steps' files of the same machine
           "fig4vs": "*_step{step}_fig4.csv",
           "ranks": "{machine}_step{step}_ranks.csv", "ranktable": "{machine}_step{step}_ranks.csv",  # 13_ranks_ci: the ci machine's; 13_ranks: every machine's
           "verdict": "*/*_step{step}_*{q}.csv",  # every suite of the benchmark
           "experiments": "*/*_step{step}_experiments{q}.csv",
           "hybrid": "*_step{step}_hybrid{q}.csv", "gpus": "*_step{step}_gpus{q}.csv"}
SWEEP = "*_step{step}_sweep{q}.csv"
SPECIAL = {"00_bandwidth": ("png", "*_step00.csv"), "00_facts": ("md", "*_step00.csv"),
           # the whole climb: every step's best, per ladder problem and machine (ladder --format csv)
           "climb": ("png", "ladder/*_ladder_*.csv"), "climb_float": ("png", "ladder/*_ladder_float_*.csv"),
           "climb_double": ("png", "ladder/*_ladder_double_*.csv"),
           # step 17's roofline: the same runs as step 16's (its program measured every kernel)
           "17_roofline": ("png", "*_step16_vectors.csv")}
NAME = re.compile(r"^(\d\d)_(" + "|".join(KINDS) + r")(?:_([a-z0-9_]+))?$")


class UnknownFigure(Exception):
    pass


def resolve(name, data_dir):
    """(kind 'png' or 'md', pattern, [data files]) for a figure name; UnknownFigure if no such name."""
    data_dir = pathlib.Path(data_dir)
    if name in SPECIAL:
        kind, pattern = SPECIAL[name]
    else:
        m = NAME.match(name)
        if not m:
            raise UnknownFigure(f"no figure or table called {name!r} (known: {', '.join(SPECIAL)}, "
                                f"NN_{'|NN_'.join(KINDS)}, each with an optional _QUALIFIER)")
        step, what, qualifier = m.groups()
        kind = KINDS[what]
        pattern = DATA_OF.get(what, SWEEP).format(step=step, q=f"_{qualifier}" if qualifier else "",
                                                  machine=qualifier or "*")
    return kind, pattern, sorted(data_dir.glob(pattern))


# ---------------------------------------------------------------------------------------- data

def read_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["_file"] = path.name
        r["_machine"] = path.name.split("_step")[0] if "_step" in path.name else path.name.split("_")[0]
    return rows


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


def footprint_text(b):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.0f} {unit}" if unit == "B" or b >= 10 else f"{b:.1f} {unit}"
        b /= 1024


# ------------------------------------------------------------------------------------- drawing

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
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        by_variant = {}
        for r in rows:
            by_variant.setdefault(r.get("variant", "?"), []).append(r)
        out.append((machine_label(rows), provenance(rows, path), by_variant))
    return out


def first_row_meta(files):
    rows = read_rows(files[0])
    return rows[0] if rows else {}


def sweep_figure(name, files, out):
    """GB/s against the footprint, one panel per machine (each panel: its variants and its read
    ceiling, a colour a variant in every panel)."""
    step = name[:2]
    meta = first_row_meta(files)
    all_series = series(files)
    plt, fig, axes = machine_panels(f"step {step} {meta.get('name', '')}: GB/s against footprint "
                                    f"(square N x N, {meta.get('precision', '')}, {meta.get('cache', '')} cache)",
                                    len(all_series))
    markers = "osD^v<>p*h"
    variants = list(dict.fromkeys(v for _, _, bv in all_series for v in bv))
    footers = []
    ticks = sorted({num(r, "bytes") for f in files for r in read_rows(f)})
    for ax, (device, footer, by_variant) in zip(axes, all_series):
        footers.append(footer)
        ceiling_x, ceiling_y = [], []
        for variant, rows in by_variant.items():
            v = variants.index(variant)
            rows = sorted(rows, key=lambda r: num(r, "bytes"))
            x = [num(r, "bytes") for r in rows]
            ax.plot(x, [num(r, "gbps") for r in rows], marker=markers[v % len(markers)], color=f"C{v % 10}",
                    label=variant)
            if not ceiling_x:
                ceiling_x, ceiling_y = x, [num(r, "ceiling_gbps") for r in rows]
        ax.plot(ceiling_x, ceiling_y, color="grey", linestyle="--", linewidth=1.2,
                label="read ceiling, measured in the same run")
        if len(all_series) > 1:
            ax.set_title(device, fontsize=10.5, loc="left")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        shown = ticks if len(all_series) == 1 else ticks[::2]
        ax.set_xticks(shown)
        ax.set_xticklabels([footprint_text(t) for t in shown], fontsize=8.5)
        plain_log_axis(ax.yaxis)
        ax.set_xlabel("bytes the model moves: A, x and y once", fontsize=9.5)
    axes[0].set_ylabel("effective GB/s")
    legend_above(fig, axes, footers, out, plt)


def shapes_figure(name, files, out):
    """One footprint, tall to wide: a bar per variant and shape, one panel per machine."""
    step = name[:2]
    meta = first_row_meta(files)
    all_series = series(files)
    plt, fig, axes = machine_panels(f"step {step} {meta.get('name', '')}: one footprint, tall to wide "
                                    f"({meta.get('precision', '')}, {meta.get('cache', '')} cache)", len(all_series))
    variants = list(dict.fromkeys(v for _, _, bv in all_series for v in bv))
    shapes = []
    for _, _, by_variant in all_series:
        for rows in by_variant.values():
            for r in rows:
                s = (int(num(r, "m")), int(num(r, "n")))
                if s not in shapes:
                    shapes.append(s)
    shapes.sort(key=lambda s: -s[0])  # tall (many rows) on the left, as in Sørensen's figures
    footers = []
    r0 = read_rows(files[0])[0]
    a_bytes = num(r0, "m") * num(r0, "n") * (8 if r0.get("precision") == "double" else 4)
    for ax, (device, footer, by_variant) in zip(axes, all_series):
        footers.append(footer)
        width = 0.8 / max(1, len(by_variant))
        for slot, (variant, rows) in enumerate(by_variant.items()):
            got = {(int(num(r, "m")), int(num(r, "n"))): num(r, "gbps") for r in rows}
            xs = [i - 0.4 + width * (slot + 0.5) for i in range(len(shapes))]
            ax.bar(xs, [got.get(s, float("nan")) for s in shapes], width, label=variant,
                   color=f"C{variants.index(variant) % 10}")
        if len(all_series) > 1:
            ax.set_title(device, fontsize=10.5, loc="left")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels([f"{power_text(m)} × {power_text(n)}" if len(all_series) > 1 else f"{m} x {n}"
                            for m, n in shapes], fontsize=8.5)
        ax.grid(True, axis="x", alpha=0)
        ax.set_xlabel(f"rows x columns, A is {footprint_text(a_bytes)}: tall on the left, wide on the right",
                      fontsize=9.5)
    axes[0].set_ylabel("effective GB/s")
    legend_above(fig, axes, footers, out, plt)


def fig4_figure(name, files, out):
    """Sørensen's figure 4: within each panel (one variant) the three shapes should lie together."""
    plt = pyplot()
    step = name[:2]
    all_series = series(files)
    variants = list(dict.fromkeys(v for _, _, bv in all_series for v in bv))
    cols = min(4, len(variants))
    rows_n = (len(variants) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(10, 4.6 if rows_n == 1 else 6.4), dpi=120, sharey=True,
                             squeeze=False)
    meta = first_row_meta(files)
    fig.suptitle(f"step {step} {meta.get('name', '')}: tall 100N x N, square 10N x 10N, wide N x 100N "
                 f"({meta.get('precision', '')}, {meta.get('cache', '')} cache)", fontsize=12, x=0.01,
                 ha="left")
    family = lambda r: "tall" if num(r, "m") > num(r, "n") else "wide" if num(r, "m") < num(r, "n") else "square"
    styles = ["-", "--", ":", "-."]
    footers = []
    for k, (device, footer, by_variant) in enumerate(all_series):
        footers.append(footer)
        for v, variant in enumerate(variants):
            ax = axes[v // cols][v % cols]
            for fam, marker in (("tall", "v"), ("square", "s"), ("wide", ">")):
                rows = sorted((r for r in by_variant.get(variant, []) if family(r) == fam),
                              key=lambda r: num(r, "bytes"))
                if rows:
                    ax.plot([num(r, "bytes") for r in rows], [num(r, "gbps") for r in rows], marker=marker,
                            linestyle=styles[k % 4],
                            label=fam + (f" ({device})" if len(all_series) > 1 else ""))
    for v in range(rows_n * cols):
        ax = axes[v // cols][v % cols]
        if v >= len(variants):
            ax.axis("off")
            continue
        ax.set_title(variants[v], fontsize=10)
        ax.set_xscale("log", base=2)
        ax.grid(True, which="both", alpha=0.3)
        ticks = sorted({num(r, "bytes") for f in files for r in read_rows(f)})[::2]
        ax.set_xticks(ticks)
        ax.set_xticklabels([footprint_text(t) for t in ticks], fontsize=7, rotation=45)
        if v % cols == 0:
            ax.set_ylabel("effective GB/s")
    legend_above(fig, [a for row in axes for a in row], footers, out, plt, ncol=6)


def variant_kernel(variant):
    """A variant's name without the numbers a step fills in per shape: step 10 names its variant by
    the configuration it chose ("32 rows x 8 lanes"), one kernel whatever the numbers."""
    return re.sub(r"\d+", "#", variant)


def variant_label(variants):
    """The names of one kernel's variants as one: each number that varies shown as its range
    ("32–256 rows x 1–8 lanes"), the others as they are."""
    variants = list(dict.fromkeys(variants))
    if len(variants) == 1:
        return variants[0]
    numbers = [[int(x) for x in re.findall(r"\d+", v)] for v in variants]
    parts = re.split(r"\d+", variants[0])
    out = parts[0]
    for i, rest in enumerate(parts[1:]):
        lo, hi = min(n[i] for n in numbers), max(n[i] for n in numbers)
        out += (f"{lo}" if lo == hi else f"{lo}–{hi}") + rest
    return out


def fig4vs_figure(name, files, out):
    """Sørensen's figure 4, one panel per family (tall 100N x N, square 10N x 10N, wide N x 100N):
    every variant of the step (solid) beside the fastest variant of each other step named in the
    qualifier (dashed; 12 is cuBLAS, dotted), all from the same machine's MACHINE_stepPP_fig4.csv.
    Each line keeps one colour in the three panels and the one legend above them. A step whose file
    is missing is left out and named under the figure."""
    plt = pyplot()
    step = name[:2]
    others, _, _ = qualifier_tokens(name)
    path = files[0]  # one machine: the first with the step's own file
    machine = path.name.split("_step")[0]
    sets = [(step, read_rows(path))]
    missing = []
    for other in others:
        f = path.parent / f"{machine}_step{other}_fig4.csv"
        if f.is_file():
            sets.append((other, read_rows(f)))
        else:
            missing.append(other)
    family = lambda r: "tall" if num(r, "m") > num(r, "n") else "wide" if num(r, "m") < num(r, "n") else "square"
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.7), dpi=120, sharey=True)
    fig.suptitle(f"step {step} beside steps {', '.join(o for o in others if o not in missing)}: "
                 f"Sørensen's figure 4 ({sets[0][1][0].get('precision', '')}, cold L2)", fontsize=12, x=0.01,
                 ha="left")
    # One colour per line, the same in all three panels and in the legend: the step's own kernels
    # (a variant whose name carries the configuration it chose for the shape, step 10's "32 rows x 8
    # lanes", is one kernel, one line), then each other step's fastest, cuBLAS black.
    own = [r for r in sets[0][1] if r.get("verified", "yes") == "yes"]
    kernels = list(dict.fromkeys(variant_kernel(r["variant"]) for r in own))
    names = {k: variant_label([r["variant"] for r in own if variant_kernel(r["variant"]) == k]) for k in kernels}
    mine_c, theirs_c = ["tab:blue", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive"], \
        ["tab:orange", "tab:green", "tab:cyan", "tab:gray"]
    colour = {k: mine_c[i % len(mine_c)] for i, k in enumerate(kernels)}
    colour.update({s_: theirs_c[i % len(theirs_c)] for i, s_ in enumerate(s_ for s_, _ in sets[1:] if s_ != "12")})
    colour["12"] = "black"
    for ax, fam in zip(axes, ("tall", "square", "wide")):
        for s_, rows in sets:
            mine = [r for r in rows if family(r) == fam and r.get("verified", "yes") == "yes"]
            if s_ == step:
                for k in kernels:
                    got = sorted((r for r in mine if variant_kernel(r["variant"]) == k), key=lambda r: num(r, "bytes"))
                    if not got:
                        continue
                    ax.plot([num(r, "bytes") for r in got], [num(r, "gbps") for r in got], marker="o", markersize=3.5,
                            color=colour[k], label=f"step {step} {names[k]}")
                    # The shapes where it took another configuration than its usual one: hollow.
                    usual = max(dict.fromkeys(r["variant"] for r in own if variant_kernel(r["variant"]) == k),
                                key=[r["variant"] for r in own].count)
                    odd = [r for r in got if r["variant"] != usual]
                    if odd:
                        others_of_k = [r["variant"] for r in own if variant_kernel(r["variant"]) == k and
                                       r["variant"] != usual]
                        ax.plot([num(r, "bytes") for r in odd], [num(r, "gbps") for r in odd], marker="o",
                                markersize=6, markerfacecolor="white", color=colour[k], linestyle="none",
                                label=f"step {step}, hollow: {variant_label(others_of_k)}")
            else:
                best = {}
                for r in mine:
                    b = num(r, "bytes")
                    if b not in best or num(r, "gbps") > num(best[b], "gbps"):
                        best[b] = r
                xs = sorted(best)
                what = "cuBLAS" if s_ == "12" else f"step {s_}, fastest"
                ax.plot(xs, [num(best[x], "gbps") for x in xs], linestyle=":" if s_ == "12" else "--",
                        color=colour[s_], marker="s", markersize=3, label=what)
        ceiling = sorted(num(r, "ceiling_gbps") for r in sets[0][1])
        ax.axhline(ceiling[len(ceiling) // 2], color="grey", linewidth=1, label="read ceiling (median)")
        ax.set_title({"tall": "tall 100N × N", "square": "square 10N × 10N", "wide": "wide N × 100N"}[fam],
                     fontsize=10)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        plain_log_axis(ax.yaxis)
        ax.grid(True, which="both", alpha=0.3)
        ticks = sorted({num(r, "bytes") for r in sets[0][1] if family(r) == fam})[::2]
        ax.set_xticks(ticks)
        ax.set_xticklabels([footprint_text(t) for t in ticks], fontsize=7, rotation=45)
    # One legend for the three panels, under the title: every line drawn in any of them, once.
    handles = dict(h_l[::-1] for ax in axes for h_l in zip(*ax.get_legend_handles_labels()))
    axes[0].set_ylabel("effective GB/s")
    ncol = min(4, len(handles))
    lines = (len(handles) + ncol - 1) // ncol
    fig.legend(list(handles.values()), list(handles), fontsize=8, ncol=ncol, loc="upper left",
               bbox_to_anchor=(0.005, 0.945), frameon=False)
    footers = [provenance(rows, path.parent / f"{machine}_step{s_}_fig4.csv") + f" (step {s_})" for s_, rows in sets]
    if missing:
        footers.append(f"{machine}: no figure-4 data of step{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    # tight_layout keeps the suptitle's room below `top` already: take off only what the legend adds
    save_figure(plt, fig, footers, out, top=1.0 - 0.045 * lines)


def bandwidth_figure(name, files, out):
    plt, fig, ax = new_figure("step 00: the GPU's memory bandwidth, three ways")
    labels = [("datasheet_gbps", "datasheet:\nmemory clock x bus width"),
              ("read_ceiling_gbps", "read ceiling:\nstreaming read kernel"),
              ("copy_gbps_read_plus_write", "device-to-device copy:\nbytes read + written")]
    footers = []
    rows_all = [(read_rows(f), f) for f in files]
    height = 0.8 / max(1, len(rows_all))
    for k, (rows, path) in enumerate(rows_all):
        if not rows:
            continue
        footers.append(provenance(rows, path))
        ys = [i - 0.4 + height * (k + 0.5) for i in range(len(labels))]
        vals = [num(rows[0], key) for key, _ in labels]
        bars = ax.barh(ys, vals, height, label=rows[0].get("device", path.stem))
        ax.bar_label(bars, fmt="%.0f GB/s", padding=4, fontsize=9)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels([t for _, t in labels], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("GB/s")
    ax.margins(x=0.15)
    finish(plt, fig, ax, footers, out)


# ------------------------------------------------------------ step 11's benchmark (step11_bench)
# Its CSV: suite, device, sms, date, git_revision, precision, layout, m, n, bytes, ceiling_gbps,
# step11_gbps, cublas_gbps, speedup (cuBLAS time / step 11 time), step11_config, ...

def dim_text(v):
    """2^26 for powers of two past 1000, 4.5k / 2.1M otherwise: mesh and target axes."""
    v = int(v)
    if v >= 1024 and v & (v - 1) == 0:
        return f"2^{v.bit_length() - 1}"
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:.3g}{unit}"
    return str(v)


def bench_sets(files):
    """[(precision, layout, rows, footer)] in file order, layouts col then row."""
    out = []
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        footer = provenance(rows, path)
        for layout in ("col", "row"):
            mine = [r for r in rows if r.get("layout") == layout]
            if mine:
                out.append((mine[0].get("precision", ""), layout, mine, footer))
    return out


LAYOUT_WORD = {"col": "column-major", "row": "row-major"}


def curves_figure(name, files, out):
    """Sørensen's figure 4 for step 11 and cuBLAS: one panel per precision and layout."""
    plt = pyplot()
    sets = bench_sets(files)
    fig, axes = plt.subplots(1, len(sets), figsize=(11, 4.9), dpi=120, sharey=True, squeeze=False)
    fig.suptitle(f"step {name[:2]} (solid) and cuBLAS (dashed): tall 100N x N, square 10N x 10N, wide N x 100N, "
                 "cold L2", fontsize=12, x=0.01, ha="left")
    colours = {"tall": "tab:blue", "square": "tab:green", "wide": "tab:red"}
    footers = []
    for ax, (precision, layout, rows, footer) in zip(axes[0], sets):
        footers.append(footer)
        for fam, marker in (("tall", "v"), ("square", "s"), ("wide", ">")):
            got = sorted((r for r in rows if r["suite"] == f"curve-{fam}"), key=lambda r: num(r, "bytes"))
            x = [num(r, "bytes") for r in got]
            ax.plot(x, [num(r, "step11_gbps") for r in got], marker=marker, markersize=4, color=colours[fam],
                    label=f"{fam}, step {name[:2]}")
            ax.plot(x, [num(r, "cublas_gbps") for r in got], marker=marker, markersize=3, color=colours[fam],
                    linestyle="--", alpha=0.75, label=f"{fam}, cuBLAS")
        every = sorted(rows, key=lambda r: num(r, "bytes"))
        ax.plot([num(r, "bytes") for r in every], [num(r, "ceiling_gbps") for r in every], color="grey",
                linewidth=1, label="read ceiling, same run")
        ax.set_title(f"{precision}, {LAYOUT_WORD.get(layout, layout)} A", fontsize=10)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        plain_log_axis(ax.yaxis)
        ax.grid(True, which="both", alpha=0.3)
        ticks = sorted({num(r, "bytes") for r in rows})
        ticks = [t for t in (2.0 ** k for k in range(10, 40, 3)) if ticks[0] <= t <= ticks[-1] * 1.01]
        ax.set_xticks(ticks)
        ax.set_xticklabels([footprint_text(t) for t in ticks], fontsize=8, rotation=45)
        ax.set_xlabel("bytes the model moves: A, x and y once", fontsize=9)
        if ax is axes[0][0]:
            ax.set_ylabel("effective GB/s")
            ax.legend(fontsize=7.5, ncol=2, loc="lower right")
    save_figure(plt, fig, footers, out, top=0.95)


def mesh_figure(name, files, out):
    """Sørensen's figure 5: the mesh as heat maps, cuBLAS, step 11, and step 11's speed-up over it;
    one row of panels per precision and layout."""
    plt = pyplot()
    from matplotlib.colors import LogNorm, Normalize
    import numpy as np
    sets = bench_sets(files)
    fig, axes = plt.subplots(len(sets), 3, figsize=(12.5, 2.65 * len(sets) + 0.6), dpi=120, squeeze=False)
    fig.suptitle(f"step {name[:2]} over Sørensen's mesh, cold L2: GB/s of cuBLAS and of step {name[:2]}, and "
                 f"cuBLAS time / step {name[:2]} time (blue: step {name[:2]} faster; dot: below 0.95)",
                 fontsize=11, x=0.01, ha="left")
    # GB/s on a linear scale, as the paper draws it: the large matrices, where the ceiling is, get the
    # colours. The speed-up on a log scale from 1/2 to 2, so that 0.8 and 1.25 look alike.
    gb = [num(r, k) for _, _, rows, _ in sets for r in rows for k in ("step11_gbps", "cublas_gbps")]
    gb_norm = Normalize(vmin=0, vmax=max(gb))
    ratio_norm = LogNorm(vmin=0.5, vmax=2.0)
    footers = []
    for row_axes, (precision, layout, rows, footer) in zip(axes, sets):
        footers.append(footer)
        ms = sorted({int(num(r, "m")) for r in rows})
        ns = sorted({int(num(r, "n")) for r in rows})
        grids = {k: np.full((len(ms), len(ns)), np.nan) for k in ("cublas_gbps", "step11_gbps", "speedup")}
        for r in rows:
            i, j = ms.index(int(num(r, "m"))), ns.index(int(num(r, "n")))
            for k in grids:
                grids[k][i, j] = num(r, k)
        for ax, key, title, norm, cmap in (
                (row_axes[0], "cublas_gbps", "cuBLAS GB/s", gb_norm, "viridis"),
                (row_axes[1], "step11_gbps", f"step {name[:2]} GB/s", gb_norm, "viridis"),
                (row_axes[2], "speedup", "speed-up over cuBLAS", ratio_norm, "RdBu")):
            im = ax.imshow(grids[key], origin="lower", aspect="auto", norm=norm, cmap=cmap, interpolation="nearest")
            ax.set_title(f"{title}: {precision}, {LAYOUT_WORD.get(layout, layout)}", fontsize=9.5)
            xt = list(range(0, len(ns), 4))
            yt = list(range(0, len(ms), 4))
            ax.set_xticks(xt)
            ax.set_xticklabels([dim_text(ns[t]) for t in xt], fontsize=7.5)
            ax.set_yticks(yt)
            ax.set_yticklabels([dim_text(ms[t]) for t in yt], fontsize=7.5)
            ax.set_xlabel("n (columns)", fontsize=8)
            ax.set_ylabel("m (rows)", fontsize=8)
            cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03, extend="both" if key == "speedup" else "neither")
            cb.ax.tick_params(labelsize=7)
            if key == "speedup":
                cb.set_ticks([0.5, 0.67, 0.8, 0.95, 1.25, 1.5, 2.0])
                cb.set_ticklabels(["0.5", "0.67", "0.8", "0.95", "1.25", "1.5", "2"])
                cb.ax.minorticks_off()
            if key == "speedup":
                slow = np.argwhere(grids[key] < 0.95)
                ax.scatter(slow[:, 1], slow[:, 0], s=5, color="black")
    save_figure(plt, fig, footers, out, top=0.965)


def targets_figure(name, files, out):
    """The target shapes as % of the measured ceiling, step 11 beside cuBLAS, per precision and layout."""
    plt = pyplot()
    sets = bench_sets(files)
    cols = 2
    rows_n = (len(sets) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(12, 2.35 * rows_n + 0.9), dpi=120, sharey=True, squeeze=False)
    fig.suptitle(f"step {name[:2]} and cuBLAS on the target shapes, % of the read ceiling measured in the same "
                 "run (dashed: the 92 % target)", fontsize=11, x=0.01, ha="left")
    footers = []
    for k, (precision, layout, rows, footer) in enumerate(sets):
        ax = axes[k // cols][k % cols]
        footers.append(footer)
        xs = range(len(rows))
        pct = lambda r, key: 100 * num(r, key) / num(r, "ceiling_gbps")
        a = ax.bar([x - 0.2 for x in xs], [pct(r, "step11_gbps") for r in rows], 0.4, label=f"step {name[:2]}",
                   color="tab:blue")
        b = ax.bar([x + 0.2 for x in xs], [pct(r, "cublas_gbps") for r in rows], 0.4, label="cuBLAS",
                   color="tab:orange")
        ax.bar_label(a, fmt="%.0f", fontsize=6.5, padding=1)
        ax.bar_label(b, fmt="%.0f", fontsize=6.5, padding=1)
        ax.axhline(92, color="black", linestyle="--", linewidth=0.8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{dim_text(num(r, 'm'))}x{dim_text(num(r, 'n'))}" for r in rows], fontsize=7.5)
        a_bytes = num(rows[0], "m") * num(rows[0], "n") * (8 if precision == "double" else 4)
        ax.set_title(f"{precision}, {LAYOUT_WORD.get(layout, layout)}, A {footprint_text(a_bytes)}, "
                     f"ceiling {num(rows[0], 'ceiling_gbps'):.0f} GB/s", fontsize=9)
        ax.set_ylim(0, 115)
        ax.grid(True, axis="y", alpha=0.3)
        if k % cols == 0:
            ax.set_ylabel("% of read ceiling", fontsize=9)
    for k in range(len(sets), rows_n * cols):
        axes[k // cols][k % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()  # the legend beside the title, off the bars
    fig.legend(handles, labels, fontsize=9, ncol=len(labels), loc="upper right", bbox_to_anchor=(0.995, 0.995),
               frameon=False)
    save_figure(plt, fig, footers, out, top=0.93)


# ------------------------------------------------------------------ MPI: steps 13 and 14

def ranks_figure(name, files, out):
    """Step 13: time per product split into compute and communication, and speed-up, against ranks;
    a row of two panels per machine, each titled by its own data (13_ranks_h200x2: that machine only)."""
    plt = pyplot()
    sets = [(read_rows(p), p) for p in files]
    sets = [(rows, p) for rows, p in sets if rows]
    fig, axes = plt.subplots(len(sets), 2, figsize=(11, 4.6 * len(sets)), dpi=120, squeeze=False)
    footers = []
    for (left, right), (rows, path) in zip(axes, sets):
        footers.append(provenance(rows, path))
        r0 = rows[0]
        modes = list(dict.fromkeys(r["mode"] for r in rows))
        ranks = sorted({int(num(r, "ranks")) for r in rows})
        cores = r0.get("units", "?")
        left.set_title(f"{r0['_machine']} ({cores} cores): {r0['m']} x {r0['n']} {r0.get('precision', '')}, "
                       f"{ranks[0]} to {ranks[-1]} ranks, local product: {r0.get('local', '')}", fontsize=11,
                       loc="left")
        width = 0.8 / len(modes)
        for k, mode in enumerate(modes):
            got = {int(num(r, "ranks")): r for r in rows if r["mode"] == mode}
            xs = [i - 0.4 + width * (k + 0.5) for i in range(len(ranks))]
            comp = [num(got[p], "compute_ms") if p in got else float("nan") for p in ranks]
            comm = [num(got[p], "comm_ms") if p in got else float("nan") for p in ranks]
            hatch = "" if k == 0 else "//"
            left.bar(xs, comp, width, color="tab:blue", hatch=hatch, edgecolor="white",
                     label=f"{mode}: compute")
            left.bar(xs, comm, width, bottom=comp, color="tab:orange", hatch=hatch, edgecolor="white",
                     label=f"{mode}: communication")
            base = num(got[ranks[0]], "median_ms") if ranks[0] in got else float("nan")
            right.plot(ranks, [base / num(got[p], "median_ms") if p in got else float("nan") for p in ranks],
                       marker="o", label=f"{mode}: speed-up over {ranks[0]} rank")
        right.plot(ranks, [p / ranks[0] for p in ranks], color="grey", linestyle=":", label="ideal")
        left.set_xticks(range(len(ranks)))
        left.set_xticklabels([str(p) for p in ranks])
        left.set_xlabel("ranks")
        left.set_ylabel("ms per product (slowest rank)")
        left.grid(True, axis="y", alpha=0.3)
        left.set_ylim(top=left.get_ylim()[1] * 1.4)  # room for the legend above the bars
        left.legend(fontsize=8.5, loc="upper center", ncol=2, frameon=False)
        right.set_xscale("log", base=2)
        right.set_yscale("log", base=2)
        right.set_xticks(ranks)
        right.set_xticklabels([str(p) for p in ranks])
        right.set_yticks(ranks)
        right.set_yticklabels([str(p) for p in ranks])
        right.set_xlabel("ranks")
        right.set_ylabel("speed-up")
        right.grid(True, which="both", alpha=0.3)
        right.legend(fontsize=7.5)
    save_figure(plt, fig, footers, out)


# ------------------------------------------------------------------- the climb, and steps 06, 07, 14

STEP_WORDS = {"01": "CPU loop", "02": "OpenMP", "03": "naive", "04": "coalesced", "05": "shared x",
              "06": "reduction", "08": "threads/row", "09": "rows/thread", "10": "threads, cols",
              "11": "versatile", "12": "cuBLAS", "13": "MPI, CPU", "14": "MPI + GPU"}


TOP = 150  # the climb's % axis: bars past it (a CPU ceiling measured low on a busy host) are cut, their % written


def climb_figure(name, files, out):
    """The whole ladder in one picture: every step's fastest verified variant as % of the read ceiling
    measured in the same run, one panel per ladder problem (precision x shape), one bar per step and
    machine (a new machine's ladder files add their bars). CPU steps (01, 02, 13) are measured against
    the CPU's own read ceiling, the GPU steps against the GPU's; cuBLAS (step 12) is marked across the
    panel."""
    plt = pyplot()
    problems = ladder_problems(files)
    machines = sorted({p[0] for p in problems})
    precisions = sorted({p[1] for p in problems}, key=PRECISION_ORDER.get)
    shapes = sorted({p[2] for p in problems}, key=SHAPE_ORDER.get)
    fig, axes = plt.subplots(len(precisions), len(shapes), figsize=(10, 3.3 * len(precisions) + 1.5), dpi=120,
                             sharey=True, squeeze=False)
    fig.suptitle("The climb: each step's fastest variant, % of the read ceiling measured in the same run",
                 fontsize=11.5, x=0.01, ha="left")
    steps = sorted({r["step"] for _, _, _, rows, _ in problems for r in rows})
    footers, gpu_ceilings = [], []
    width = 0.8 / len(machines)
    hatches = ["", "//", "..", "xx"]
    for i, precision in enumerate(precisions):
        for j, shape in enumerate(shapes):
            ax = axes[i][j]
            for k, machine in enumerate(machines):
                got = [(rows, path) for mach, prec, sh, rows, path in problems
                       if (mach, prec, sh) == (machine, precision, shape)]
                if not got:
                    continue
                rows, path = got[0]
                gpu_rows = [r for r in rows if r.get("runtime", "-") != "-"] or rows
                cpu_rows = [r for r in rows if r.get("runtime", "-") == "-"]
                footers.append(provenance(gpu_rows, path))
                gpu_ceilings += [num(r, "ceiling_gbps") for r in gpu_rows]
                if cpu_rows:
                    footers.append(provenance(cpu_rows, path) + " (CPU steps 01, 02, 13)")
                for s_i, step in enumerate(steps):
                    r = best_of_step(rows, step)
                    if r is None:
                        continue
                    cpu = r.get("runtime", "-") == "-"
                    colour = "tab:orange" if step == "12" else "tab:grey" if cpu else "tab:blue"
                    x = s_i - 0.4 + width * (k + 0.5)
                    pct = num(r, "pct_ceiling")
                    shown = min(pct, TOP - 12)
                    ax.bar(x, shown, width, color=colour, hatch=hatches[k % 4], edgecolor="white")
                    # A CPU bar names its own ceiling (the CPU's streaming read, measured in the same run,
                    # which a busy host measures low); a bar cut at the top says its %.
                    label = sig(num(r, "gbps")) + (f" of {sig(num(r, 'ceiling_gbps'))}" if cpu else "")
                    label += f" ({pct:.0f} %)" if pct > shown else ""
                    inside = shown > 45  # long enough to hold its label: written inside, off the panel's edge
                    ax.text(x, shown - 2 if inside else shown + 2, label, ha="center", va="top" if inside else "bottom",
                            fontsize=9.5, rotation=90, color="white" if inside else "black")
                    if step == "12":
                        ax.axhline(pct, color="tab:orange", linestyle="--", linewidth=0.9)
                r0 = gpu_rows[0]
            ax.axhline(100, color="black", linewidth=0.8)
            ax.set_title(f"{precision}, {shape}: {r0['m']} × {r0['n']}", fontsize=11)
            ax.set_xticks(range(len(steps)))
            ax.set_xticklabels(steps, fontsize=9)
            ax.tick_params(axis="y", labelsize=9)
            ax.set_ylim(0, TOP)
            ax.grid(True, axis="y", alpha=0.3)
            if j == 0:
                ax.set_ylabel("% of read ceiling", fontsize=10)
            if i == len(precisions) - 1:
                ax.set_xlabel("step", fontsize=10)
    from matplotlib.patches import Patch
    gpu_ceiling = sorted(gpu_ceilings)[len(gpu_ceilings) // 2] if gpu_ceilings else float("nan")
    handles = [Patch(color="tab:grey", label="CPU step: % of the CPU's own read ceiling (label: GB/s of that ceiling)"),
               Patch(color="tab:blue", label=f"GPU step: % of the GPU's read ceiling, {sig(gpu_ceiling)} GB/s "
                                             "(label: GB/s)"),
               Patch(color="tab:orange", label="cuBLAS (step 12), dashed across the panel")]
    if len(machines) > 1:
        handles += [Patch(facecolor="white", edgecolor="black", hatch=hatches[k % 4], label=m)
                    for k, m in enumerate(machines)]
    fig.legend(handles=handles, fontsize=10, loc="upper right", ncol=2, frameon=False,
               bbox_to_anchor=(0.995, 0.955 if len(precisions) == 1 else 0.97))
    save_figure(plt, fig, footers, out, top=0.87 if len(precisions) == 1 else 0.92)


def threads_of(r):
    m = re.search(r"block (\d+)x(\d+)", r.get("launch", ""))
    return int(m.group(1)) if m else float("nan")


def psweep_figure(name, files, out):
    """Step 06's two-pass kernel against P, its threads per row, on three shapes of one footprint."""
    plt, fig, ax = new_figure(f"step {name[:2]} two_pass: GB/s against P, the threads per row (cold L2)")
    # Log axes first: limits set on a linear axis and kept through the switch to log can start below
    # zero, and the curves collapse to a line at the top.
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    footers, lowest, highest = [], [], []
    markers = "v s > o D".split()
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        footers.append(provenance(rows, path))
        shapes = list(dict.fromkeys((r["m"], r["n"], r.get("precision", "")) for r in rows))
        for k, (m, n, precision) in enumerate(shapes):
            got = sorted((r for r in rows if (r["m"], r["n"], r.get("precision", "")) == (m, n, precision)),
                         key=threads_of)
            ps = [threads_of(r) for r in got]
            gb = [num(r, "gbps") for r in got]
            kind = "tall" if int(m) > int(n) else "wide" if int(m) < int(n) else "square"
            line, = ax.plot(ps, gb, marker=markers[k % len(markers)],
                            label=f"{kind} {m} × {n} {precision}" + (f" ({rows[0]['_machine']})" if len(files) > 1
                                                                      else ""))
            top = max(range(len(gb)), key=gb.__getitem__)
            # The best P of each shape: ringed, and labelled inside the axes, below the point where it is
            # within reach of the ceiling line, above it otherwise; right-aligned at the last P.
            ceiling_here = num(got[top], "ceiling_gbps")
            below = gb[top] > 0.4 * ceiling_here
            ax.plot([ps[top]], [gb[top]], marker="o", markersize=11, markerfacecolor="none",
                    color=line.get_color(), linestyle="none")  # a colour given: the cycle stays put
            ax.annotate(f"best P = {ps[top]}: {sig(gb[top])} GB/s", (ps[top], gb[top]), textcoords="offset points",
                        xytext=(0, -16 if below else 10), va="top" if below else "bottom",
                        ha="right" if top == len(gb) - 1 else "left" if top == 0 else "center", fontsize=8.5,
                        color=line.get_color(), bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8,
                                                      "pad": 1})
            lowest.append(min(gb))
        ceiling = [num(r, "ceiling_gbps") for r in rows]
        ax.axhline(sorted(ceiling)[len(ceiling) // 2], color="grey", linewidth=1,
                   label="read ceiling, measured in the same runs (median)")
        highest.append(max(ceiling))
    if lowest:  # room below the slowest point, and above the ceiling for the labels and the legend
        ax.set_ylim(min(lowest) / 2, max(highest) * 1.8)
    plain_log_axis(ax.yaxis)
    ps = sorted({threads_of(r) for f in files for r in read_rows(f)})
    ax.set_xticks(ps)
    ax.set_xticklabels([str(p) for p in ps])
    ax.set_xlabel("P: threads per row (a block of 256 threads holds 256 / P rows)")
    ax.set_ylabel("effective GB/s")
    finish(plt, fig, ax, footers, out)


def ranktable_table(name, files, out):
    """Step 13 against ranks, per machine: each mode's total, compute and communication (ms per
    product, the slowest rank's) and its speed-up over the fewest ranks."""
    parts = []
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        modes = list(dict.fromkeys(r["mode"] for r in rows))
        ranks = sorted({int(num(r, "ranks")) for r in rows})
        got = {(r["mode"], int(num(r, "ranks"))): r for r in rows}
        head = ["ranks"] + [f"{m}: {w}" for m in modes for w in ("total", "compute", "comm.", "speed-up")]
        body = []
        for p in ranks:
            line = [str(p)]
            for m in modes:
                r, r1 = got.get((m, p)), got.get((m, ranks[0]))
                line += (["-"] * 4 if r is None else
                         [sig(num(r, "median_ms")), sig(num(r, "compute_ms")), sig(num(r, "comm_ms")),
                          sig(num(r1, "median_ms") / num(r, "median_ms")) if r1 else "-"])
            body.append(line)
        r0 = rows[0]
        parts.append(md_table(head, body) + f"\n\n{r0['m']} × {r0['n']} {r0.get('precision', '')}, ms per product "
                     f"(the slowest rank's), median of {r0.get('reps', '?')}, local product: {r0.get('local', '')}; "
                     f"measured on {provenance(rows, path)}")
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")


def ptable_table(name, files, out):
    """The P sweep as a table: GB/s per shape and P, the best of each shape in bold."""
    parts = []
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        ps = sorted({threads_of(r) for r in rows})
        shapes = list(dict.fromkeys((r["m"], r["n"], r.get("precision", "")) for r in rows))
        body = []
        for m, n, precision in shapes:
            got = {threads_of(r): num(r, "gbps") for r in rows if (r["m"], r["n"], r.get("precision", "")) == (m, n, precision)}
            top = max(got, key=got.get)
            body.append([f"{m} × {n} {precision}"] + [("-" if p not in got else f"**{sig(got[p])}**" if p == top
                                                        else sig(got[p])) for p in ps])
        parts.append(md_table(["GB/s"] + [f"P = {p}" for p in ps], body) +
                     f"\n\nBold: the best P of each shape; cold L2; measured on {provenance(rows, path)}")
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")


def scaling_figure(name, files, out):
    """Step 14: per problem and kernel, one GPU beside two: the slowest rank's compute and communication
    per product (stacked), with the speed-up over one GPU above the pair."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(12, 4.9), dpi=120)
    footers = []
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        footers.append(provenance(rows, path))
        keys = list(dict.fromkeys((r["m"], r["n"], r.get("precision", ""), r.get("layout", ""), r.get("kernel", ""))
                                  for r in rows))
        counts = sorted({int(num(r, "gpus")) for r in rows})
        width = 0.8 / len(counts)
        labels = []
        for i, key in enumerate(keys):
            got = {int(num(r, "gpus")): r for r in rows
                   if (r["m"], r["n"], r.get("precision", ""), r.get("layout", ""), r.get("kernel", "")) == key}
            for k, g in enumerate(counts):
                r = got.get(g)
                if r is None:
                    continue
                x = i - 0.4 + width * (k + 0.5)
                comp, comm = 1e3 * num(r, "compute_ms"), 1e3 * num(r, "comm_ms")
                ax.bar(x, comp, width * 0.95, color="tab:blue", alpha=1.0 if k else 0.55,
                       label=f"compute, {g} GPU{'s' if g > 1 else ''}" if i == 0 else None)
                ax.bar(x, comm, width * 0.95, bottom=comp, color="tab:orange", alpha=1.0 if k else 0.55,
                       label=f"communication, {g} GPU{'s' if g > 1 else ''}" if i == 0 else None)
                ax.text(x, comp + comm, f"{g}", ha="center", va="bottom", fontsize=7, color="#333")
            first, last = got.get(counts[0]), got.get(counts[-1])
            if first and last and first is not last:
                top = max(1e3 * (num(r, "compute_ms") + num(r, "comm_ms")) for r in (first, last))
                ax.text(i, top * 1.08, f"{sig(num(first, 'median_ms') / num(last, 'median_ms'))}×", ha="center",
                        fontsize=9, fontweight="bold")
            labels.append(f"{key[0]} × {key[1]}\n{key[2]}, {key[3]}\n{got[max(got)]['variant']}")
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(labels, fontsize=7.5)
        ax.set_ylim(top=ax.get_ylim()[1] * 1.15)
        ax.set_title(f"step {name[:2]}: one product on {counts[0]} and {counts[-1]} GPUs, the slowest rank's compute "
                     f"and communication ({rows[0].get('transfer', '')}-staged); bold: speed-up", fontsize=11,
                     loc="left")
        break  # one machine per figure: the file names the machine
    ax.set_ylabel("µs per product")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", ncol=2)
    save_figure(plt, fig, footers, out)


def matmul_figure(name, files, out):
    """Step 07 (MACHINE_step07_matmul.csv, written by collect_data.sh): GFLOP/s and CGMA against size
    for mmult1, mmult2 at each TILE and cuBLAS gemm, beside the GEMV ladder's best GFLOP/s (cuBLAS
    sgemv at 256 MiB): reuse lifts a matmul off the memory roof, and GEMV has none to lift it."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5.2), dpi=120)
    footers = []
    markers = "osD^v<>p"
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        footers.append(provenance(rows, path))
        for k, variant in enumerate(dict.fromkeys(r["variant"] for r in rows)):
            got = sorted((r for r in rows if r["variant"] == variant), key=lambda r: num(r, "m"))
            x = [num(r, "m") for r in got]
            left.plot(x, [num(r, "gflops") for r in got], marker=markers[k % 8], label=variant)
            right.plot(x, [num(r, "cgma") for r in got], marker=markers[k % 8], label=variant)
    gemv = [r for p in sorted(pathlib.Path(files[0]).parent.glob("ladder/*_ladder_float_square.csv"))
            for r in read_rows(p) if r.get("step") == "12"]
    if gemv:
        left.axhline(num(gemv[0], "gflops"), color="black", linestyle="--", linewidth=1,
                     label=f"GEMV: cuBLAS sgemv, {gemv[0]['m']}² float (the ladder)")
    shared = [r for p in sorted(pathlib.Path(files[0]).parent.glob("ladder/*_ladder_float_square.csv"))
              for r in read_rows(p) if r.get("step") == "05"]
    if shared:
        right.axhline(num(shared[0], "cgma"), color="black", linestyle="--", linewidth=1,
                      label=f"GEMV: step 05, x once per block, {shared[0]['m']}² float")
    for ax, what in ((left, "GFLOP/s"), (right, "CGMA: multiply-adds per global access")):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(__import__("matplotlib.ticker", fromlist=["x"]).FuncFormatter(
            lambda v, _: f"{v:g}"))
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("N (C = A·B, N × N × N)")
        ax.set_ylabel(what)
    fig.suptitle(f"step {name[:2]}: tiled matrix multiplication against size, float", fontsize=12, x=0.01, ha="left")
    legend_above(fig, (left, right), footers, out, plt, ncol=4)


SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_text(v):
    """A dimension as a tick label shows it, exactly: 2²⁶ for powers of two from 1024, else the number."""
    v = int(v)
    return f"2{str(v.bit_length() - 1).translate(SUPERSCRIPT)}" if v >= 1024 and v & (v - 1) == 0 else str(v)


def shape_label(m, n, layout):
    """'2²⁶ × 4' over the layout, for a tick under a group of bars; a shape too long for one line of
    the group's width (12345 × 43483) breaks after the ×."""
    m, n = power_text(m), power_text(n)
    shape = f"{m} × {n}" if len(m) + len(n) <= 8 else f"{m} ×\n{n}"
    return f"{shape}\n{layout}"


FORMAT_COLOURS = {"float": "tab:blue", "bf16": "tab:orange", "fp16": "tab:green", "fp8": "tab:red"}


def formats_figure(name, files, out):
    """Step 15: the share of the read ceiling of each format, one panel per kernel (the versatile
    kernel, cublasGemmEx, the warp-per-row kernel: at most three formats a panel, one colour each
    format in every panel), and the elements of A a nanosecond of the versatile kernel per format
    beside step 11's float: the same share of the ceiling moves twice (bf16, fp16) or four times
    (fp8) the elements. Each kernel's title says where its configuration came from (tuned, heuristic);
    the formats' legend sits above the panels, off the bars."""
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(13, 6.5), dpi=120)
    footers, rows = [], []
    for path in files:
        got = read_rows(path)
        floats = path.with_name(path.name.replace("_formats", "_float"))
        if floats.exists():
            got += read_rows(floats)
        if got:
            footers.append(provenance(got, path))
            rows += got
    kernel = lambda r: re.sub(r" \((tuned|heuristic|given)\)", "", r.get("variant", "?")).split(" op ")[0]
    source = lambda r: (re.search(r"\((tuned|heuristic|given)\)", r.get("variant", "")) or [None, None])[1]

    def panel(ax, kern, value, title, formats):
        """Bars of VALUE(row) per problem that KERN ran, one colour per format."""
        mine = [r for r in rows if kernel(r) == kern and r["precision"] in formats]
        problems = list(dict.fromkeys((r["m"], r["n"], r["layout"]) for r in mine))
        present = [f for f in formats if any(r["precision"] == f for r in mine)]
        width = 0.8 / max(1, len(present))
        for k, precision in enumerate(present):
            ys = []
            for p in problems:
                hit = [r for r in mine if (r["m"], r["n"], r["layout"]) == p and r["precision"] == precision]
                ys.append(value(hit[0]) if hit else float("nan"))
            ax.bar([i + (k - (len(present) - 1) / 2) * width for i in range(len(problems))], ys, width,
                   color=FORMAT_COLOURS[precision])
        sources = sorted({source(r) for r in mine if r["precision"] != "float" and source(r)})
        ax.set_title(title + (f" ({', '.join(sources)} configuration)" if sources else ""), fontsize=11, loc="left")
        ax.set_xticks(range(len(problems)))
        ax.set_xticklabels([shape_label(m, n, layout) for m, n, layout in problems], fontsize=8.5)
        ax.tick_params(axis="y", labelsize=9)
        ax.grid(True, axis="y", alpha=0.3)

    narrow = ("bf16", "fp16", "fp8")
    pct = lambda r: num(r, "pct_ceiling")
    per_ns = lambda r: num(r, "m") * num(r, "n") / (num(r, "median_ms") * 1e6)
    for ax, kern, title in ((axes[0][0], "versatile", "versatile kernel"), (axes[1][0], "cublasGemmEx", "cublasGemmEx"),
                            (axes[1][1], "warp per row", "warp per row (row-major only)")):
        panel(ax, kern, pct, f"{title}: % of the read ceiling", narrow)
        ax.axhline(100, color="black", linewidth=1)
        ax.set_ylim(0, 110)
    panel(axes[0][1], "versatile", per_ns, "versatile kernel: elements of A a nanosecond", ("float",) + narrow)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    shown = [p for p in ("float", "bf16", "fp16", "fp8") if any(r["precision"] == p for r in rows)]
    float_source = sorted({source(r) for r in rows if r["precision"] == "float" and source(r)})
    handles = [Patch(color=FORMAT_COLOURS[p], label=p + (f" (step 11{', ' + float_source[0] if float_source else ''})"
                                                         if p == "float" else "")) for p in shown]
    handles.append(Line2D([], [], color="black", linewidth=1, label="read ceiling, measured in the same run"))
    fig.legend(handles=handles, fontsize=10, loc="upper right", ncol=len(handles), frameon=False,
               bbox_to_anchor=(0.995, 0.995))
    fig.suptitle(f"step {name[:2]}: each format, per kernel", fontsize=12, x=0.01, ha="left")
    save_figure(plt, fig, footers, out, top=0.94)


# The kernels each deck's roofline draws: step 16 its own kernel against cuBLAS, step 17 the staged
# and tensor-core kernels against cuBLAS: at most three kernels a panel, so six lines (a solid line for
# the square problem, a dashed one for the odd one).
ROOFLINE_KERNELS = {"16": ("register-blocked", "cuBLAS"),
                    "17": ("FMA, staged", "tensor cores", "tensor cores, staged", "cuBLAS")}


def roofline_figure(name, files, out):
    """Step 16 (MACHINE_stepNN_vectors.csv): one panel per precision and layout, GFLOP/s against the
    model's intensity (flops a byte of A once, X and Y once) for k = 1 … 256 vectors: each kernel
    and cuBLAS (the deck's kernels, ROOFLINE_KERNELS), one colour a kernel, a solid line for the
    square problem and a dashed one for the odd one; the memory roof (the read ceiling
    measured in the same runs × intensity), the compute roofs of FP32 FMA and of the bf16 tensor
    cores (from the device's SMs and clock), and the k from which the chooser takes the tensor
    cores. One legend, beside the panels, off the data."""
    plt = pyplot()
    from matplotlib.lines import Line2D
    rows, footers = [], []
    for path in files:
        got = read_rows(path)
        if got:
            footers.append(provenance(got, path))
            rows += got
    kernel = lambda r: r.get("variant", "?").replace(" (chosen)", "").split(" op ")[0]
    cublas = lambda kern: kern.startswith("cublas")
    shown = ROOFLINE_KERNELS[name[:2]]
    rows = [r for r in rows if ("cuBLAS" if cublas(kernel(r)) else kernel(r)) in shown]
    precisions = [p for p in ("float", "bf16") if any(r.get("precision") == p for r in rows)]
    layouts = [lay for lay in ("row", "col") if any(r.get("layout") == lay for r in rows)]
    fig, axes = plt.subplots(max(1, len(precisions)), max(1, len(layouts)), figsize=(13, 6.8), dpi=120,
                             squeeze=False)
    colors = {"register-blocked": "#1f77b4", "FMA, staged": "#2ca02c", "tensor cores": "#d62728",
              "tensor cores, staged": "#ff7f0e", "cuBLAS": "#555555"}
    styles = ["-", "--", ":", "-."]
    handles, shapes, ceilings, gemms = {}, {}, [], []
    for i, precision in enumerate(precisions):
        mine_p = [r for r in rows if r.get("precision") == precision]
        xs = [num(r, "model_intensity") for r in mine_p]
        lo, hi = min(xs) / 1.5, max(xs) * 1.5
        ceiling = sorted(num(r, "ceiling_gbps") for r in mine_p)[len(mine_p) // 2]  # the median run's
        peaks = {units: max(num(r, "compute_peak_gflops") for r in mine_p if r.get("compute_units") == units)
                 for units in ("fp32 fma", "bf16 tensor cores") if any(r.get("compute_units") == units for r in mine_p)}
        for j, layout in enumerate(layouts):
            ax = axes[i][j]
            mine = [r for r in mine_p if r.get("layout") == layout]
            problems = sorted(dict.fromkeys((r["m"], r["n"]) for r in mine), key=lambda p: (int(p[0]) != int(p[1]), p))
            grid = [lo * (hi / lo) ** (g / 100) for g in range(101)]
            ax.plot(grid, [ceiling * x for x in grid], color="black", linewidth=1.2)
            ceilings.append(f"{ceiling / 1000:.2f}")
            gemms += [kernel(r).replace("cublas", "") for r in mine if cublas(kernel(r))]
            for units, style in (("fp32 fma", ":"), ("bf16 tensor cores", "--")):
                if units in peaks:
                    ax.axhline(peaks[units], color="black", linestyle=style, linewidth=1.2)
                    handles.setdefault(units, Line2D([], [], color="black", linestyle=style, linewidth=1.2,
                                                     label=f"compute roof, {units.replace('fma', 'FMA')}: "
                                                           f"{peaks[units] / 1000:.0f} TFLOP/s"))
            for p_index, (m, n) in enumerate(problems):
                for kern in dict.fromkeys(kernel(r) for r in mine):
                    got = sorted((r for r in mine if (r["m"], r["n"]) == (m, n) and kernel(r) == kern),
                                 key=lambda r: num(r, "k"))
                    if not got:
                        continue
                    who = "cuBLAS" if cublas(kern) else kern
                    ax.plot([num(r, "model_intensity") for r in got], [num(r, "gflops") for r in got],
                            linestyle=styles[p_index % len(styles)], marker="o", markersize=3, linewidth=1.3,
                            color=colors.get(who), alpha=0.7 if who == "cuBLAS" else 0.95)
                    handles.setdefault(who, Line2D([], [], color=colors.get(who), marker="o", markersize=4,
                                                   linewidth=1.5, label=who))
                    shape = f"{m}²" if m == n else f"{m} × {n}"
                    shapes.setdefault(p_index, {}).setdefault(shape, []).append(precision)
            # Where the chooser hands bf16 to the tensor cores: the first k whose chosen row is one of
            # their two kernels.
            takeover = sorted({int(num(r, "k")) for r in mine
                               if r.get("chosen") == "yes" and kernel(r).startswith("tensor cores")})
            if takeover:
                at = [num(r, "model_intensity") for r in mine if int(num(r, "k")) == takeover[0]]
                ax.axvline(min(at), color="#d62728", linestyle="-.", linewidth=1)
                handles.setdefault("chooser", Line2D([], [], color="#d62728", linestyle="-.", linewidth=1,
                                                     label="the chooser takes the tensor cores"))
            # From which k a tensor-core kernel (the faster of the two) measured faster than the
            # register-blocked one, per problem: under the panel's title.
            ahead = []
            for m, n in problems:
                at = lambda kern, k: [num(r, "gflops") for r in mine if (r["m"], r["n"]) == (m, n)
                                      and kernel(r).startswith(kern) and int(num(r, "k")) == k]
                ks = sorted({int(num(r, "k")) for r in mine if (r["m"], r["n"]) == (m, n)})
                first = [k for k in ks if at("tensor cores", k) and at("register-blocked", k)
                         and max(at("tensor cores", k)) > at("register-blocked", k)[0]]
                if first:
                    ahead.append(first[0])
            note = ""
            if ahead:
                ks = sorted(set(ahead))
                note = (f"\ntensor cores ahead of register-blocked from k = {ks[0]}"
                        + ("" if len(ks) == 1 and len(ahead) == len(problems) else f" … {ks[-1]}"))
            ax.set_title(f"{precision}, {'row' if layout == 'row' else 'column'}-major A{note}", fontsize=10.5,
                         loc="left")
            ax.set_xscale("log")
            ax.set_yscale("log")
            plain_log_axis(ax.xaxis)
            ax.tick_params(labelsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.set_xlim(lo, hi)
            if i == len(precisions) - 1:
                ax.set_xlabel("flops a byte of the model (k = 1 … 256)", fontsize=9.5)
            if j == 0:
                ax.set_ylabel("GFLOP/s", fontsize=9.5)
    handles["roof"] = Line2D([], [], color="black", linewidth=1.2, label=f"memory roof: read ceiling "
                             f"({', '.join(dict.fromkeys(ceilings))} TB/s) × intensity")
    if "cuBLAS" in handles:
        handles["cuBLAS"].set_label(f"cuBLAS ({', '.join(dict.fromkeys(gemms))})")
    for p_index, named in shapes.items():
        handles[f"problem {p_index}"] = Line2D([], [], color="black", linestyle=styles[p_index % len(styles)],
                                               label=", ".join(shape + ("" if len(set(named[shape])) == len(precisions)
                                                                        else f" ({'/'.join(dict.fromkeys(named[shape]))})")
                                                               for shape in named))
    order = ["roof", "fp32 fma", "bf16 tensor cores", "chooser"] + list(colors) + sorted(k for k in handles if
                                                                                          k.startswith("problem"))
    fig.legend(handles=[handles[k] for k in order if k in handles], fontsize=10.5, loc="center left",
               frameon=False, bbox_to_anchor=(0.665, 0.5))
    fig.suptitle(f"step {name[:2]}: Y = A·X for k vectors on the roofline, measured (2·m·n·k flops over the "
                 f"median time)", fontsize=12, x=0.01, ha="left")
    footers = list(dict.fromkeys(footers))
    fig.text(0.01, 0.01, "\n".join(f"measured on {f}" for f in footers), fontsize=8.5, color="#444", va="bottom")
    fig.tight_layout(rect=(0, 0.035 + 0.03 * len(footers), 0.665, 0.95))
    fig.savefig(out)
    plt.close(fig)


# -------------------------------------------------------------------------------------- tables

def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def largest_square(rows):
    square = [r for r in rows if r.get("m") == r.get("n")] or rows
    top = max(num(r, "bytes") for r in square)
    return [r for r in square if num(r, "bytes") == top]


def roofverdict_table(name, files, out):
    """Step 16's speed targets, per machine and precision, from the chooser's pick and cuBLAS on the
    same problem and k: (1) k <= 64 and A of 256 MiB or more: at least 85 % of the roofline (the
    lower of the memory roof and the compute roof of the units the kernel uses); (2) odd shapes
    (the _odd file), k <= 64: geometric mean at least 1.5x cuBLAS; (3) every problem and k: at
    least 0.95x cuBLAS. Rows that failed verification count as missing the targets."""
    by_machine = {}
    for path in files:
        rows = read_rows(path)
        odd = path.stem.endswith("_odd")
        for r in rows:
            r["_odd"] = odd
        if rows:
            by_machine.setdefault(rows[0]["_machine"], ([], []))
            by_machine[rows[0]["_machine"]][0].extend(chosen_beside_cublas(rows))  # pairs within one file
            by_machine[rows[0]["_machine"]][1].append(provenance(rows, path))
    parts = []
    for machine, (pairs, footers) in sorted(by_machine.items()):
        lines = []
        for precision in [p for p in ("float", "bf16") if any(c.get("precision") == p for c, _ in pairs)]:
            mine = [(c, cub) for c, cub in pairs if c.get("precision") == precision]
            elem = 4 if precision == "float" else 2
            where = lambda r: f"{r['m']} × {r['n']} {r['layout']}, k = {r['k']}"
            ok = lambda r: r.get("verified") in ("yes", "not checked")
            big = [r for r, _ in mine if num(r, "k") <= 64 and num(r, "m") * num(r, "n") * elem >= 2 ** 28]
            if big:
                worst = min(big, key=lambda r: num(r, "pct_roofline") if ok(r) else -1)
                got = num(worst, "pct_roofline") if ok(worst) else float("nan")
                lines.append([precision, "k ≤ 64, A ≥ 256 MiB: ≥ 85 % of the roofline", f"worst {pct1(got)}",
                              where(worst), "met" if got >= 85 else "missed"])
            ratios = [(num(cub, "median_ms") / num(c, "median_ms") if ok(c) else 0.0, c) for c, cub in mine]
            odd = [(x, c) for x, c in ratios if c["_odd"] and num(c, "k") <= 64]
            if odd:
                gm = math.exp(sum(math.log(max(x, 1e-9)) for x, _ in odd) / len(odd))
                lines.append([precision, "odd shapes, k ≤ 64: geometric mean ≥ 1.5× cuBLAS",
                              f"{sig(gm)}× over {len(odd)} problems", "-", "met" if gm >= 1.5 else "missed"])
            if ratios:
                x, c = min(ratios, key=lambda t: t[0])
                lines.append([precision, "every problem and k: ≥ 0.95× cuBLAS", f"worst {sig(x)}×", where(c),
                              "met" if x >= 0.95 else "missed"])
        parts.append(f"measured on {'; '.join(dict.fromkeys(footers))}\n\n" +
                     md_table(["precision", "target", "measured", "where", "verdict"], lines))
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")


def largest_square_table(files, out, caption, head, cells):
    """One table a file: its rows at the largest square, under CAPTION(first of them, all rows, path)."""
    parts = []
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        big = largest_square(rows)
        parts.append(caption(big[0], rows, path) + "\n\n" + md_table(head, [cells(r) for r in big]))
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")


def summary_table(name, files, out):
    def caption(r0, rows, path):
        return (f"{r0['m']} x {r0['n']} {r0.get('precision', '')}, {footprint_text(num(r0, 'bytes'))}, "
                f"{r0.get('cache', '')} cache, median of {r0.get('reps', '?')}; measured on {provenance(rows, path)}")

    def cells(r):
        return [r["variant"], f"{sig(num(r, 'median_ms'))} ms", sig(num(r, 'gbps')),
                f"{pct1(num(r, 'pct_ceiling'))} of {sig(num(r, 'ceiling_gbps'))}", sig(num(r, 'gflops')),
                sig(num(r, 'cgma')), r.get("verified", "")]

    largest_square_table(files, out, caption,
                         ["variant", "time", "GB/s", "% of read ceiling", "GFLOP/s", "CGMA", "verified"], cells)


def occupancy_table(name, files, out):
    def caption(r0, rows, path):
        return (f"{r0['m']} x {r0['n']} {r0.get('precision', '')}; from the CUDA occupancy API, "
                f"measured on {provenance(rows, path)}")

    def cells(r):
        return [r["variant"], r.get("launch", ""), r.get("registers_per_thread", ""),
                f"{int(num(r, 'shared_bytes_per_block'))} B", r.get("blocks_per_sm", ""),
                occupancy_pct(num(r, 'occupancy')), r.get("limiter", "")]

    largest_square_table(files, out, caption, ["variant", "launch", "registers / thread", "shared / block",
                                               "blocks / SM", "occupancy", "limited by"], cells)


def short_launch(r):
    return (r.get("launch") or "").split(";")[0].split(" (")[0]


SHAPE_ORDER = {"tall": 0, "square": 1, "wide": 2}
PRECISION_ORDER = {"float": 0, "double": 1}


def qualifier_tokens(name):
    m = NAME.match(name)
    q = (m.group(3) or "") if m else ""
    tokens = [t for t in q.split("_") if t]
    return ([t for t in tokens if t.isdigit()], [t for t in tokens if t in PRECISION_ORDER],
            [t for t in tokens if t in SHAPE_ORDER])


def ladder_problems(files, precisions=(), shapes=()):
    """[(machine, precision, shape, rows, path)] of the ladder files MACHINE_ladder_PRECISION_SHAPE.csv,
    float before double, tall, square, wide; only the precisions and shapes asked for (all if none)."""
    out = []
    for path in files:
        m = re.match(r"(.+)_ladder_(float|double)_(tall|square|wide)\.csv$", path.name)
        if not m:
            continue
        machine, precision, shape = m.groups()
        if (precisions and precision not in precisions) or (shapes and shape not in shapes):
            continue
        rows = read_rows(path)
        if rows:
            out.append((machine, precision, shape, rows, path))
    out.sort(key=lambda t: (t[0], PRECISION_ORDER[t[1]], SHAPE_ORDER[t[2]]))
    return out


def problem_text(r):
    return f"{r['m']} × {r['n']} {r.get('precision', '')}"


def ladder_note(problems):
    """Where a ladder table's rows come from: per machine, its GPU (or CPU) and revision."""
    notes = []
    for machine, _, _, rows, path in problems:
        gpu = [r for r in rows if r.get("runtime", "-") != "-"] or rows
        notes.append(provenance(gpu, path))
    return "; ".join(dict.fromkeys(f"measured on {n}" for n in notes))


def ladder_table(name, files, out):
    """The step's rows of the ladder tables (one problem each): launch, occupancy and its limiter as
    the CUDA occupancy API reports it, GB/s, % of the read ceiling measured in the same run, and the
    ratio to cuBLAS. NN_ladder_float: the float problems only."""
    step = name[:2]
    _, precisions, shapes = qualifier_tokens(name)
    problems = ladder_problems(files, precisions, shapes)
    machines = {p[0] for p in problems}
    body = []
    for machine, precision, shape, rows, path in problems:
        for r in (r for r in rows if r.get("step") == step):
            occ = "-" if r.get("limiter", "-") == "-" else f"{occupancy_pct(num(r, 'occupancy'))} ({r['limiter']})"
            label = f"{shape} {problem_text(r)}" + (f" ({machine})" if len(machines) > 1 else "")
            checked = "" if r.get("verified") == "yes" else f" (verified: {r.get('verified')})"
            body.append([label, r["variant"], short_launch(r), r.get("registers_per_thread", "") or "-", occ,
                         sig(num(r, "gbps")) + checked, pct1(num(r, "pct_ceiling")), sig(cublas_ratio(rows, r))])
    if not body:
        pathlib.Path(out).write_text(f"No row of step {step} in the committed ladder tables.\n")
        return
    head = ["problem (256 MiB)", "variant", "launch", "regs", "occupancy (limiter)", "GB/s", "of ceiling",
            "× cuBLAS"]
    pathlib.Path(out).write_text(md_table(head, body) + f"\n\nThe ladder, cold L2; {ladder_note(problems)}\n")


def best_of_step(rows, step):
    mine = [r for r in rows if r.get("step") == step and r.get("verified") == "yes"]
    return max(mine, key=lambda r: num(r, "gbps")) if mine else None


def vs_table(name, files, out):
    """The step beside other steps on the ladder's shapes: a row per variant (NN's own) or per step (the
    others, its fastest variant), a column per shape; GB/s (% of the read ceiling of the same run).
    06_vs_05_12_float: step 06's variants, steps 05 and 12, float problems; ..._ratio: cuBLAS's time over
    each one's instead (above 1: faster than cuBLAS)."""
    step = name[:2]
    others, precisions, shapes = qualifier_tokens(name)
    as_ratio = name.endswith("_ratio")  # cells: cuBLAS time / this time, instead of GB/s
    problems = ladder_problems(files, precisions, shapes)
    machines = sorted({p[0] for p in problems})
    columns = list(dict.fromkeys(shape for _, _, shape, _, _ in problems))
    body = []
    for machine in machines:
        for precision in sorted({p[1] for p in problems if p[0] == machine}, key=PRECISION_ORDER.get):
            mine = {shape: rows for mach, prec, shape, rows, _ in problems if mach == machine and prec == precision}
            keys = []  # (label, pick(rows) -> row)
            for s_ in sorted(set(others) | {step}):
                if s_ == step:
                    variants = list(dict.fromkeys(r["variant"] for rows in mine.values() for r in rows
                                                  if r.get("step") == step))
                    keys += [(f"{step} {v}", lambda rows, v=v: next((r for r in rows if r.get("step") == step
                                                                     and r["variant"] == v), None)) for v in variants]
                else:
                    names = {r["variant"] for rows in mine.values() for r in rows if r.get("step") == s_}
                    what = "cuBLAS" if s_ == "12" else (next(iter(names)) if len(names) == 1 else "fastest variant")
                    keys.append((f"{s_} {what}", lambda rows, s_=s_: best_of_step(rows, s_)))
            for label, pick in keys:
                line = [f"{precision}: {label}" + (f" ({machine})" if len(machines) > 1 else "")]
                for shape in columns:
                    r = pick(mine.get(shape, []))
                    if r is None:
                        line.append("-")
                    elif as_ratio:
                        line.append(sig(cublas_ratio(mine.get(shape, []), r)))
                    else:
                        line.append(f"{sig(num(r, 'gbps'))} ({pct1(num(r, 'pct_ceiling'))})")
                body.append(line)
    head = ["cuBLAS time / step time" if as_ratio else "GB/s (% of ceiling)"]
    for shape in columns:
        r0 = next(rows[0] for _, _, sh, rows, _ in problems if sh == shape)
        head.append(f"{shape}, {r0['m']} × {r0['n']}" + ("" if len(precisions) == 1 else " (float)"))
    if len(precisions) != 1:  # the double problems have their own sizes: say them once
        dbl = [(sh, rows[0]) for _, prec, sh, rows, _ in problems if prec == "double"]
        extra = "; double: " + ", ".join(f"{sh} {r['m']} × {r['n']}" for sh, r in dbl) if dbl else ""
    else:
        extra = ""
    pathlib.Path(out).write_text(md_table(head, body) + f"\n\nThe ladder at 256 MiB, cold L2{extra}; "
                                 f"{ladder_note(problems)}\n")


def hybrid_table(name, files, out):
    """Step 13's hybrid: one rank with threads, both modes."""
    parts = []
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        r0 = rows[0]
        parts.append(f"{r0['m']} x {r0['n']} {r0.get('precision', '')}, median of {r0.get('reps', '?')}; measured on "
                     f"{provenance(rows, path)}\n\n" +
                     md_table(["mode", "ranks x threads", "ms per product", "compute ms", "communication ms",
                               "GB/s"],
                              [[r["variant"], f"{r['ranks']} x {r['threads_per_rank']}", sig(num(r, 'median_ms')),
                                sig(num(r, 'compute_ms')), sig(num(r, 'comm_ms')), sig(num(r, 'gbps'))]
                               for r in rows]))
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")


def gpus_table(name, files, out):
    """Step 14: per problem and kernel, 1 GPU against P GPUs: GB/s, per-GPU GB/s, communication share."""
    parts = []
    for path in files:
        rows = read_rows(path)
        if not rows:
            continue
        keys = list(dict.fromkeys((r["m"], r["n"], r.get("precision", ""), r.get("layout", ""), r.get("kernel", ""))
                                  for r in rows))
        counts = sorted({int(num(r, "gpus")) for r in rows})
        head = ["problem", "kernel"]
        for g in counts:
            head += [f"{g} GPU{'s' if g > 1 else ''}: GB/s", "per GPU", "comm share"]
        head += [f"speed-up {counts[0]} to {counts[-1]}"]
        body = []
        for key in keys:
            got = {int(num(r, "gpus")): r for r in rows
                   if (r["m"], r["n"], r.get("precision", ""), r.get("layout", ""), r.get("kernel", "")) == key}
            line = [f"{key[0]} x {key[1]} {key[2]}, {key[3]}", got[max(got)]["variant"]]
            for g in counts:
                r = got.get(g)
                if r is None:
                    line += ["-", "-", "-"]
                    continue
                lo, hi = num(r, "gpu_gbps_min"), num(r, "gpu_gbps_max")
                line += [sig(num(r, 'gbps')), sig(lo) if sig(lo) == sig(hi) else f"{sig(lo)}–{sig(hi)}",
                         pct1(100 * num(r, 'comm_share'))]
            first, last = got.get(counts[0]), got.get(counts[-1])
            line.append(f"{sig(num(first, 'median_ms') / num(last, 'median_ms'))}×" if first and last else "-")
            body.append(line)
        parts.append(md_table(head, body) + f"\n\nOne product, cold L2, {rows[0].get('transfer', '')}-staged "
                     f"transfers; GB/s: the model's bytes over the slowest rank's time; per GPU: its block's bytes "
                     f"over its compute time; measured on {provenance(rows, path)}")
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")


FACTS = [("device", "device"), ("compute_capability", "compute capability"), ("sms", "SMs"),
         ("global_memory", "memory"), ("l2_cache", "L2 cache"), ("memory_clock_mhz", "memory clock, MHz"),
         ("bus_width_bits", "bus width, bits"), ("max_threads_per_sm", "threads per SM, at most"),
         ("max_blocks_per_sm", "blocks per SM, at most"), ("registers_per_sm", "registers per SM"),
         ("shared_memory_per_sm", "shared memory per SM"), ("cuda_runtime", "CUDA runtime"),
         ("cuda_driver", "CUDA driver"), ("datasheet_gbps", "datasheet GB/s"),
         ("read_ceiling_gbps", "read ceiling GB/s (measured)"),
         ("read_ceiling_pct_datasheet", "read ceiling, % of datasheet")]


def verdict_table(name, files, out):
    """Each target of step 11's benchmark with its measured figure, per precision and layout; missed in bold."""
    groups, footers = {}, []
    for path in files:
        rows = [r for r in read_rows(path) if r.get("suite") in ("targets", "mesh", "offmesh", "odd", "curve-tall",
                                                                  "curve-square", "curve-wide")]
        if rows:
            footers.append(provenance(rows, path))
        for r in rows:
            groups.setdefault((r.get("precision", ""), r.get("layout", "")), {}).setdefault(r.get("suite"), []).append(r)
    keys = sorted(groups, key=lambda k: (k[0] != "float", k[1] != "col"))
    exact = lambda v: dim_text(v) if int(v) >= 1024 and int(v) & (int(v) - 1) == 0 else str(int(v))
    shape = lambda r: f"{exact(num(r, 'm'))} × {exact(num(r, 'n'))}"
    mib = 4 * 2 ** 20

    def judged(text, met):
        return text if met else f"**{text}**"

    def targets_floor(g):
        rows = g.get("targets", [])
        r = min(rows, key=lambda r: num(r, "step11_gbps") / num(r, "ceiling_gbps"))
        pct = 100 * num(r, "step11_gbps") / num(r, "ceiling_gbps")
        return judged(f"{pct:.1f} % ({shape(r)})", pct >= 92)

    def spread(g, key, target=True):
        v = [num(r, key) for r in g.get("targets", [])]
        pct = 100 * (max(v) / min(v) - 1)
        return judged(f"{pct:.1f} %", pct <= 10) if target else f"{pct:.1f} %"

    def mesh_big(g):
        return [r for r in g.get("mesh", []) if num(r, "bytes") >= mib]

    def geomean(g):
        v = [num(r, "speedup") for r in mesh_big(g)]
        gm = math.exp(sum(map(math.log, v)) / len(v))
        return judged(sig(gm), gm >= 1.15)

    def lowest(g):
        r = min(mesh_big(g), key=lambda r: num(r, "speedup"))
        below = sum(num(x, "speedup") < 0.95 for x in mesh_big(g))
        return judged(f"{sig(num(r, 'speedup'))} ({shape(r)}), {below} of {len(mesh_big(g))} below",
                      num(r, "speedup") >= 0.95)

    def small(g):
        rows = [r for r in g.get("mesh", []) if num(r, "bytes") < mib]
        r = max(rows, key=lambda r: num(r, "step11_ms") / num(r, "cublas_ms"))
        t = num(r, "step11_ms") / num(r, "cublas_ms")
        return judged(f"{sig(t)} ({shape(r)})", t <= 1.1)

    def odd(g):
        rows = g.get("odd", [])
        r = min(rows, key=lambda r: num(r, "speedup"))
        seeds = sorted({r.get("seed", "?") for r in rows})
        return judged(f"{sig(num(r, 'speedup'))} ({shape(r)}), seed {', '.join(seeds)}", num(r, "speedup") >= 0.95)

    def big(g):  # every shape of 256 MiB or more, of every suite but the mesh (its own rows above)
        return [r for suite in ("targets", "offmesh", "odd", "curve-tall", "curve-square", "curve-wide")
                for r in g.get(suite, []) if num(r, "bytes") >= 256 * 2 ** 20]

    def roof(r):  # the read ceiling; where n < 8, y is a large share of the bytes: the copy figure
        return num(r, "copy_gbps") if int(num(r, "n")) < 8 and r.get("copy_gbps") else num(r, "ceiling_gbps")

    def big_floor(g):
        r = min(big(g), key=lambda r: num(r, "step11_gbps") / roof(r))
        pct = 100 * num(r, "step11_gbps") / roof(r)
        return judged(f"{pct:.1f} % ({shape(r)}), {len(big(g))} shapes", pct >= 92)

    def big_spread(g):  # within each octave of footprint
        octaves = {}
        for r in big(g):
            octaves.setdefault(int(math.log2(num(r, "bytes"))), []).append(num(r, "step11_gbps"))
        worst = max((100 * (max(v) / min(v) - 1), k) for k, v in octaves.items())
        return judged(f"{worst[0]:.1f} % (at {footprint_text(2.0 ** worst[1])})", worst[0] <= 10)

    def offmesh(g):
        r = max(g.get("offmesh", []), key=lambda r: num(r, "step11_ms") / num(r, "best_ms"))
        pct = 100 * (num(r, "step11_ms") / num(r, "best_ms") - 1)
        return judged(f"{pct:.1f} % ({shape(r)})", pct <= 3)

    lines = [("7 target shapes: lowest % of the ceiling (≥ 92 %)", targets_floor, "targets"),
             ("7 target shapes: spread of step 11's GB/s (≤ 10 %)", lambda g: spread(g, "step11_gbps"), "targets"),
             ("the same for cuBLAS (no target)", lambda g: spread(g, "cublas_gbps", False), "targets"),
             ("mesh ≥ 4 MiB: geometric mean of cuBLAS time / step 11 time (≥ 1.15)", geomean, "mesh"),
             ("mesh ≥ 4 MiB: lowest ratio (≥ 0.95)", lowest, "mesh"),
             ("mesh < 4 MiB: worst step 11 time / cuBLAS time (≤ 1.1)", small, "mesh"),
             ("off the mesh: worst time over the best at that shape (≤ 3 %)", offmesh, "offmesh"),
             ("odd, prime and degenerate shapes: lowest ratio (≥ 0.95)", odd, "odd"),
             ("≥ 256 MiB, any shape: lowest % of the ceiling (of the copy figure where n < 8; ≥ 92 %)", big_floor,
              "odd"),
             ("≥ 256 MiB, any shape: spread of step 11's GB/s within an octave of footprint (≤ 10 %)", big_spread,
              "odd")]
    body = [[label] + [make_cell(groups[k]) if groups[k].get(suite) else "-" for k in keys]
            for label, make_cell, suite in lines]
    head = ["target"] + [f"{p}, {LAYOUT_WORD.get(l, l)}" for p, l in keys]
    note = "Bold: missed. Measured on " + "; ".join(dict.fromkeys(footers)) + "."
    pathlib.Path(out).write_text(md_table(head, body) + f"\n\n{note}\n")


def experiments_figure(name, files, out):
    """The A/B runs of the newest stop (the `stop` column) in a step's experiments file: for each problem
    (its tag's first part), every variant tried, as % of the read ceiling of its own run; one panel a
    precision. Runs marked as a poor configuration or a first version are left out."""
    plt = pyplot()
    rows = [r for path in files for r in read_rows(path)]
    newest = max(int(r.get("stop") or 0) for r in rows)
    rows = [r for r in rows if int(r.get("stop") or 0) == newest and "poor configuration" not in r["experiment"]
            and "first version" not in r["experiment"]]
    groups = {}
    for r in rows:
        problem = "_".join(r["tag"].split("_")[:3])  # precision_layout_MxN
        groups.setdefault(r["precision"], {}).setdefault(problem, []).append(r)
    precisions = [p for p in ("float", "double") if p in groups]
    fig, axes = plt.subplots(1, len(precisions), figsize=(12, 5.6), dpi=120, squeeze=False)
    fig.suptitle(f"step {name[:2]}, what each change did: every variant measured on one problem, % of the read "
                 "ceiling of its run (cold L2)", fontsize=11, x=0.01, ha="left")
    colour = lambda variant: ("tab:gray" if variant == "table" else "tab:red" if "shifted" in variant
                              or "realigned" in variant else "tab:orange" if variant == "atomic_last" else "tab:blue")
    for ax, precision in zip(axes[0], precisions):
        labels, y = [], 0
        for problem, got in groups[precision].items():
            for r in got:
                variant = r["tag"][len(problem) + 1:] or "?"
                pct = num(r, "pct_ceiling")
                ax.barh(y, pct, color=colour(variant), height=0.8)
                ax.text(pct + 1, y, f"{pct:.0f} %", va="center", fontsize=6.5)
                labels.append(f"{r['layout']} {dim_text(num(r, 'm'))} x {dim_text(num(r, 'n'))}: {variant}")
                y += 1
            y += 0.6
        positions, k = [], 0
        for problem, got in groups[precision].items():
            positions += [k + i for i in range(len(got))]
            k += len(got) + 0.6
        ax.set_yticks(positions)
        ax.set_yticklabels(labels, fontsize=6.5)
        ax.invert_yaxis()
        ax.set_xlim(0, 115)
        ax.axvline(92, color="black", linestyle="--", linewidth=0.7)
        ax.set_title(f"{precision} (grey: the table's choice; red: realigned loads; orange: one launch)", fontsize=9)
        ax.set_xlabel("% of the read ceiling", fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    revisions = ", ".join(dict.fromkeys(r.get("git_revision", "?") for r in rows))
    footer = provenance(rows, files[0]).rsplit(" · rev ", 1)[0] + f" · revs {revisions}"
    save_figure(plt, fig, [footer], out, top=0.93)


def facts_table(name, files, out):
    data = [(read_rows(f), f) for f in files]
    data = [(rows, f) for rows, f in data if rows]
    head = ["fact"] + [rows[0].get("device", f.stem) for rows, f in data]
    body = [[label] + [rows[0].get(key, "-") for rows, _ in data] for key, label in FACTS[1:]]
    note = "; ".join(f"measured on {provenance(rows, f)}" for rows, f in data)
    pathlib.Path(out).write_text(md_table(head, body) + f"\n\n{note}\n")


MAKERS = {"sweep": sweep_figure, "shapes": shapes_figure, "fig4": fig4_figure, "summary": summary_table,
          "occupancy": occupancy_table, "ladder": ladder_table, "vs": vs_table, "curves": curves_figure, "mesh": mesh_figure,
          "targets": targets_figure, "ranks": ranks_figure, "hybrid": hybrid_table, "gpus": gpus_table,
          "verdict": verdict_table, "experiments": experiments_figure,
          "psweep": psweep_figure, "fig4vs": fig4vs_figure, "ptable": ptable_table, "ranktable": ranktable_table, "scaling": scaling_figure, "matmul": matmul_figure, "formats": formats_figure, "roofline": roofline_figure, "17_roofline": roofline_figure, "roofverdict": roofverdict_table, "climb": climb_figure,
          "00_bandwidth": bandwidth_figure, "00_facts": facts_table, "climb_float": climb_figure,
          "climb_double": climb_figure}


def make(name, data_dir, out_dir):
    """Writes OUT_DIR/NAME.png or NAME.md; returns its path. Raises UnknownFigure, or FileNotFoundError
    when no machine's data for it is committed."""
    kind, pattern, files = resolve(name, data_dir)
    if not files:
        raise FileNotFoundError(f"{name}: no data: nothing matches slides/data/{pattern}")
    out = pathlib.Path(out_dir) / f"{name}.{kind}"
    maker = MAKERS.get(name) or MAKERS[NAME.match(name).group(2)]
    maker(name, files, out)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    if a.list:
        names = a.names or list(SPECIAL) + [f"{p.name[len(p.name.split('_step')[0]) + 5:][:2]}_{k}"
                                            for p in sorted(a.data.glob("*_step[0-9][0-9]_*.csv")) for k in KINDS]
        listing = {}
        for n in dict.fromkeys(names):
            try:
                kind, pattern, files = resolve(n, a.data)
                listing[n] = {"kind": kind, "data": pattern, "files": [f.name for f in files]}
            except UnknownFigure as e:
                listing[n] = {"error": str(e)}
        print(json.dumps(listing, indent=1))
        return 0
    if not a.out:
        ap.error("--out is needed to make figures")
    a.out.mkdir(parents=True, exist_ok=True)
    bad = 0
    for n in a.names:
        try:
            print(f"plot: {make(n, a.data, a.out)}")
        except (UnknownFigure, FileNotFoundError) as e:
            print(f"plot: {e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
