"""Tag the wheel with the one platform whose native modules the figure server bundles.

The figure server carries sharp's and resvg's prebuilt binaries, so the wheel is not pure Python:
its tag must name the platform those binaries were built for (scripts/wheel-platforms.json), or pip
would install a Linux x64 figure server on a Mac. `scripts/build-wheels.sh` makes the wheels for
the other platforms from the same build.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HERE = Path(__file__).parent
PLATFORMS = HERE / "scripts" / "wheel-platforms.json"
NODE_MODULES = HERE / "jupyterlab_figure_chat" / "figure_server" / "node_modules"


class WheelPlatformError(RuntimeError):
    """The bundled native modules do not name exactly one platform."""


def bundled_platform(node_modules: Path = NODE_MODULES) -> str:
    """The platform key in wheel-platforms.json whose native packages are all bundled."""
    platforms = json.loads(PLATFORMS.read_text(encoding="utf-8"))
    found = [
        key
        for key, spec in platforms.items()
        if all((node_modules / package).is_dir() for package in spec["packages"])
    ]
    if len(found) != 1:
        raise WheelPlatformError(
            f"the figure server in {node_modules} bundles native modules for {found or 'no'} "
            f"platform(s), expected exactly one of {sorted(platforms)}: run `npm run build:server`."
        )
    return found[0]


class CustomBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if sys.platform == "win32":
            # Said here, not by a chat that cannot start: pip on Windows finds no wheel and would
            # otherwise build one from the sdist.
            raise WheelPlatformError(
                "Figure Chat does not run on Windows yet: its figure server listens only on a Unix "
                "socket. Use it under WSL (Windows Subsystem for Linux)."
            )
        platforms = json.loads(PLATFORMS.read_text(encoding="utf-8"))
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{platforms[bundled_platform()]['tag']}"
