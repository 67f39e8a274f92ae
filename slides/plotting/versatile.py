"""Step 11's benchmark (step11_bench): its curves, its mesh, its target shapes and the verdict on each
target; the A/B runs of its experiments file.

Its CSV: suite, device, sms, date, git_revision, precision, layout, m, n, bytes, ceiling_gbps,
step11_gbps, cublas_gbps, speedup (cuBLAS time / step 11 time), step11_config, ..."""
import math
import pathlib

from .common import (each_file, footprint_text, md_table, num, plain_log_axis, provenance, pyplot, read_rows,
                     save_figure, sig)


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
    for rows, path in each_file(files):
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
