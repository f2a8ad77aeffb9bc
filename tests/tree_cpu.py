"""Run a command and print the CPU seconds of its whole process tree, Chromium's renderers included.

    python3 tests/tree_cpu.py ./sw test

`time` counts only the children it waits for, and misses most of Chromium's processes. This samples /proc
every 0.25 s: the utime+stime each process of the tree reached, summed by process name, with the wall time
and the machine's idle share (/proc/stat) over the run. A process that lives less than 0.25 s is missed.
The suite is CPU-bound on two cores (docs/testing.md), so these seconds, not the wall time, compare runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, tuple[int, int, int, str]]:
    """pid -> (parent pid, utime+stime in ticks, start time, name) of every process."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        found[int(pid)] = (int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[19]), name)
    return found


def idle_and_total() -> tuple[int, int]:
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return values[3] + values[4], sum(values)


def main() -> int:
    started, idle_before = time.monotonic(), idle_and_total()
    child = subprocess.Popen(sys.argv[1:])
    ours = {child.pid}
    spent: dict[tuple[int, int], int] = {}
    names: dict[tuple[int, int], str] = {}
    while child.poll() is None:
        now = processes()
        for pid, (parent, cpu, start, name) in now.items():
            if pid in ours or parent in ours:
                ours.add(pid)
                spent[(pid, start)] = max(spent.get((pid, start), 0), cpu)
                names[(pid, start)] = name
        ours = {pid for pid in ours if pid in now} | {child.pid}  # a reused pid is not ours
        time.sleep(0.25)
    wall, idle_after = time.monotonic() - started, idle_and_total()
    by_name: dict[str, float] = {}
    for key, ticks in spent.items():
        by_name[names[key]] = by_name.get(names[key], 0.0) + ticks / TICKS
    idle = 100 * (idle_after[0] - idle_before[0]) / max(1, idle_after[1] - idle_before[1])
    print(f"[tree_cpu] wall {wall:.0f} s, CPU {sum(by_name.values()):.0f} s, machine idle {idle:.0f} %",
          file=sys.stderr)
    for name, seconds in sorted(by_name.items(), key=lambda item: -item[1])[:8]:
        print(f"[tree_cpu]   {name:24s} {seconds:6.0f} s", file=sys.stderr)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
