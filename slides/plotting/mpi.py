"""MPI: step 13 on the CPU (time against ranks, the hybrid of ranks and threads) and step 14 on GPUs
(one GPU against several)."""
import pathlib

from .common import each_file, md_table, num, pct1, provenance, pyplot, save_figure, sig


def ranks_figure(name, files, out):
    """Step 13: time per product split into compute and communication, and speed-up, against ranks;
    a row of two panels per machine, each titled by its own data (13_ranks_h200x2: that machine only)."""
    plt = pyplot()
    sets = list(each_file(files))
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


def ranktable_table(name, files, out):
    """Step 13 against ranks, per machine: each mode's total, compute and communication (ms per
    product, the slowest rank's) and its speed-up over the fewest ranks."""
    parts = []
    for rows, path in each_file(files):
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


def hybrid_table(name, files, out):
    """Step 13's hybrid: one rank with threads, both modes."""
    parts = []
    for rows, path in each_file(files):
        r0 = rows[0]
        parts.append(f"{r0['m']} x {r0['n']} {r0.get('precision', '')}, median of {r0.get('reps', '?')}; measured on "
                     f"{provenance(rows, path)}\n\n" +
                     md_table(["mode", "ranks x threads", "ms per product", "compute ms", "communication ms",
                               "GB/s"],
                              [[r["variant"], f"{r['ranks']} x {r['threads_per_rank']}", sig(num(r, 'median_ms')),
                                sig(num(r, 'compute_ms')), sig(num(r, 'comm_ms')), sig(num(r, 'gbps'))]
                               for r in rows]))
    pathlib.Path(out).write_text("\n\n".join(parts) + "\n")


def scaling_figure(name, files, out):
    """Step 14: per problem and kernel, one GPU beside two: the slowest rank's compute and communication
    per product (stacked), with the speed-up over one GPU above the pair."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(12, 4.9), dpi=120)
    footers = []
    for rows, path in each_file(files):
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


def gpus_table(name, files, out):
    """Step 14: per problem and kernel, 1 GPU against P GPUs: GB/s, per-GPU GB/s, communication share."""
    parts = []
    for rows, path in each_file(files):
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
