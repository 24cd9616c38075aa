"""Every built wheel carries only its own platform's native binaries, as its tag says.

The expected machine comes from the wheel's tag alone and is checked against the file headers of
every native binary inside (ELF e_machine, Mach-O cputype), so a wheel whose packages
were mixed up fails here even if the package names look right.

Runs on the wheels in ``FIGURE_CHAT_WHEELS`` (a folder; scripts/check-wheel.sh sets it after
scripts/build-wheels.sh); skipped when it is not set, as in a plain `pytest` of a checkout.
"""

from __future__ import annotations

import os
import re
import struct
import zipfile
from pathlib import Path

import pytest

WHEELS_DIR = os.environ.get("FIGURE_CHAT_WHEELS")
pytestmark = pytest.mark.skipif(not WHEELS_DIR, reason="FIGURE_CHAT_WHEELS is not set")

# Platforms sharp, resvg and @napi-rs/image publish binaries for, by wheel platform tag pattern.
EXPECTED_PLATFORMS = {
    r"manylinux_\d+_\d+_x86_64": ("elf", 62),  # EM_X86_64
    r"manylinux_\d+_\d+_aarch64": ("elf", 183),  # EM_AARCH64
    r"musllinux_\d+_\d+_x86_64": ("elf", 62),
    r"musllinux_\d+_\d+_aarch64": ("elf", 183),
    r"macosx_\d+_\d+_x86_64": ("macho", 0x01000007),  # CPU_TYPE_X86_64
    r"macosx_\d+_\d+_arm64": ("macho", 0x0100000C),  # CPU_TYPE_ARM64
}
# No Windows wheel: the figure server listens only on a Unix socket (the one way it keeps other
# local users out), so a Windows wheel would install a chat that cannot start (issue 33.4).
UNSUPPORTED_TAGS = re.compile(r"win.*")
NATIVE = re.compile(r"\.(node|dll|dylib|so(\.\d+)*)$")
MODULES = "jupyterlab_figure_chat/figure_server/node_modules/"


def binary_kind(data: bytes) -> tuple[str, int] | None:
    """(format, machine) from a native binary's header, or None if it is not one."""
    if data[:4] == b"\x7fELF":
        little = data[5] == 1
        return "elf", struct.unpack("<H" if little else ">H", data[18:20])[0]
    magic = data[:4]
    if magic in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):  # thin Mach-O, little-endian
        return "macho", struct.unpack("<I", data[4:8])[0]
    if magic == b"\xca\xfe\xba\xbe":  # universal Mach-O: accept only if it is one architecture
        count = struct.unpack(">I", data[4:8])[0]
        cputypes = {struct.unpack(">I", data[8 + 20 * i : 12 + 20 * i])[0] for i in range(count)}
        return ("macho", cputypes.pop()) if len(cputypes) == 1 else ("macho-fat", 0)
    if data[:2] == b"MZ":
        offset = struct.unpack("<I", data[0x3C:0x40])[0]
        if data[offset : offset + 4] == b"PE\0\0":
            return "pe", struct.unpack("<H", data[offset + 4 : offset + 6])[0]
    return None


def expected_for(tag: str) -> tuple[str, int]:
    for pattern, kind in EXPECTED_PLATFORMS.items():
        if re.fullmatch(pattern, tag):
            return kind
    raise AssertionError(f"wheel platform tag {tag} is not one sharp and resvg publish binaries for")


def wheels() -> list[Path]:
    return sorted(Path(WHEELS_DIR or ".").glob("*.whl"))


def test_one_wheel_per_platform():
    tags = sorted(w.name.rsplit("-", 1)[1][: -len(".whl")] for w in wheels())
    assert not [tag for tag in tags if UNSUPPORTED_TAGS.fullmatch(tag)], f"a Windows wheel: {tags}"
    matched = {pattern for pattern in EXPECTED_PLATFORMS for tag in tags if re.fullmatch(pattern, tag)}
    assert matched == set(EXPECTED_PLATFORMS), f"wheels for {tags}"
    assert len(tags) == len(set(tags)) == len(EXPECTED_PLATFORMS)


@pytest.mark.parametrize("wheel", wheels(), ids=lambda w: w.name.rsplit("-", 1)[1])
def test_native_binaries_match_the_tag(wheel: Path):
    tag = wheel.name.rsplit("-", 1)[1][: -len(".whl")]
    expected = expected_for(tag)
    with zipfile.ZipFile(wheel) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/WHEEL"))
        assert f"Tag: py3-none-{tag}" in archive.read(meta).decode()
        assert "Root-Is-Purelib: false" in archive.read(meta).decode()
        natives = {
            name: binary_kind(archive.read(name))
            for name in archive.namelist()
            if name.startswith(MODULES) and NATIVE.search(name)
        }
    found = {name: kind for name, kind in natives.items() if kind is not None}
    wrong = {name: kind for name, kind in found.items() if kind != expected}
    assert not wrong, f"{wheel.name}: binaries for another platform: {wrong}"
    assert any("/sharp-" in n and n.endswith(".node") for n in found), "no sharp binary"
    assert any("/resvg-js-" in n and n.endswith(".node") for n in found), "no resvg binary"
    assert any("/@napi-rs/image-" in n and n.endswith(".node") for n in found), "no @napi-rs/image binary"
    assert any("libvips" in n for n in found), "no libvips library"


@pytest.mark.parametrize("wheel", wheels(), ids=lambda w: w.name.rsplit("-", 1)[1])
def test_production_labextension_and_server_extension(wheel: Path):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    lab = [n for n in names if "/share/jupyter/labextensions/jupyterlab-figure-chat/" in n]
    assert any(n.endswith("/static/third-party-licenses.json") for n in lab), "no licence file"
    assert not [n for n in lab if n.endswith(".js.map")], "development build (source maps)"
    assert any(
        n.endswith("/etc/jupyter/jupyter_server_config.d/jupyterlab_figure_chat.json") for n in names
    ), "server extension not enabled by the wheel"
