#!/usr/bin/env python3
"""Paste what a chapter program printed about its kernels into that chapter's README.

scripts/check_gpu.sh saves every chapter's output to bench.log. Each README marks the place:

    <!-- program-output:04_2d_tiling -->
    ...replaced...
    <!-- /program-output -->

    python3 scripts/paste_program_output.py OUT_DIR/bench.log COMMIT

copies, for each marked chapter, the "kernel resources" lines that the program prints before it
runs (registers, spills, shared memory, occupancy: all computed for the GPU it ran on), so the
README shows real output, never numbers typed by hand. Standard library only.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARK = re.compile(r"(<!-- program-output:(?P<chapter>[\w.-]+) -->\n)(.*?)(<!-- /program-output -->)", re.S)


def resources_block(log_lines, chapter):
    """The lines from 'kernel resources' up to the next 'verification' line, in the first run of
    `chapter` in the log (check_gpu.sh writes '--- NAME' before each program)."""
    inside, grab, out = False, False, []
    for line in log_lines:
        if line.startswith("--- "):
            if inside and grab:
                break
            inside = line.strip() == f"--- {chapter}"
            continue
        if inside and line.startswith("kernel resources"):
            grab = True
        if grab:
            if line.startswith(("verification", "variant")) or not line.strip():
                break
            out.append(line)
    if not out:
        raise SystemExit(f"paste_program_output.py: no 'kernel resources' block for {chapter}")
    return out


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    log = pathlib.Path(sys.argv[1]).read_text().splitlines()
    commit = sys.argv[2]
    device = next((l.split(": ", 1)[1].split(" (")[0] for l in log if l.startswith("GPU 0: ")), "?")
    for path in sorted(ROOT.glob("[0-9][0-9]_*/README.md")):
        text = path.read_text()

        def fill(m):
            block = "\n".join(resources_block(log, m.group("chapter")))
            return (m.group(1) + "```text\n" + block + "\n```\n\n" +
                    f"(Printed by `./build/bin/{m.group('chapter')}` on the {device}, commit {commit}.)\n" +
                    m.group(4))

        new = MARK.sub(fill, text)
        if new != text:
            path.write_text(new)
            print("updated", path.relative_to(ROOT))


if __name__ == "__main__":
    main()
