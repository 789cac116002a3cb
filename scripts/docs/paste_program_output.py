#!/usr/bin/env python3
"""Paste what a chapter program printed about its kernels into that chapter's README.

scripts/run/bench_all.sh (run by scripts/run/check_gpu.sh) saves every chapter's output to bench.log. Each README marks the place:

    <!-- program-output:04_2d_tiling -->
    ...replaced...
    <!-- /program-output -->

or, for what a run with a flag printed (e.g. `06_warp_tiling --wmma-ceiling`),

    <!-- program-output:06_warp_tiling --wmma-ceiling -->

    python3 scripts/docs/paste_program_output.py OUT_DIR/bench.log COMMIT [CHAPTER ...]

copies, for each marked chapter, the "kernel resources" lines that the program prints before it
runs (registers, local memory, shared memory, occupancy: all computed for the GPU it ran on), so the
README shows real output, never numbers typed by hand. Standard library only.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]  # scripts/docs/ -> the repository
MARK = re.compile(r"(<!-- program-output:(?P<chapter>[\w.-]+)(?P<flag> --[\w-]+)? -->\n)(.*?)"
                  r"(<!-- /program-output -->)", re.S)


def resources_block(log_lines, chapter):
    """The lines from 'kernel resources' up to the next 'verification' line, in the first run of
    `chapter` in the log (bench_all.sh writes '--- NAME MxNxK' before each program). [] when the
    chapter ran but printed no such table (07_hopper off Hopper prints why its kernels do not run
    instead)."""
    inside, grab, ran, out = False, False, False, []
    for line in log_lines:
        if line.startswith("--- "):
            if inside and grab:
                break
            # "--- NAME" (check_gpu.sh) or "--- NAME MxNxK" (bench_all.sh), but not a run with flags.
            words = line.split()
            inside = words[1:2] == [chapter] and not any(w.startswith("--") for w in words[2:])
            ran = ran or inside
            continue
        if inside and line.startswith("kernel resources"):
            grab = True
        if grab:
            if line.startswith(("verification", "variant")) or not line.strip():
                break
            out.append(line)
    if not ran:
        raise SystemExit(f"paste_program_output.py: no run of {chapter} in the log")
    return out


def section_block(log_lines, header):
    """What a run started with `header` (e.g. '--- 06_warp_tiling --wmma-ceiling') printed, from
    its first table line (the one after the GPU description) to the next run."""
    out, inside = [], False
    for line in log_lines:
        if line.startswith("--- "):
            if inside:
                break
            inside = line.strip() == header
            continue
        if inside:
            out.append(line)
    # Skip the program's title and the GPU description (they are in every README already).
    while out and (not out[0].strip() or out[0].startswith(("GPU ", "     ")) or ":" in out[0][:40]):
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    if not out:
        raise SystemExit(f"paste_program_output.py: nothing under '{header}' in the log")
    return out


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    log = pathlib.Path(sys.argv[1]).read_text().splitlines()
    commit = sys.argv[2]
    only = set(sys.argv[3:])  # a sweep of some chapters only: paste theirs, leave the others
    device = next((l.split(": ", 1)[1].split(" (")[0] for l in log if l.startswith("GPU 0: ")), "?")
    for path in sorted(ROOT.glob("[0-9][0-9]_*/README.md")):
        text = path.read_text()

        def fill(m):
            chapter, flag = m.group("chapter"), (m.group("flag") or "").strip()
            if only and chapter not in only:
                return m.group(0)
            if flag:
                block = "\n".join(section_block(log, f"--- {chapter} {flag}"))
            else:
                lines = resources_block(log, chapter)
                if not lines:
                    print(f"paste_program_output.py: no 'kernel resources' block for {chapter} in the "
                          f"log; its README keeps the output it has", file=sys.stderr)
                    return m.group(0)
                block = "\n".join(lines)
            command = f"./build/bin/{chapter}" + (f" {flag}" if flag else "")
            return (m.group(1) + "```text\n" + block + "\n```\n\n" +
                    f"(Printed by `{command}` on the {device}, commit {commit}.)\n" + m.group(5))

        new = MARK.sub(fill, text)
        if new != text:
            path.write_text(new)
            print("updated", path.relative_to(ROOT))


if __name__ == "__main__":
    main()
