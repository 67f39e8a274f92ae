#!/usr/bin/env python3
"""Tests of the slides check's two rules that need no browser: an excerpt that stops inside a block
it opened must say so, and a deck's students' edition must not hold the bold key phrase of any of
its answers. Each rule is shown failing on a planted case and passing once the case is fixed."""
import importlib.util
import pathlib
import sys
import tempfile

spec = importlib.util.spec_from_file_location("build", pathlib.Path(__file__).resolve().parent / "build.py")
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


# Braces: an excerpt may start inside a function; it must not stop inside a block it opened.
whole = ["__global__ void k(int n) {", "    if (n > 0) {", "        go('{');  // a { in a comment", "    }", "}"]
expect("a whole function", build.open_braces(whole), 0)
expect("a function cut after its loop opens", build.open_braces(whole[:2]), 2)
expect("the tail of a function", build.open_braces(whole[3:]), 0)
expect("a brace in a string", build.open_braces(['x = "{";']), 0)
cut = whole[:3]
expect("a cut excerpt, nothing said", build.stops_unsaid(cut, "## The kernel"), True)
expect("a cut excerpt ending with // ...", build.stops_unsaid(cut + ["        // ..."], "## The kernel"), False)
expect("a cut excerpt, the slide says (continues)", build.stops_unsaid(cut, "## The kernel (continues)"), False)
expect("a whole excerpt", build.stops_unsaid(whole, "## The kernel"), False)

DECK = """---
marp: true
---

## The idea

- Each warp reads 128 contiguous bytes{mark}

---

## Questions

1. How many bytes does a warp read at once?

---

<!-- instructor -->
## Answers (instructor's edition)

1. {answer}
"""

with tempfile.TemporaryDirectory() as d:
    root = pathlib.Path(d)
    (root / "slides").mkdir()
    deck = root / "slides" / "99_test.md"
    cases = [
        ("the body gives the answer away", "", "**128 contiguous bytes**, one sector each", 1),
        ("the giving line is the instructor's", " <!-- instructor -->", "**128 contiguous bytes**", 0),
        ("an answer without a key phrase", " <!-- instructor -->", "128 contiguous bytes", 1),
    ]
    for what, mark, answer, problems in cases:
        deck.write_text(DECK.format(mark=mark, answer=answer))
        got = build.answers(root, deck)
        expect(f"{what}: {got}", len(got), problems)
    deck.write_text(DECK.format(mark="", answer="**128 contiguous bytes**").replace("<!-- instructor -->\n", ""))
    expect("an answers slide the students would see", any("answers slide" in p for p in build.answers(root, deck)),
           True)

for f in failures:
    print(f"test_build: {f}", file=sys.stderr)
print("test_build: " + ("FAILED" if failures else "the excerpt and answers rules hold"))
sys.exit(1 if failures else 0)
