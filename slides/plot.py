#!/usr/bin/python3
"""The one plot script of the slides: every figure and every table of measured numbers in a deck
is drawn from the committed CSV files in slides/data/, never typed by hand. This file names which
function draws each name (MAKERS); the functions live in slides/plotting/, one file a family of decks:

  plotting/names.py            a name's kind (figure or table), its data files and its qualifier's words
  plotting/common.py           what every figure and table shares: numbers, data files, frames, footers
  plotting/sweeps.py           each step's own runs: steps 00 to 10 and 12
  plotting/ladder.py           steps side by side: the ladder's tables, the climb, figure 4 beside others
  plotting/versatile.py        step 11's benchmark
  plotting/mpi.py              steps 13 and 14
  plotting/formats_vectors.py  steps 15 to 17

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
and the deck check work with any python3. quote.py turns off the commit dates of undated data
(plotting/common.py's GIT_DATES), so that a README's table is the same in every clone.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from plotting import common, formats_vectors, ladder, mpi, sweeps, versatile  # noqa: E402,F401: common for quote.py
from plotting.names import KINDS, NAME, SPECIAL, UnknownFigure, resolve  # noqa: E402,F401: build.py's and quote.py's

# What draws each kind of name (and each special name), by family of decks.
MAKERS = {
    # each step's own runs
    "00_bandwidth": sweeps.bandwidth_figure, "00_facts": sweeps.facts_table, "sweep": sweeps.sweep_figure,
    "shapes": sweeps.shapes_figure, "fig4": sweeps.fig4_figure, "summary": sweeps.summary_table,
    "occupancy": sweeps.occupancy_table, "psweep": sweeps.psweep_figure, "ptable": sweeps.ptable_table,
    "matmul": sweeps.matmul_figure,
    # steps side by side
    "ladder": ladder.ladder_table, "vs": ladder.vs_table, "fig4vs": ladder.fig4vs_figure,
    "climb": ladder.climb_figure, "climb_float": ladder.climb_figure, "climb_double": ladder.climb_figure,
    # step 11's benchmark
    "curves": versatile.curves_figure, "mesh": versatile.mesh_figure, "targets": versatile.targets_figure,
    "verdict": versatile.verdict_table, "experiments": versatile.experiments_figure,
    # MPI: steps 13 and 14
    "ranks": mpi.ranks_figure, "ranktable": mpi.ranktable_table, "hybrid": mpi.hybrid_table,
    "scaling": mpi.scaling_figure, "gpus": mpi.gpus_table,
    # steps 15 to 17
    "formats": formats_vectors.formats_figure, "roofline": formats_vectors.roofline_figure,
    "17_roofline": formats_vectors.roofline_figure, "roofverdict": formats_vectors.roofverdict_table,
}


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
