#!/usr/bin/env python3
"""Puts the samples of a `perf record` of a binary built with line tables down to the crate's source.

Each sample's address is resolved with `addr2line -i` into its inlined frames; the sample counts
for the outermost frame whose file path contains PATTERN (the system or function the crate's code
was inlined into), or with --within FUNCTION only the samples whose outermost such frame is in
FUNCTION (a regular expression), each counted for its innermost such frame's file and line.

    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release --example stress
    perf record -o perf.data -F 4000 -- target/release/examples/stress --scene hunter-prey \\
        --agents 100000 --steps 300 --threads 1
    benches/perf_by_source.py perf.data target/release/examples/stress "$PWD"
    benches/perf_by_source.py perf.data target/release/examples/stress "$PWD" --within sort_in_parts

Needs `perf`, `addr2line` and `readelf` (binutils).
"""

import argparse
import collections
import re
import subprocess


def run(*command):
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def load_bias(data, binary):
    """What to add to a sampled address to get the binary's own address of it."""
    for line in run("perf", "script", "-i", data, "--show-mmap-events").splitlines():
        if "r-xp" in line and binary in line:
            found = re.search(r"\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+)", line)
            start, offset = int(found.group(1), 16), int(found.group(3), 16)
            break
    else:
        raise SystemExit(f"no executable mapping of {binary} in {data}")
    # The text segment's address in the file less its offset in it.
    for line in run("readelf", "-lW", binary).splitlines():
        fields = line.split()
        if fields[:1] == ["LOAD"] and "E" in fields[-2]:
            return offset + int(fields[2], 16) - int(fields[1], 16) - start
    raise SystemExit(f"no executable segment in {binary}")


def frames(binary, addresses):
    """Each address's inlined frames, innermost first: (file:line, function)."""
    output = run("addr2line", "-e", binary, "-i", "-f", "-C", "-a", *map(hex, addresses))
    resolved, current, function = {}, None, None
    for line in output.splitlines():
        if line.startswith("0x"):
            current, function = int(line, 16), None
            resolved[current] = []
        elif function is None:
            function = line
        else:
            resolved[current].append((line.split(" ")[0], function))
            function = None
    return resolved


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("binary")
    parser.add_argument("pattern", help="a part of the crate's source paths")
    parser.add_argument("--within", help="only samples whose outermost frame is this function")
    parser.add_argument("--rows", type=int, default=30)
    options = parser.parse_args()

    samples, elsewhere = collections.Counter(), 0
    name = options.binary.split("/")[-1]
    for line in run("perf", "script", "-i", options.data, "-F", "ip,dso").splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and name in parts[1]:
            samples[int(parts[0], 16)] += 1
        elif len(parts) == 2:
            elsewhere += 1
    bias = load_bias(options.data, options.binary)
    resolved = frames(options.binary, [address + bias for address in samples])

    counts, total = collections.Counter(), 0
    for address, count in samples.items():
        ours = [f for f in resolved.get(address + bias, []) if options.pattern in f[0]]
        if options.within is not None:
            if not ours or not re.search(options.within, ours[-1][1]):
                continue
            key = "/".join(ours[0][0].split("/")[-3:])
        elif ours:
            path, function = ours[-1]
            key = f"{'/'.join(path.split(':')[0].split('/')[-3:])}  {re.sub(r'<.*>', '<>', function)}"
        else:
            key = "(outside the crate's source)"
        counts[key] += count
        total += count
    print(f"{total} samples ({elsewhere} in other objects)")
    for key, count in counts.most_common(options.rows):
        print(f"{count:7d}  {key}")


if __name__ == "__main__":
    main()
