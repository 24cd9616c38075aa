"""The peers of bench/vision.mjs: the same views drawn with Pillow and with matplotlib.

Reads a job (JSON) on standard input: the picture's path and, per view, the geometry, marks and
tick labels that Figure Chat computed, so every peer draws exactly the same shapes. Prints the
median time per view and peer (milliseconds) as JSON on standard output, with the bytes of
Pillow's PNG and of Figure Chat's view (bench/out/ours-<view>.png) re-encoded by Pillow at the same
zlib level.
"""

import io
import json
import statistics
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Ellipse, Rectangle  # noqa: E402
from PIL import Image, ImageDraw, ImageFont  # noqa: E402


def view_x(pane, x):
    return pane["left"] + (x - pane["region"]["x0"]) * pane["sx"]


def view_y(pane, y):
    return pane["top"] + (y - pane["region"]["y0"]) * pane["sy"]


def pane_marks(pane, marks):
    """The marks a pane shows, as Figure Chat draws them: those whose bounds meet its region."""
    r = pane["region"]
    shown = []
    for mark in marks:
        if mark["kind"] == "point":
            x0, y0, x1, y1 = mark["x"] - mark["r"], mark["y"] - mark["r"], mark["x"] + mark["r"], mark["y"] + mark["r"]
        else:
            x0, y0, x1, y1 = mark["x0"], mark["y0"], mark["x1"], mark["y1"]
        if x1 >= r["x0"] and x0 <= r["x1"] and y1 >= r["y0"] and y0 <= r["y1"]:
            shown.append(mark)
    return shown


def pillow_view(data, view, font, compress_level, jpeg_quality=None):
    geometry = view["geometry"]
    width, height = geometry["width"], geometry["height"]
    panes = geometry["panes"]
    image = Image.open(io.BytesIO(data))
    if view["name"] == "map":
        # JPEG draft mode: libjpeg decodes at the smallest 1/2^n scale that still covers the view.
        image.draft("RGB", (width, height))
        canvas = image.convert("RGB").resize((width, height), Image.LANCZOS)
    else:
        full = image.convert("RGB")
        canvas = Image.new("RGB", (width, height), (32, 32, 32))
        for pane in panes:
            r = pane["region"]
            tile = full.crop((r["x0"], r["y0"], r["x1"], r["y1"]))
            zoomed = min(pane["sx"], pane["sy"]) >= 2
            tile = tile.resize((pane["width"], pane["height"]), Image.NEAREST if zoomed else Image.LANCZOS)
            canvas.paste(tile, (pane["left"], pane["top"]))
    draw = ImageDraw.Draw(canvas)
    for pane in panes:
        for mark in pane_marks(pane, view["marks"]):
            colour = view["hex"][mark["colour"]]
            if mark["kind"] == "point":
                cx, cy = view_x(pane, mark["x"]), view_y(pane, mark["y"])
                rx, ry = mark["r"] * pane["sx"], mark["r"] * pane["sy"]
                draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), outline=(0, 0, 0), width=5)
                draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), outline=colour, width=3)
                nx, ny = cx + rx * 0.71 + 2, cy - ry * 0.71 - 2
            else:
                box = (view_x(pane, mark["x0"]), view_y(pane, mark["y0"]), view_x(pane, mark["x1"]), view_y(pane, mark["y1"]))
                draw.rectangle(box, outline=(0, 0, 0), width=5)
                draw.rectangle(box, outline=colour, width=3)
                nx, ny = box[0] + 1, box[1] - 4
            draw.text((nx, ny), str(mark["id"]), fill=colour, font=font, anchor="ls", stroke_width=2, stroke_fill=(0, 0, 0))
        for label in pane["ticks"]:
            draw.text((label["x"], label["y"]), label["text"], fill=(255, 255, 255), font=font, anchor="mm", stroke_width=2, stroke_fill=(0, 0, 0))
    out = io.BytesIO()
    if jpeg_quality is None:
        canvas.save(out, "PNG", compress_level=compress_level)
    else:
        # As Figure Chat encodes views for the model: no chroma subsampling (4:4:4).
        canvas.save(out, "JPEG", quality=jpeg_quality, subsampling=0)
    return out.getvalue()


def pillow_decode(data, view):
    """The decode step of `pillow_view` alone: what Pillow cannot do faster whatever it draws."""
    image = Image.open(io.BytesIO(data))
    if view["name"] == "map":
        image.draft("RGB", (view["geometry"]["width"], view["geometry"]["height"]))
    return image.convert("RGB")


def matplotlib_view(data, view, compress_level):
    geometry = view["geometry"]
    width, height = geometry["width"], geometry["height"]
    pixels = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    dpi = 100
    figure = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi, facecolor=(32 / 255, 32 / 255, 32 / 255))
    for pane in geometry["panes"]:
        r = pane["region"]
        axes = figure.add_axes(
            (pane["left"] / width, 1 - (pane["top"] + pane["height"]) / height, pane["width"] / width, pane["height"] / height)
        )
        axes.imshow(pixels[r["y0"] : r["y1"], r["x0"] : r["x1"]], extent=(r["x0"], r["x1"], r["y1"], r["y0"]), interpolation="antialiased")
        axes.set_xlim(r["x0"], r["x1"])
        axes.set_ylim(r["y1"], r["y0"])
        axes.axis("off")
        for mark in pane_marks(pane, view["marks"]):
            colour = view["hex"][mark["colour"]]
            if mark["kind"] == "point":
                patch = Ellipse((mark["x"], mark["y"]), 2 * mark["r"], 2 * mark["r"], fill=False, edgecolor=colour, linewidth=2)
                nx, ny = mark["x"] + mark["r"], mark["y"] - mark["r"]
            else:
                patch = Rectangle((mark["x0"], mark["y0"]), mark["x1"] - mark["x0"], mark["y1"] - mark["y0"], fill=False, edgecolor=colour, linewidth=2)
                nx, ny = mark["x0"], mark["y0"]
            axes.add_patch(patch)
            axes.text(nx, ny, str(mark["id"]), color=colour, fontsize=9, clip_on=True)
        for label in pane["ticks"]:
            x = r["x0"] + (label["x"] - pane["left"]) / pane["sx"]
            y = r["y0"] + (label["y"] - pane["top"]) / pane["sy"]
            axes.text(x, y, label["text"], color="white", fontsize=8, ha="center", va="center")
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=dpi, pil_kwargs={"compress_level": compress_level})
    plt.close(figure)
    return out.getvalue()


def median_ms(run, iterations, cpu=None):
    """Median wall time of `run` (ms); with `cpu` (a list), its median CPU time is appended to it.

    CPU time is what a loaded, shared machine changes least: other processes stretch the wall
    clock, not the work done.
    """
    run()  # warm-up: fonts, imports, caches
    times = []
    cpu_times = []
    for _ in range(iterations):
        start = time.perf_counter()
        start_cpu = time.process_time()
        run()
        times.append((time.perf_counter() - start) * 1000)
        cpu_times.append((time.process_time() - start_cpu) * 1000)
    if cpu is not None:
        cpu.append(statistics.median(cpu_times))
    return statistics.median(times)


def main():
    job = json.load(sys.stdin)
    with open(job["picture"], "rb") as handle:
        data = handle.read()
    font = ImageFont.truetype(job["font"], 11)
    level = job["compressLevel"]
    results = {}
    for view in job["views"]:
        name = view["name"]
        pillow_cpu = []
        results[name] = {
            "pillow": median_ms(lambda: pillow_view(data, view, font, level), job["iterations"]["pillow"], pillow_cpu),
            "matplotlib": median_ms(lambda: matplotlib_view(data, view, level), job["iterations"]["matplotlib"]),
        }
        results[name]["pillowCpu"] = pillow_cpu[0]
        if job.get("jpegQuality"):
            quality = job["jpegQuality"]
            results[name]["pillowJpeg"] = median_ms(
                lambda: pillow_view(data, view, font, level, quality), job["iterations"]["pillow"]
            )
        own = pillow_view(data, view, font, level)
        results[name]["ownBytes"] = len(own)
        if job.get("samples"):
            with open(f"{job['samples']}/pillow-{name}.png", "wb") as handle:
                handle.write(own)
            # Bytes with the same pixels: Figure Chat's view, re-encoded by Pillow at the same level.
            ours = Image.open(f"{job['samples']}/ours-{name}.png").convert("RGB")
            same = io.BytesIO()
            ours.save(same, "PNG", compress_level=level)
            results[name]["samePixels"] = len(same.getvalue())
            # Pillow's stages, to set beside ours: its decode, and its PNG encode of our pixels.
            results[name]["pillowDecode"] = median_ms(lambda: pillow_decode(data, view), job["iterations"]["pillow"])
            results[name]["pillowEncode"] = median_ms(
                lambda: ours.save(io.BytesIO(), "PNG", compress_level=level), job["iterations"]["pillow"]
            )
            with open(f"{job['samples']}/matplotlib-{name}.png", "wb") as handle:
                handle.write(matplotlib_view(data, view, level))
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
