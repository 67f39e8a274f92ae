#!/usr/bin/env python3
"""Measured numbers quoted in prose, tied to the committed data.

A README or a deck never types a measured number by hand. It writes the number followed by the
expression that computes it from slides/data/, in an HTML comment (GitHub and Marp show nothing of
the comment):

    step 04 reaches 543<!-- = ladder("float_square", "04").gbps --> GB/s

A README's table of measured numbers is one of plot.py's tables, between two comments:

    <!-- begin table: 08_ladder_float -->
    ... (written by `quote.py update`) ...
    <!-- end table -->

`quote.py check` fails when a quoted number or such a table is not what its expression gives from the committed
data (the slides check runs it); `quote.py update` rewrites every quoted number from the data; the
slides build substitutes the numbers again and drops the comments, so a deck always shows the data.

The expressions are Python, evaluated with these names only:

    ladder(problem, step, variant=None, machine="h100")   the one row of that step (and variant: a
            prefix of its name) in slides/data/ladder/MACHINE_ladder_PROBLEM.csv, PROBLEM one of
            float_square, float_tall, float_wide, double_square, double_tall, double_wide
    row(pattern, **where)     the one row of the CSV file(s) matching slides/data/PATTERN whose
                              columns equal the given values (compared as text, or as numbers)
    rows(pattern, **where)    every such row, a list
    best(rows, column)        the row with the largest value of the column
    variant(pattern, prefix, **where)   the one row of row(pattern, **where)'s rows whose variant
                              begins with PREFIX ("versatile" matches "versatile (tuned)" and
                              "versatile (heuristic)": a quote survives a re-measurement)
    per_ns(row)               elements of A a nanosecond: m·n over the median time
    wins(step, other, family=None, machine="h100")      how many problems step STEP ran faster than
            step OTHER, each step's fastest verified variant against the other's, over the problems
            of MACHINE_stepNN_fig4.csv and MACHINE_stepNN_shapes.csv both steps measured; family
            "tall" (m > n), "square" or "wide" (m < n) counts those only
    problems(step, other, family=None, machine="h100")  how many problems that is
    ncu(file, metric)         a metric of slides/data/ncu/FILE, as Nsight Compute printed it
    sig(x, digits=3)          x to that many significant figures
    pct(x)                    x with one decimal (a percentage)
    fixed(x, digits)          x with that many decimals
    whole(x)                  x rounded to an integer
    ratio(a, b)               a / b to three significant figures
    mib(bytes)                bytes in MiB, whole; gib(bytes) in GiB

A row's columns read as attributes (`.gbps`, `.pct_ceiling`); numbers print with three significant
figures, and columns named pct_* with one decimal, unless a function above says otherwise.
"""
import csv
import math
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data"
# A number (or a git revision), then the comment with its expression: one token, which may carry a
# sign and thousands separators.
QUOTE = re.compile(r"(?<![\w.,])(?P<value>[-−]?[0-9a-f][0-9a-f,]*(?:\.[0-9]+)?)<!--\s*=\s*(?P<expr>.*?)\s*-->")
TABLE = re.compile(r"(?P<open><!--\s*begin table:\s*(?P<name>\S+)\s*-->\n)(?P<body>.*?)(?P<close><!--\s*end table\s*-->)",
                   re.S)
PROBLEMS = ("float_square", "float_tall", "float_wide", "double_square", "double_tall", "double_wide")


class QuoteError(Exception):
    pass


def sig_text(x, digits=3):
    """x to `digits` significant figures, in plain notation (2875.5 -> 2880, 0.0123456 -> 0.0123)."""
    x = float(x)
    if not math.isfinite(x):
        raise QuoteError(f"not a number: {x}")
    if x == 0:
        return "0"
    rounded = float(f"{x:.{digits - 1}e}")
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    return f"{rounded:.{decimals}f}"


class Num(float):
    """A measured number: prints with three significant figures, or as its format says."""

    def __new__(cls, value, text=None):
        n = super().__new__(cls, value)
        n._text = text
        return n

    def __str__(self):
        return self._text if self._text is not None else sig_text(self)


def _arithmetic(op):
    def f(self, other):
        return Num(getattr(float, op)(self, other))
    return f


for _op in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__"):
    setattr(Num, _op, _arithmetic(_op))
Num.__neg__ = lambda self: Num(-float(self))
Num.__abs__ = lambda self: Num(abs(float(self)))


class Row(dict):
    """One CSV row; numeric columns read as Num, pct_* columns with one decimal."""

    def __getattr__(self, key):
        if key not in self:
            raise QuoteError(f"no column {key!r} in {self.get('_file', '?')} (has: {', '.join(k for k in self if not k.startswith('_'))})")
        v = self[key]
        try:
            x = float(v)
        except (TypeError, ValueError):
            return v
        if re.fullmatch(r"-?[0-9]+", v.strip()):  # a count (registers, blocks, rows): as it is
            return Num(x, v.strip())
        if key.startswith("pct_") or key == "read_ceiling_pct_datasheet":
            return Num(x, f"{x:.1f}")
        return Num(x)


def read(pattern):
    files = sorted(DATA.glob(pattern))
    if not files:
        raise QuoteError(f"no data file matches slides/data/{pattern}")
    out = []
    for path in files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                r = Row(r)
                r["_file"] = str(path.relative_to(DATA))
                out.append(r)
    return out


def same(cell, want):
    if str(cell) == str(want):
        return True
    try:
        return float(cell) == float(want)
    except (TypeError, ValueError):
        return False


def rows(pattern, **where):
    return [r for r in read(pattern) if all(same(r.get(k), v) for k, v in where.items())]


def row(pattern, **where):
    got = rows(pattern, **where)
    if len(got) != 1:
        raise QuoteError(f"{len(got)} rows of slides/data/{pattern} have {where}; exactly one must")
    return got[0]


def ladder(problem, step, variant=None, machine="h100"):
    if problem not in PROBLEMS:
        raise QuoteError(f"ladder problem {problem!r}: one of {', '.join(PROBLEMS)}")
    got = [r for r in rows(f"ladder/{machine}_ladder_{problem}.csv", step=step)
           if variant is None or r["variant"].startswith(variant)]
    if len(got) != 1:
        names = [r["variant"] for r in rows(f"ladder/{machine}_ladder_{problem}.csv", step=step)]
        raise QuoteError(f"ladder({problem!r}, {step!r}, {variant!r}): {len(got)} rows match; "
                         f"step {step}'s variants there: {names}")
    return got[0]


def variant(pattern, prefix, **where):
    got = [r for r in rows(pattern, **where) if r.get("variant", "").startswith(prefix)]
    if len(got) != 1:
        raise QuoteError(f"{len(got)} rows of slides/data/{pattern} have {where} and a variant starting "
                         f"{prefix!r}; exactly one must")
    return got[0]


def per_ns(r):
    return Num(float(r["m"]) * float(r["n"]) / (float(r["median_ms"]) * 1e6))


def ncu(name, metric):
    """A metric of an Nsight Compute report in slides/data/ncu/NAME, as ncu printed it."""
    path = DATA / "ncu" / name
    if not path.is_file():
        raise QuoteError(f"no file slides/data/ncu/{name}")
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts and parts[0] == metric:
            return Num(float(parts[-1].replace(",", "")), parts[-1])
    raise QuoteError(f"no metric {metric} in slides/data/ncu/{name}")


def best(candidates, column):
    return max(candidates, key=lambda r: float(r[column]))


def family(m, n):
    m, n = float(m), float(n)
    return "tall" if m > n else "wide" if m < n else "square"


def fastest_by_problem(step, machine):
    """{(m, n): the fastest verified row} of step STEP's figure-4 and shapes files on MACHINE."""
    out = {}
    for kind in ("fig4", "shapes"):
        path = DATA / f"{machine}_step{step}_{kind}.csv"
        if not path.is_file():
            continue
        for r in read(path.name):
            if r.get("verified", "yes") != "yes":
                continue
            key = (int(r["m"]), int(r["n"]))
            if key not in out or float(r["gbps"]) > float(out[key]["gbps"]):
                out[key] = r
    if not out:
        raise QuoteError(f"no slides/data/{machine}_step{step}_fig4.csv or _shapes.csv with verified rows")
    return out


def contest(step, other, family_=None, machine="h100"):
    """[(step's fastest row, other's fastest row)] on each problem both measured (of the family)."""
    if family_ not in (None, "tall", "square", "wide"):
        raise QuoteError(f"family {family_!r}: tall, square or wide")
    mine, theirs = fastest_by_problem(step, machine), fastest_by_problem(other, machine)
    return [(mine[k], theirs[k]) for k in sorted(mine) if k in theirs and family_ in (None, family(*k))]


def wins(step, other, family=None, machine="h100"):
    n = sum(float(a["gbps"]) > float(b["gbps"]) for a, b in contest(step, other, family, machine))
    return Num(n, str(n))


def problems(step, other, family=None, machine="h100"):
    n = len(contest(step, other, family, machine))
    return Num(n, str(n))


def beside(pattern, column, value, **where):
    """Each row of `where` with the row of the same problem (suite, precision, layout, m, n) whose
    `column` is `value`: two runs in one file, side by side."""
    key = lambda r: (r.get("suite"), r.get("precision"), r.get("layout"), r.get("m"), r.get("n"))
    other = {key(r): r for r in rows(pattern, **{column: value})}
    return [(r, other[key(r)]) for r in rows(pattern, **where) if key(r) in other]


def problem_key(r):
    """Step 16's and 17's problem: (layout, precision, m, n, k)."""
    return r["layout"], r["precision"], r["m"], r["n"], r["k"]


def chosen_beside_cublas(rows, variant=None):
    """Step 16's rows in pairs: each problem's (layout, precision, m, n, k) pick of the chooser (or
    the row of the named variant, chosen or not), with cuBLAS's row on the same problem. Rows from
    one file (one run)."""
    cublas = {problem_key(r): r for r in rows if r.get("variant", "").startswith("cublas")}
    if variant is None:
        picked = [r for r in rows if r.get("chosen") == "yes"]
    else:
        picked = [r for r in rows if r.get("variant", "").replace(" (chosen)", "") == variant]
    return [(r, cublas[problem_key(r)]) for r in picked if problem_key(r) in cublas]


def chosen_over_fastest(rows):
    """Step 17's chooser against the lab's own kernels: for each problem (layout, precision, m, n, k)
    of one file (one run), (the chooser's pick's time over the fastest lab kernel's, the pick's row).
    cuBLAS is not one of the lab's kernels; a kernel that failed verification is not the fastest."""
    problems = {}
    for r in rows:
        if not r.get("variant", "").startswith("cublas") and r.get("verified") in ("yes", "not checked"):
            problems.setdefault(problem_key(r), []).append(r)
    out = []
    for kernels in problems.values():
        for r in kernels:
            if r.get("chosen") == "yes":
                out.append((float(r["median_ms"]) / min(float(x["median_ms"]) for x in kernels), r))
    return out


def chosen_vs_cublas(pattern, precision, k_from=1, k_to=256, variant=None):
    """Step 16's speed-ups: for each problem of the file in `precision` with k in [k_from, k_to],
    cuBLAS's time over the chooser's pick's (or the named variant's)."""
    mine = [r for r in read(pattern) if r["precision"] == precision and k_from <= int(r["k"]) <= k_to]
    got = [float(cub["median_ms"]) / float(r["median_ms"]) for r, cub in chosen_beside_cublas(mine, variant)]
    if not got:
        raise QuoteError(f"no {variant or 'chosen'} rows with cuBLAS beside them in slides/data/{pattern} ({precision})")
    return got


def geomean(xs):
    xs = list(xs)
    return Num(math.exp(sum(math.log(x) for x in xs) / len(xs)))


NAMES = {
    "ladder": ladder, "row": row, "rows": rows, "best": best, "ncu": ncu, "wins": wins, "problems": problems,
    "chosen_vs_cublas": chosen_vs_cublas, "geomean": geomean, "beside": beside, "variant": variant, "per_ns": per_ns,
    "picks_over_fastest": lambda pattern, precision: [x for x, r in chosen_over_fastest(read(pattern))
                                                      if r["precision"] == precision],
    "sig": lambda x, digits=3: Num(x, sig_text(x, digits)),
    "pct": lambda x: Num(x, f"{float(x):.1f}"),
    "fixed": lambda x, digits: Num(x, f"{float(x):.{digits}f}"),
    "whole": lambda x: Num(x, f"{float(x):.0f}"),
    "ratio": lambda a, b: Num(float(a) / float(b)),
    "mib": lambda b: Num(float(b) / 2 ** 20, f"{float(b) / 2 ** 20:.0f}"),
    "gib": lambda b: Num(float(b) / 2 ** 30, f"{float(b) / 2 ** 30:.0f}"),
    "min": min, "max": max, "abs": abs, "len": len, "sum": sum, "float": float, "int": int,
}


def evaluate(expr):
    try:
        v = eval(expr, {"__builtins__": {}, **NAMES})  # noqa: S307: the lab's own files, no input
    except QuoteError:
        raise
    except Exception as e:  # a typo in an expression: name it
        raise QuoteError(f"{expr}: {type(e).__name__}: {e}") from e
    return str(v) if not isinstance(v, float) or isinstance(v, Num) else sig_text(v)


def substitute(text, strip=False):
    """(text with every quoted number recomputed, [(line, expr, old, new) that differed], [errors]).
    strip: drop the comments too (the rendered deck)."""
    changed, errors = [], []

    def one(m):
        line = text.count("\n", 0, m.start()) + 1
        try:
            new = evaluate(m.group("expr"))
        except QuoteError as e:
            errors.append(f"line {line}: {e}")
            return m.group(0)
        if new != m.group("value"):
            changed.append((line, m.group("expr"), m.group("value"), new))
        return new if strip else f"{new}<!-- = {m.group('expr')} -->"

    text = QUOTE.sub(one, text)

    def table(m):
        line = text.count("\n", 0, m.start()) + 1
        try:
            new = made_table(m.group("name")).rstrip("\n") + "\n"
        except Exception as e:  # an unknown table, or its data missing
            errors.append(f"line {line}: table {m.group('name')}: {e}")
            return m.group(0)
        if new != m.group("body"):
            changed.append((line, f"table {m.group('name')}", "(the committed table)", "(another table)"))
        return m.group("open") + new + m.group("close")

    return TABLE.sub(table, text), changed, errors


def made_table(name):
    """plot.py's Markdown table NAME, drawn from slides/data/ (tables need no matplotlib)."""
    import importlib.util
    import tempfile
    spec = importlib.util.spec_from_file_location("plot", HERE / "plot.py")
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    plot.common.GIT_DATES = False  # the same text in every clone, shallow or not
    kind, _, _ = plot.resolve(name, DATA)
    if kind != "md":
        raise QuoteError(f"{name} is a figure, not a table")
    with tempfile.TemporaryDirectory() as d:
        return plot.make(name, DATA, d).read_text()


def documents(root):
    root = pathlib.Path(root)
    return ([root / "README.md"] + sorted((root / "steps").glob("*/README.md")) +
            sorted((root / "slides").glob("*.md")) + sorted((root / "slides" / "data").glob("*/NOTES.md")))


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("check", "update", "list"))
    ap.add_argument("--root", type=pathlib.Path, default=HERE.parent)
    a = ap.parse_args(argv)
    bad = 0
    for doc in documents(a.root):
        text = doc.read_text()
        new, changed, errors = substitute(text)
        rel = doc.relative_to(a.root.resolve()) if doc.is_absolute() else doc
        for e in errors:
            print(f"{rel}:{e}", file=sys.stderr)
            bad += 1
        if a.action == "list":
            for m in QUOTE.finditer(text):
                print(f"{rel}: {m.group('value')} = {m.group('expr')}")
        for line, expr, old, value in changed:
            if a.action == "check":
                print(f"{rel}:{line}: quotes {old}, the data says {value}: {expr}", file=sys.stderr)
                bad += 1
            elif a.action == "update":
                print(f"{rel}:{line}: {old} -> {value}")
        if a.action == "update" and changed and not errors:
            doc.write_text(new)
    if a.action == "check" and not bad:
        n = sum(len(QUOTE.findall(d.read_text())) for d in documents(a.root))
        print(f"quote: {n} quoted numbers agree with slides/data/")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
