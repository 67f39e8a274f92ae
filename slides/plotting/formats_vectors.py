"""Steps 15 to 17: each low-precision format per kernel (15); several vectors on the roofline and
step 16's speed targets (16); the same runs' staged and tensor-core kernels on the roofline (17)."""
import math
import pathlib
import re

from quote import chosen_beside_cublas, chosen_over_fastest

from .common import (each_file, md_table, num, pct1, plain_log_axis, power_text, provenance, pyplot, read_rows,
                     save_figure, sig)


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
    for got, path in each_file(files):
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


def roofverdict_table(name, files, out):
    """Step 16's speed targets, per machine and precision, from the chooser's pick and cuBLAS on the
    same problem and k: (1) k <= 64 and A of 256 MiB or more: at least 85 % of the roofline (the
    lower of the memory roof and the compute roof of the units the kernel uses); (2) odd shapes
    (the _odd file), k <= 64: geometric mean at least 1.5x cuBLAS; (3) every problem and k: at
    least 0.95x cuBLAS; (4) every problem, the held-out ones drawn from a seed (the _heldout_SEED
    file) with them: the pick within 5 % of the fastest of the lab's kernels. Rows that failed
    verification count as missing the targets."""
    by_machine = {}
    for path in files:
        rows = read_rows(path)
        odd = path.stem.endswith("_odd")
        for r in rows:
            r["_odd"] = odd
        if rows:
            by_machine.setdefault(rows[0]["_machine"], ([], [], []))
            by_machine[rows[0]["_machine"]][0].extend(chosen_beside_cublas(rows))  # pairs within one file
            by_machine[rows[0]["_machine"]][1].append(provenance(rows, path))
            by_machine[rows[0]["_machine"]][2].extend(chosen_over_fastest(rows))
    parts = []
    for machine, (pairs, footers, picks) in sorted(by_machine.items()):
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
            mine_picks = [(x, c) for x, c in picks if c.get("precision") == precision]
            if mine_picks:
                x, c = max(mine_picks, key=lambda t: t[0])
                over = len([1 for y, _ in mine_picks if y > 1.05])
                lines.append([precision, "every problem and k: the pick within 5 % of the lab's fastest kernel",
                              f"worst {sig(x)}×, {over} of {len(mine_picks)} over 1.05×", where(c),
                              "met" if x <= 1.05 else "missed"])
        parts.append(f"measured on {'; '.join(dict.fromkeys(footers))}\n\n" +
                     md_table(["precision", "target", "measured", "where", "verdict"], lines))
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")
