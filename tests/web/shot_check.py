"""Checks a screenshot of an example's canvas in the browser test (tests/web/test.mjs), the way the
Xvfb tests check theirs (tests/e2e/png_check.py, whose PNG reader it uses). Prints one JSON object:
the figures, a one-line summary and the problems found (none when the shot passes).

Usage: shot_check.py MODE SHOT.png

MODE:
  plain        not blank: at least 300 pixels away from the background, and at least 6 colours
  hunter_prey  png_check.py's checks: the panel, red hunters and pale blue prey
  forces       as hunter_prey, and force vectors (white velocity arrows) are drawn
  no-forces    as hunter_prey, and no force vectors are drawn
"""
import collections
import contextlib
import io
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "e2e"))
import png_check  # noqa: E402


def figures(path):
    width, height, pixel = png_check.read_png(path)
    colours = collections.Counter()
    white = 0
    for y in range(0, height, 2):
        for x in range(0, width, 2):
            r, g, b = pixel(x, y)
            colours[(r >> 4, g >> 4, b >> 4)] += 1
            if r > 235 and g > 235 and b > 235:
                white += 1
    background, _ = colours.most_common(1)[0]
    drawn = sum(
        count
        for colour, count in colours.items()
        if sum(abs(a - b) for a, b in zip(colour, background)) > 2
    )
    # Colours that cover a few pixels at least (antialiasing alone makes many one-pixel ones).
    distinct = sum(1 for count in colours.values() if count >= 4)
    return width, height, drawn, distinct, white


def main():
    mode, path = sys.argv[1], sys.argv[2]
    width, height, drawn, distinct, white = figures(path)
    problems = []
    summary = f"{width}x{height}, {drawn} drawn pixels, {distinct} colours, {white} white"
    if mode == "plain":
        if drawn < 300:
            problems.append(f"blank: only {drawn} pixels (of every fourth) differ from the background")
        if distinct < 6:
            problems.append(f"only {distinct} colours")
    else:
        forces = {"forces": True, "no-forces": False}.get(mode)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            problems += png_check.check(path, forces)
        summary += "; " + printed.getvalue().strip().split(": ", 1)[-1]
    print(json.dumps({"drawn": drawn, "colours": distinct, "white": white, "summary": summary,
                      "problems": problems}))


if __name__ == "__main__":
    main()
