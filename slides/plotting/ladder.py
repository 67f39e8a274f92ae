"""Steps side by side: the ladder (every step on the same problems, one file a problem) as a step's
table, a step beside others, and the whole climb; figure 4 of a step beside other steps' fastest."""
import pathlib
import re

from .common import (footprint_text, md_table, num, occupancy_pct, pct1, plain_log_axis, provenance, pyplot,
                     read_rows, save_figure, sig)
from .names import PRECISION_ORDER, SHAPE_ORDER, qualifier_tokens


def cublas_ratio(rows, r):
    """cuBLAS time / this row's time on the same problem of one ladder table (above 1: faster), from
    the medians, not from the 3-decimal ratio column."""
    ref = [c for c in rows if c.get("step") == "12"]
    if ref and num(r, "median_ms") > 0:
        return num(ref[0], "median_ms") / num(r, "median_ms")
    return num(r, "ratio_to_cublas")


def short_launch(r):
    return (r.get("launch") or "").split(";")[0].split(" (")[0]


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
