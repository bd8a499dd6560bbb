"""A command killed with SIGKILL once it has written some result files (resume tests)."""
import os
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kill_after_files(command, folder: Path, count: int, timeout: float = 300) -> int:
    """Start `command` (in its own process group), SIGKILL the group as soon as `folder` holds
    `count` .json files, and return how many it holds once the group is dead."""
    proc = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    deadline = time.time() + timeout
    while time.time() < deadline and len(list(folder.glob("*.json"))) < count:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return len(list(folder.glob("*.json")))
