"""Make the wheels for the other platforms from the wheel built on this machine.

The wheels differ only in the figure server's native packages (sharp, libvips, resvg and
@napi-rs/image, the PNG encoder of vision views) and the tag. npm installs another platform's
native packages when told its os, cpu and libc, so each platform's packages are installed into
a staging folder (build/native/<platform>) and put in place of this machine's; everything else
(labextension, figure server, fonts) is byte for byte the wheel that `python -m build` made from
the sdist.

usage: python scripts/platform_wheels.py WHEEL OUTDIR
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
PLATFORMS = json.loads((TOP / "scripts" / "wheel-platforms.json").read_text(encoding="utf-8"))
MODULES = "jupyterlab_figure_chat/figure_server/node_modules/"


class PlatformWheelError(RuntimeError):
    """A platform's wheel could not be made."""


def _native_prefixes() -> list[str]:
    return [f"{MODULES}{package}/" for spec in PLATFORMS.values() for package in spec["packages"]]


def _stage(key: str, versions: dict[str, str]) -> Path:
    """Install one platform's native modules (with their binary packages) into a staging folder."""
    spec = PLATFORMS[key]
    stage = TOP / "build" / "native" / key
    stage.mkdir(parents=True, exist_ok=True)
    (stage / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    flags = [f"--{name}={value}" for name, value in spec["npm"].items()]
    command = [
        "npm", "install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund",
        "--ignore-scripts", "--loglevel=error", *flags,
        *(f"{name}@{version}" for name, version in versions.items()),
    ]
    subprocess.run(command, cwd=stage, check=True, stdout=subprocess.DEVNULL)
    missing = [p for p in spec["packages"] if not (stage / "node_modules" / p / "package.json").is_file()]
    if missing:
        raise PlatformWheelError(f"npm did not install {', '.join(missing)} for {key} into {stage}")
    return stage / "node_modules"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheel(source: Path, key: str, outdir: Path) -> Path:
    """The wheel for platform ``key``: ``source`` with that platform's native packages and tag."""
    tag = PLATFORMS[key]["tag"]
    with zipfile.ZipFile(source) as wheel:
        versions = {
            name: json.loads(wheel.read(f"{MODULES}{name}/package.json"))["version"]
            for name in ("sharp", "@resvg/resvg-js", "@napi-rs/image")
        }
        modules = _stage(key, versions)
        dist_info = next(n.split("/")[0] for n in wheel.namelist() if n.endswith(".dist-info/WHEEL"))
        name_version = dist_info[: -len(".dist-info")]
        target = outdir / f"{name_version}-py3-none-{tag}.whl"
        skip = tuple(_native_prefixes())
        record: list[str] = []
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:

            def write(info: zipfile.ZipInfo, data: bytes) -> None:
                out.writestr(info, data)
                record.append(_record_line(info.filename, data))

            for info in wheel.infolist():
                if info.filename.startswith(skip) or info.filename == f"{dist_info}/RECORD":
                    continue
                data = wheel.read(info)
                if info.filename == f"{dist_info}/WHEEL":
                    text = re.sub(r"^Tag: .*$", f"Tag: py3-none-{tag}", data.decode(), flags=re.M)
                    data = text.encode()
                write(info, data)
            for package in PLATFORMS[key]["packages"]:
                root = modules / package
                for path in sorted(p for p in root.rglob("*") if p.is_file()):
                    info = zipfile.ZipInfo(f"{MODULES}{package}/{path.relative_to(root).as_posix()}")
                    info.external_attr = (path.stat().st_mode & 0o777 | 0o100000) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    write(info, path.read_bytes())
            record.append(f"{dist_info}/RECORD,,")
            out.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    source, outdir = Path(argv[0]), Path(argv[1])
    host = next((k for k, s in PLATFORMS.items() if source.name.endswith(f"-{s['tag']}.whl")), None)
    if host is None:
        raise PlatformWheelError(f"{source.name} is not tagged for any platform in wheel-platforms.json")
    # Each platform's npm install mostly waits on the registry, and zlib lets go of the GIL while
    # it compresses: side by side, the six take about the time of the slowest.
    others = [key for key in PLATFORMS if key != host]
    with ThreadPoolExecutor(max_workers=len(others)) as pool:
        for wheel in pool.map(lambda key: make_wheel(source, key, outdir), others):
            print(f"platform wheel: {wheel.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
