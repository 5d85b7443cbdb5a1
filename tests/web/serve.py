"""Serves the web site (web/build.sh) on 127.0.0.1 as `python3 -m http.server` does, with the two
headers that make the page cross-origin isolated, so that the examples' clock (performance.now())
ticks in 5 microseconds rather than 100: the step times the browser test and docs/performance.md
read are a fraction of a millisecond for the small scenes.

Usage: serve.py DIRECTORY PORT
"""
import functools
import http.server
import sys


class Isolated(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


if __name__ == "__main__":
    directory, port = sys.argv[1], int(sys.argv[2])
    handler = functools.partial(Isolated, directory=directory)
    http.server.ThreadingHTTPServer(("127.0.0.1", port), handler).serve_forever()
