"""Processes in tests: a command killed with SIGKILL once it has written some result files
(resume tests), and what is left alive below a killed harness (Linux /proc)."""
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


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (Linux /proc; elsewhere: it can be signalled)."""
    if Path("/proc/self/stat").exists():
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def descendants(pid: int, depth: int = 99):
    """The processes below `pid`, `depth` generations down at most (1: its children)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = [], [pid]
    for _ in range(depth):
        frontier = [child for child, parent in parents.items() if parent in frontier]
        if not frontier:
            break
        found += frontier
    return found


def wait_for_descendants(pid: int, count: int, timeout: float, depth: int = 99):
    """The processes below `pid` (see `descendants`) once there are `count` of them, or when
    `timeout` seconds have passed."""
    deadline, below = time.monotonic() + timeout, descendants(pid, depth)
    while len(below) < count and time.monotonic() < deadline:
        time.sleep(0.1)
        below = descendants(pid, depth)
    return below


def survivors_of_a_kill(proc: subprocess.Popen, pids, timeout: float = 15.0):
    """SIGKILL `proc`, reap it, and give `pids` `timeout` seconds to go: those still alive."""
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]
