"""Checks the end-to-end screenshots: the panel is drawn, and so are the agents.

Usage: png_check.py [--forces | --no-forces] SHOT.png [SHOT.png ...]

--forces / --no-forces also check that force vectors (white velocity arrows) are / are not drawn.

Standard library only (CI machines are bare): decodes 8-bit RGB/RGBA PNGs with zlib.
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    offset, chunks = 8, {}
    idat = b""
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IDAT":
            idat += body
        else:
            chunks[kind] = body
        offset += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour {color})")
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        previous = line
    pixel = lambda x, y: tuple(rows[y][x * channels:x * channels + 3])
    return width, height, pixel


def check(path, forces=None):
    width, height, pixel = read_png(path)
    # The panel sits at the top left: grey window background with light text on it.
    panel = [pixel(x, y) for x in range(12, 380, 2) for y in range(40, 300, 2)]
    panel_grey = sum(1 for r, g, b in panel if 20 <= r <= 40 and abs(r - g) < 6 and abs(g - b) < 6)
    panel_text = sum(1 for r, g, b in panel if r > 150 and g > 150 and b > 150)
    # Agents elsewhere (outside the panel, whose height depends on the behaviours listed): red
    # hunters and pale blue prey on the dark background.
    hunters = prey = white = 0
    for y in range(0, height, 2):
        for x in range(410 if y < 610 else 0, width, 2):
            r, g, b = pixel(x, y)
            if r > 200 and g < 110 and b < 110:
                hunters += 1
            elif b > 200 and g > 170 and r < 190:
                prey += 1
            elif r > 235 and g > 235 and b > 235:
                white += 1
    print(f"{path}: {width}x{height}, panel grey {panel_grey}, panel text {panel_text}, "
          f"hunter pixels {hunters}, prey pixels {prey}, white pixels {white}")
    problems = []
    if panel_grey < len(panel) // 3 or panel_text < 50:
        problems.append("the tuning panel is not visible")
    if hunters < 20:
        problems.append("no hunters visible")
    if prey < 20:
        problems.append("no prey visible")
    if forces is True and white < 50:
        problems.append("force vectors should be drawn")
    if forces is False and white > 10:
        problems.append("force vectors should not be drawn")
    return problems


if __name__ == "__main__":
    arguments = sys.argv[1:]
    forces = None
    if arguments and arguments[0] in ("--forces", "--no-forces"):
        forces = arguments.pop(0) == "--forces"
    failed = False
    for shot in arguments:
        for problem in check(shot, forces):
            print(f"FAIL {shot}: {problem}")
            failed = True
    sys.exit(1 if failed else 0)
