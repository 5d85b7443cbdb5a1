"""Writes the web site's pages (web/build.sh): one per example from web/example.html, with the
first paragraph and the controls table of the example's own docs, and index.html linking them.

Usage: pages.py OUT_DIR EXAMPLE [EXAMPLE ...]
"""
import html
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def inline(text):
    """Markdown's inline code and emphasis as HTML."""
    text = html.escape(text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", text)


def docs(example):
    """The example's summary paragraph and controls table, as HTML."""
    source = ROOT / "examples" / f"{example}.rs"
    if not source.exists():
        source = ROOT / "examples" / example / "main.rs"
    lines = [line[3:].strip() for line in source.read_text().splitlines() if line.startswith("//!")]
    summary = []
    for line in lines:
        if not line:
            break
        summary.append(line)
    rows = [line for line in lines if line.startswith("|") and not line.startswith("| ---")]
    parts = [f"<p>{inline(' '.join(summary))}</p>"]
    if rows:
        parts.append("<table>")
        for number, row in enumerate(rows):
            cells = [cell.strip() for cell in row.strip("|").split(" | ")]
            tag = "th" if number == 0 else "td"
            parts.append("<tr>" + "".join(f"<{tag}>{inline(c)}</{tag}>" for c in cells) + "</tr>")
        parts.append("</table>")
    return "\n".join(parts)


def main():
    out = pathlib.Path(sys.argv[1])
    examples = sys.argv[2:]
    template = (ROOT / "web" / "example.html").read_text()
    for example in examples:
        page = template.replace("@DOCS@", docs(example)).replace("@EXAMPLE@", example)
        (out / f"{example}.html").write_text(page)
    items = "\n".join(
        f'<li><a href="{e}.html">{e}</a>: {inline(docs_summary(e))}</li>' for e in examples
    )
    (out / "index.html").write_text(INDEX.replace("@ITEMS@", items))


def docs_summary(example):
    """The first sentence of the example's docs."""
    source = ROOT / "examples" / f"{example}.rs"
    if not source.exists():
        source = ROOT / "examples" / example / "main.rs"
    summary = []
    for line in source.read_text().splitlines():
        if not line.startswith("//!") or not line[3:].strip():
            break
        summary.append(line[3:].strip())
    return " ".join(summary).split(". ", 1)[0].rstrip(".") + "."


INDEX = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>bevy_steer: examples</title>
<style>
  body { margin: 2em auto; max-width: 50em; padding: 0 1em; background: #14161c; color: #ddd;
         font: 16px/1.5 system-ui, sans-serif; }
  a { color: #8cf; }
  code { color: #fc8; }
  li { margin: 0.4em 0; }
</style>
</head>
<body>
<h1>bevy_steer: the examples in your browser</h1>
<p>Craig Reynolds' steering behaviours for <a href="https://bevy.org">Bevy</a>, built for WebGL2.
Each page lists its controls; on every one, <code>F</code> shows the force vectors.</p>
<ul>
@ITEMS@
</ul>
<p>In the browser everything runs on one thread. The tuning panel's presets are files, so saving
and loading them works only in the native builds.</p>
</body>
</html>
"""

if __name__ == "__main__":
    main()
