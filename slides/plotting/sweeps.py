"""Each step's own runs (steps 00 to 10 and 12): step 00's bandwidth and facts; the sweep, the shapes
and Sørensen's figure 4 of a step's variants; the tables at the largest square; step 06's P sweep and
step 07's matrix multiplication."""
import pathlib
import re

from .common import (each_file, first_row_meta, finish, footprint_text, legend_above, machine_panels, md_table,
                     new_figure, num, occupancy_pct, pct1, plain_log_axis, power_text, provenance, pyplot, read_rows,
                     series, sig)


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


FACTS = [("device", "device"), ("compute_capability", "compute capability"), ("sms", "SMs"),
         ("global_memory", "memory"), ("l2_cache", "L2 cache"), ("memory_clock_mhz", "memory clock, MHz"),
         ("bus_width_bits", "bus width, bits"), ("max_threads_per_sm", "threads per SM, at most"),
         ("max_blocks_per_sm", "blocks per SM, at most"), ("registers_per_sm", "registers per SM"),
         ("shared_memory_per_sm", "shared memory per SM"), ("cuda_runtime", "CUDA runtime"),
         ("cuda_driver", "CUDA driver"), ("datasheet_gbps", "datasheet GB/s"),
         ("read_ceiling_gbps", "read ceiling GB/s (measured)"),
         ("read_ceiling_pct_datasheet", "read ceiling, % of datasheet")]


def facts_table(name, files, out):
    data = list(each_file(files))
    head = ["fact"] + [rows[0].get("device", f.stem) for rows, f in data]
    body = [[label] + [rows[0].get(key, "-") for rows, _ in data] for key, label in FACTS[1:]]
    note = "; ".join(f"measured on {provenance(rows, f)}" for rows, f in data)
    pathlib.Path(out).write_text(md_table(head, body) + f"\n\n{note}\n")


def largest_square(rows):
    square = [r for r in rows if r.get("m") == r.get("n")] or rows
    top = max(num(r, "bytes") for r in square)
    return [r for r in square if num(r, "bytes") == top]


def largest_square_table(files, out, caption, head, cells):
    """One table a file: its rows at the largest square, under CAPTION(first of them, all rows, path)."""
    parts = []
    for rows, path in each_file(files):
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
    for rows, path in each_file(files):
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


def ptable_table(name, files, out):
    """The P sweep as a table: GB/s per shape and P, the best of each shape in bold."""
    parts = []
    for rows, path in each_file(files):
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


def matmul_figure(name, files, out):
    """Step 07 (MACHINE_step07_matmul.csv, written by collect_data.sh): GFLOP/s and CGMA against size
    for mmult1, mmult2 at each TILE and cuBLAS gemm, beside the GEMV ladder's best GFLOP/s (cuBLAS
    sgemv at 256 MiB): reuse lifts a matmul off the memory roof, and GEMV has none to lift it."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5.2), dpi=120)
    footers = []
    markers = "osD^v<>p"
    for rows, path in each_file(files):
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
