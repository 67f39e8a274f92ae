#!/usr/bin/env python3
"""Builds the slides: every deck slides/NN_name.md, with its code excerpts taken from the source
files and its figures drawn from slides/data/ by plot.py, rendered by Marp to one self-contained
HTML file per deck (figures inlined), with no network.

  build.py --root SRC --out DIR [--plot-python PY]          the `slides` target
  build.py --root SRC --out DIR --check                      excerpts and figures exist (no Marp, no matplotlib)
  build.py --root SRC --out DIR --test                       as the target, but exit 77 (skipped) without Marp
  build.py --root SRC --out DIR --test --fit                 and every slide fits its frame in headless
                                                             Chromium (fit.js; exit 77 without Chromium)

A deck names what it shows on lines of their own, as HTML comments, so Marp's preview shows them as
nothing and this script replaces them:

  <!-- excerpt: solutions/01_cpu_loop/gemv_cpu_loop.cpp#loop -->
        the lines between `// BEGIN EXCERPT loop` and `// END EXCERPT loop` in that file
  <!-- excerpt: solutions/02_cpu_openmp/gemv_cpu_openmp.cpp#solution:the same loop -->
        the BEGIN SOLUTION region whose hint starts with "the same loop"
  <!-- figure: 01_sweep -->            plot.py's figure, inlined; the build fails without its data
  <!-- figure-if-data: 03_sweep -->    the same where its data is committed; until then the slide
                                       that holds it is left out of the rendered deck (the check lists it)
  <!-- table: 01_summary -->  <!-- table-if-data: 03_occupancy -->   plot.py's tables, likewise

Measured numbers in prose are quoted from the data: `543<!-- = ladder("float_square", "04").gbps -->`
(quote.py): the check fails when a quoted number disagrees with the data, and the rendered deck
shows the number computed again. The check also fails on a placeholder ("not measured yet") in a
deck or a README: a deck shows data or says nothing.

Two editions from the same decks: the instructor's in DIR/html (everything, and the answers to each
deck's questions), the students' in DIR/html/student (solution regions shown as the TODO line of the
exercise, and no slide or line marked `<!-- instructor -->`). A line ending in `<!-- student -->`
is the students' only.

The check also fails on a students' edition that answers its deck's own questions: each numbered
answer on the answers slide (instructor-only, headed "Answers") carries its key phrase in **bold**,
and no such phrase may appear in the students' edition; on an excerpt that stops inside a block it
opened without saying so (its region's last line `// ...`, or "excerpt" / "(continues)" on its
slide); and on the retired `tiny` class (code and tables are at least 14 px, `dense`).

Marp comes from slides/node_modules (npm ci in slides/, pinned by package-lock.json).
"""
import argparse
import base64
import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DIRECTIVE = re.compile(r"^\s*<!--\s*(excerpt|figure|figure-if-data|table|table-if-data):\s*(\S.*?)\s*-->\s*$")
BEGIN_EXCERPT = re.compile(r"^\s*//\s*BEGIN EXCERPT\s+(\S+)\s*$")
END_EXCERPT = re.compile(r"^\s*//\s*END EXCERPT\s+(\S+)\s*$")
BEGIN_SOLUTION = re.compile(r"^\s*//\s*BEGIN SOLUTION\b\s*(.*?)\s*$")
END_SOLUTION = re.compile(r"^\s*//\s*END SOLUTION\b")
SKIPPED = 77



def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plot = load("plot")
quote = load("quote")
# What a reader must never see: a deck or README (the top-level one included) that promises data
# instead of showing it, in either word order ("not measured yet", "not yet measured on a GPU").
PLACEHOLDER = re.compile(r"not measured (yet|on the)|not yet (measured|committed)|not committed yet|measured yet:|"
                         r"\bTBD\b", re.I)


class DeckError(Exception):
    pass


def is_marker(line):
    return any(p.match(line) for p in (BEGIN_EXCERPT, END_EXCERPT, BEGIN_SOLUTION, END_SOLUTION))


def dedent(lines):
    """Removes the indent common to the code lines; preprocessor lines (#pragma) stay at column 0."""
    body = [ln.rstrip() for ln in lines]
    while body and not body[0]:
        body.pop(0)
    while body and not body[-1]:
        body.pop()
    indent = min((len(ln) - len(ln.lstrip()) for ln in body if ln.strip() and not ln.startswith("#")), default=0)
    return [ln[min(indent, len(ln) - len(ln.lstrip())):] for ln in body]


def without_solutions(lines):
    """The lines with every BEGIN/END SOLUTION region replaced by the `// TODO: hint` line a student
    sees in exercises/ (cmake/generate_exercises.py writes the same stub)."""
    out, skipping = [], False
    for ln in lines:
        m = BEGIN_SOLUTION.match(ln)
        if m and not skipping:
            indent = ln[:len(ln) - len(ln.lstrip())]
            out.append(f"{indent}// TODO: {m.group(1) or 'your code here'}")
            skipping = True
        elif skipping and END_SOLUTION.match(ln):
            skipping = False
        elif not skipping:
            out.append(ln)
    return out


def excerpt(root, target, student=False):
    """The lines of one named region, markers removed; DeckError naming the file and region. For the
    students' edition, what a solution region holds is left out: its TODO line stands in its place."""
    if "#" not in target:
        raise DeckError(f"excerpt {target!r}: name a region, PATH#NAME or PATH#solution:HINT")
    rel, region = target.split("#", 1)
    path = root / rel
    if not path.is_file():
        raise DeckError(f"excerpt {target!r}: no file {rel}")
    lines = path.read_text().splitlines()
    if region.startswith("solution:"):
        hint = region[len("solution:"):]
        found = [i for i, ln in enumerate(lines)
                 if (m := BEGIN_SOLUTION.match(ln)) and m.group(1).startswith(hint)]
        if len(found) != 1:
            raise DeckError(f"excerpt {target!r}: {len(found)} BEGIN SOLUTION regions in {rel} have a hint "
                            f"starting {hint!r}; exactly one must")
        end = next((j for j in range(found[0] + 1, len(lines)) if END_SOLUTION.match(lines[j])), None)
        if end is None:
            raise DeckError(f"excerpt {target!r}: the region in {rel} is never closed")
        body = lines[found[0]:end + 1] if student else lines[found[0] + 1:end]
    else:
        starts = [i for i, ln in enumerate(lines) if (m := BEGIN_EXCERPT.match(ln)) and m.group(1) == region]
        ends = [i for i, ln in enumerate(lines) if (m := END_EXCERPT.match(ln)) and m.group(1) == region]
        if not starts:
            raise DeckError(f"excerpt {target!r}: {rel} has no `// BEGIN EXCERPT {region}`")
        if len(starts) > 1 or len(ends) != 1 or ends[0] < starts[0]:
            raise DeckError(f"excerpt {target!r}: {rel} needs exactly one BEGIN EXCERPT {region} and one "
                            f"END EXCERPT {region} after it")
        body = lines[starts[0] + 1:ends[0]]
    if student:
        body = without_solutions(body)
    body = dedent([ln for ln in body if not is_marker(ln)])
    if not body:
        raise DeckError(f"excerpt {target!r}: the region is empty")
    return rel, region, body


CONTINUES = re.compile(r"\bexcerpt\b|\(continues\)", re.I)


def open_braces(body):
    """How many braces the excerpt opens and leaves open: the depth it ends at above the lowest
    depth it reaches (an excerpt may start inside a function; it must not stop inside a block it
    opened). Comments, strings and character literals are not counted."""
    depth = lowest = 0
    for ln in body:
        code = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', "", ln).split("//")[0]
        for ch in code:
            if ch in "{}":
                depth += 1 if ch == "{" else -1
                lowest = min(lowest, depth)
    return depth - lowest


def stops_unsaid(body, slide_text):
    """The excerpt stops inside a block it opened and nothing says so: neither does its region end
    with a line `// ...` nor does its slide say "excerpt" or "(continues)" (a projector shows the
    slide, not the file: a student must not take half a function for the whole)."""
    if not open_braces(body):
        return False
    if body and body[-1].strip().startswith("// ..."):
        return False
    return not CONTINUES.search(slide_text)


def decks(root):
    """The step decks, slides/NN_name.md, and the whole ladder's, slides/ladder.md."""
    return sorted((root / "slides").glob("[0-9][0-9]_*.md")) + sorted((root / "slides").glob("ladder.md"))


pending = []  # figures and tables whose data is not committed yet: their slides are left out


def check(root):
    """[problems], {deck: [(directive, arg)]}: every excerpt region exists, every figure and table
    is one plot.py knows, and the ones a deck requires have data."""
    problems, found = [], {}
    data = root / "slides" / "data"
    pending.clear()
    for deck in decks(root):
        text = deck.read_text()
        if not re.match(r"^---\s*\n(.*\n)*?marp:\s*true\s*\n", text):
            problems.append(f"{deck.name}: the front matter must say `marp: true`")
        uses = []
        lines = text.splitlines()
        slide_of = slide_texts(lines)
        for number, line in enumerate(lines, start=1):
            if re.match(r"^\s*<!--\s*_?class:.*\btiny\b", line):
                problems.append(f"{deck.name}:{number}: the `tiny` class is gone (12.5 px does not read on a "
                                f"projector): shorten the excerpt or table, or use `dense` (14 px, the smallest)")
            m = DIRECTIVE.match(line)
            if not m:
                if re.match(r"^\s*<!--\s*(excerpt|figure|table)", line):
                    problems.append(f"{deck.name}:{number}: malformed directive: {line.strip()}")
                continue
            kind, arg = m.groups()
            uses.append((kind, arg))
            try:
                if kind == "excerpt":
                    for student in (False, True):
                        if stops_unsaid(excerpt(root, arg, student)[2], slide_of[number - 1]):
                            problems.append(f"{deck.name}:{number}: excerpt {arg} stops inside a block it opened "
                                            f"and does not say so: end its region with a line `// ...`, or say "
                                            f"\"(continues)\" on the slide")
                            break
                else:
                    want = "png" if kind.startswith("figure") else "md"
                    got, pattern, files = plot.resolve(arg, data)
                    if got != want:
                        problems.append(f"{deck.name}:{number}: {arg} is a {'figure' if got == 'png' else 'table'}, "
                                        f"not a {kind.split('-')[0]}")
                    elif not files and not kind.endswith("-if-data"):
                        problems.append(f"{deck.name}:{number}: {kind} {arg} has no data: nothing matches "
                                        f"slides/data/{pattern}")
                    elif not files:
                        pending.append(f"{deck.name}:{number}: {arg} (slides/data/{pattern}): its slide is left "
                                       f"out until the data is committed")
            except (DeckError, plot.UnknownFigure) as e:
                problems.append(f"{deck.name}:{number}: {e}")
        found[deck] = uses
    if not found:
        problems.append(f"no decks in {root / 'slides'}")
    # No deck's students' edition answers its own questions.
    for deck in found:
        try:
            problems += answers(root, deck)
        except DeckError as e:
            problems.append(str(e))
    # Numbers quoted in prose agree with the data, and nothing promises data instead of showing it.
    for doc in quote.documents(root):
        rel = doc.relative_to(root)
        text = doc.read_text()
        _, changed, errors = quote.substitute(text)
        problems += [f"{rel}:{e}" for e in errors]
        problems += [f"{rel}:{line}: quotes {old}, the data says {new} ({expr}); "
                     f"`python3 slides/quote.py update` rewrites it" for line, expr, old, new in changed]
        for number, line in enumerate(text.splitlines(), start=1):
            if PLACEHOLDER.search(line) and "PLACEHOLDER" not in line:
                problems.append(f"{rel}:{number}: a placeholder where data should be: {line.strip()[:100]}")
    # Every figure names its machine and revision: the data must carry them (`date` is optional:
    # without it the figure gives the day the file was committed).
    for csv_file in sorted(data.glob("*.csv")):
        with open(csv_file, newline="") as f:
            head = f.readline().strip().split(",")
        missing = [c for c in ("device", "git_revision") if c not in head]
        if "_step" not in csv_file.name or missing:
            problems.append(f"data/{csv_file.name}: name it MACHINE_stepNN_<what>.csv, with the step program's "
                            f"--format csv columns{' (missing: ' + ', '.join(missing) + ')' if missing else ''}")
    return problems, found


def slide_texts(lines):
    """For each line of a deck, the text of the slide that holds it, without its directives."""
    out, start = [], 0
    for i in range(len(lines) + 1):
        if i == len(lines) or lines[i].strip() == "---":
            text = "\n".join(ln for ln in lines[start:i] if not DIRECTIVE.match(ln))
            out += [text] * (i - start + (i < len(lines)))
            start = i + 1
    return out


def slides_of(text):
    """The deck split at its `---` lines: [front matter lines, slide lines, ...] (separators removed)."""
    parts, current = [], []
    for line in text.splitlines():
        if line.strip() == "---":
            parts.append(current)
            current = []
        else:
            current.append(line)
    parts.append(current)
    return parts  # parts[0] is what precedes the front matter (nothing), parts[1] the front matter


INSTRUCTOR = re.compile(r"<!--\s*instructor\s*-->")
STUDENT = re.compile(r"<!--\s*student\s*-->")


def expand(root, deck, figures, student=False):
    """The deck's Markdown with every directive replaced and every quoted number computed from the
    data; a slide whose figure or table has no data yet is left out. The students' edition leaves
    out what solution regions hold, every slide that has a line `<!-- instructor -->` of its own
    (the answers) and every line that ends with that comment; the instructor's leaves out the lines that
end with `<!-- student -->`. (text, figures inlined); figures None: the text without figures or tables."""
    data = root / "slides" / "data"
    text, _, errors = quote.substitute(deck.read_text(), strip=True)
    if errors:
        raise DeckError(f"{deck.name}: {errors[0]}")
    parts = slides_of(text)
    kept, inlined = parts[:2], 0
    for slide in parts[2:]:
        out, figs, missing = [], 0, False
        if student and any(INSTRUCTOR.fullmatch(ln.strip()) for ln in slide):
            continue
        for line in slide:
            for marker, mine in ((INSTRUCTOR, not student), (STUDENT, student)):
                if marker.search(line):
                    line = marker.sub("", line).rstrip() if mine else None
                    break
            if line is None:
                continue
            m = DIRECTIVE.match(line)
            if not m:
                out.append(line)
                continue
            kind, arg = m.groups()
            if kind == "excerpt":
                rel, region, body = excerpt(root, arg, student)
                out += ["```cpp", *body, "```", f"*from `{rel}`*" if not student else
                        f"*from `{rel}`; the TODO is yours: `{rel.replace('solutions/', 'exercises/', 1)}`*"
                        if any("// TODO:" in ln for ln in body) else f"*from `{rel}`*"]
                continue
            _, pattern, files = plot.resolve(arg, data)
            if figures is None:  # the text alone (the answers check): no figure drawn, none shown
                missing = missing or not files
                continue
            made = figures / f"{arg}.{'png' if kind.startswith('figure') else 'md'}"
            if not files:
                missing = True
            elif kind.startswith("figure"):
                png = base64.b64encode(made.read_bytes()).decode()
                out.append(f"![w:1080](data:image/png;base64,{png})")
                figs += 1
            else:
                out.append(made.read_text().rstrip())
        if not missing:
            kept.append(out)
            inlined += figs
    text = "\n---\n".join("\n".join(p) for p in kept).lstrip("\n")  # the front matter opens the file
    bad = [ln for ln in text.splitlines() if PLACEHOLDER.search(ln)]
    if bad:
        raise DeckError(f"{deck.name}: the rendered deck would show a placeholder: {bad[0].strip()[:100]}")
    return text + "\n", inlined


BOLD = re.compile(r"\*\*(.+?)\*\*")
ANSWERS = re.compile(r"^#+\s*Answers\b", re.I)


def plain(text):
    """Text as a reader sees it, for comparing phrases: no comments, no Markdown emphasis or code
    marks, one space between words, lower case."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"</?(sup|sub|em|strong|code)>|[*`_]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def answers(root, deck):
    """[problems]: the students' edition of the deck gives none of its answers away. Each answer on
    the instructors' answers slide (a slide holding `<!-- instructor -->` alone, headed "Answers")
    carries its key phrase in **bold**: what a student who answered would say, and what no slide of
    theirs may say for them. The check fails on an answer without a key phrase, on an answers slide
    the students would see, and on a key phrase found in the students' edition (excerpts and quoted
    numbers as rendered)."""
    problems = []
    text, _, errors = quote.substitute(deck.read_text(), strip=True)
    if errors:
        return [f"{deck.name}: {errors[0]}"]
    keys = []
    for slide in slides_of(text)[2:]:
        private = any(INSTRUCTOR.fullmatch(ln.strip()) for ln in slide)
        is_answers = any(ANSWERS.match(ln) for ln in slide)
        if is_answers and not private:
            problems.append(f"{deck.name}: its answers slide must hold a line `<!-- instructor -->` of its own")
        for ln in slide if is_answers else []:
            found = [plain(k) for k in BOLD.findall(ln)]
            if is_answers and re.match(r"^\s*\d+\.\s", ln) and not found:
                problems.append(f"{deck.name}: answer {ln.strip()[:40]!r}... carries no key phrase in **bold**")
            keys += [k for k in found if k]
    student = plain(expand(root, deck, None, student=True)[0])
    for k in keys:
        if re.search(r"(?<!\w)" + re.escape(k) + r"(?!\w)", student):
            problems.append(f"{deck.name}: the students' edition gives an answer away: it says {k!r} (bold on the "
                            f"answers slide); mark the line that says it `<!-- instructor -->`, or reword it")
    return problems


def find_marp(root):
    marp = root / "slides" / "node_modules" / ".bin" / "marp"
    if not marp.exists():
        return None, ("Marp is not installed: run `npm ci` in slides/ (Node.js 18 or newer; the versions are "
                      "pinned in slides/package-lock.json), then build the `slides` target again. "
                      "Nothing else in the build needs it.")
    if not shutil.which("node"):
        return None, "Marp needs Node.js (node on PATH): apt-get install nodejs npm, then npm ci in slides/"
    return marp, ""


def fit(html_dir):
    """Every slide of every rendered deck inside its 1280 x 720 frame, measured in headless Chromium
    (fit.js); SKIPPED where Node, puppeteer-core or Chromium is absent."""
    if not shutil.which("node"):
        print("slides: no Node.js: the slides' fit is not measured", file=sys.stderr)
        return SKIPPED
    r = subprocess.run(["node", str(HERE / "fit.js"), str(html_dir)], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    return r.returncode


def render(root, out, plot_python, test, check_fit=False):
    problems, uses = check(root)
    if problems:
        print("slides: the decks name what is not there:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    figures, md_dir, html_dir = out / "figures", out / "md", out / "html"
    for d in (figures, md_dir, html_dir):
        d.mkdir(parents=True, exist_ok=True)
    data = root / "slides" / "data"
    names = sorted({arg for u in uses.values() for kind, arg in u
                    if kind != "excerpt" and plot.resolve(arg, data)[2]})
    probe = subprocess.run([plot_python, "-c", "import matplotlib"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"slides: {plot_python} has no matplotlib: install Debian's python3-matplotlib "
              "(the figures are drawn with /usr/bin/python3, not a pyenv one)", file=sys.stderr)
        return SKIPPED if test else 1
    r = subprocess.run([plot_python, str(HERE / "plot.py"), "--data", str(data), "--out", str(figures), *names],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"slides: plot.py failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
        return 1
    counts = {}
    editions = {"instructor": (md_dir, html_dir), "student": (md_dir / "student", html_dir / "student")}
    for edition, (md, _) in editions.items():
        md.mkdir(parents=True, exist_ok=True)
        for deck in uses:
            try:
                text, inlined = expand(root, deck, figures, student=edition == "student")
            except DeckError as e:
                print(f"slides: {e}", file=sys.stderr)
                return 1
            (md / deck.name).write_text(text)
            counts[(edition, deck.stem)] = inlined
    marp, why = find_marp(root)
    if not marp:
        print(f"slides: {why}", file=sys.stderr)
        print(f"slides: the decks' Markdown, with excerpts and figures, is in {md_dir}", file=sys.stderr)
        return SKIPPED if test else 1
    for edition, (md, html_out) in editions.items():
        html_out.mkdir(parents=True, exist_ok=True)
        for f in html_out.glob("*.html"):
            f.unlink()
        r = subprocess.run([str(marp), "--no-stdin", "--theme-set", str(HERE / "theme.css"), "--input-dir", str(md),
                            "--output", str(html_out)], capture_output=True, text=True, cwd=out)
        if r.returncode != 0:
            print(f"slides: Marp failed on the {edition}s' edition:\n{r.stdout}{r.stderr}", file=sys.stderr)
            return 1
    bad = []
    for (edition, stem), inlined in counts.items():
        html = editions[edition][1] / f"{stem}.html"
        if not html.is_file():
            bad.append(f"{html.name}: not written")
            continue
        text = html.read_text()
        if text.count("data:image/png;base64,") < inlined:
            bad.append(f"{html.name}: {inlined} figures expected inline")
        remote = re.findall(r"""(?:src|href)=["']https?://[^"']+|url\(["']?https?://[^)"']+""", text)
        if remote:
            bad.append(f"{html.name}: loads from the network: {remote[:3]}")
        print(f"slides: {html} ({inlined} figures inline)")
    for b in bad:
        print(f"slides: {b}", file=sys.stderr)
    if bad:
        return 1
    if not check_fit:
        return 0
    codes = [fit(html) for _, html in editions.values()]
    return 1 if 1 in codes else max(codes)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=pathlib.Path, default=HERE.parent)
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("--plot-python", default="/usr/bin/python3")
    ap.add_argument("--check", action="store_true", help="only check that excerpts and figures exist")
    ap.add_argument("--test", action="store_true", help="exit 77 (skipped) where Marp or matplotlib is absent")
    ap.add_argument("--fit", action="store_true",
                    help="then measure every slide in headless Chromium: fail on content past its edge "
                         "(exit 77 without Chromium)")
    a = ap.parse_args()
    root = a.root.resolve()
    if a.check:
        problems, uses = check(root)
        for p in problems:
            print(f"slides: {p}", file=sys.stderr)
        n_ex = sum(k == "excerpt" for u in uses.values() for k, _ in u)
        n_fig = sum(k != "excerpt" for u in uses.values() for k, _ in u)
        for p in pending:
            print(f"slides: waiting for data: {p}")
        if not problems:
            print(f"slides: {len(uses)} decks; {n_ex} excerpts and {n_fig} figures and tables all found; "
                  f"the quoted numbers agree with the data; no placeholder")
        return 1 if problems else 0
    return render(root, a.out.resolve(), a.plot_python, a.test, a.fit)


if __name__ == "__main__":
    sys.exit(main())
