"""The figures' and tables' names: what kind of file each name is (a PNG figure or a Markdown table),
which committed data files under slides/data/ it is drawn from, and the words of a name's qualifier
(06_vs_05_12_float: steps 05 and 12, float). Needs no matplotlib: the deck check and quote.py use it."""
import pathlib
import re


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


SHAPE_ORDER = {"tall": 0, "square": 1, "wide": 2}


PRECISION_ORDER = {"float": 0, "double": 1}


def qualifier_tokens(name):
    m = NAME.match(name)
    q = (m.group(3) or "") if m else ""
    tokens = [t for t in q.split("_") if t]
    return ([t for t in tokens if t.isdigit()], [t for t in tokens if t in PRECISION_ORDER],
            [t for t in tokens if t in SHAPE_ORDER])
