#!/usr/bin/env python3
"""Every link between the repository's pages must land: the file exists, and a #section names a
heading of that page (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens).

    python3 scripts/docs/check_links.py          # CI: prints each broken link, exits 1 if any

Links to web pages (http...) are not followed. Only the Python standard library is used.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]  # scripts/docs/ -> the repository
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files():
    return sorted(p for p in ROOT.rglob("*.md")
                  if not any(part.startswith(("build", ".")) for part in p.relative_to(ROOT).parts))


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation other than '-' and
    '_' dropped, each space a hyphen."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    """The anchors of a page's headings, with GitHub's -1, -2 for repeated ones."""
    seen, out = {}, set()
    in_code = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = re.match(r"#{1,6} (.*)", line)
        if m and not in_code:
            s = slug(m.group(1))
            count = seen.get(s, 0)
            out.add(s if count == 0 else f"{s}-{count}")
            seen[s] = count + 1
    out.update(re.findall(r'<a (?:name|id)="([^"]+)"', path.read_text()))
    return out


def main():
    broken = []
    cache = {}
    for page in markdown_files():
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            where = page.relative_to(ROOT)
            if not dest.exists():
                broken.append(f"{where}: ({target}): no file {file}")
                continue
            if anchor and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if anchor not in cache[dest]:
                    broken.append(f"{where}: ({target}): {dest.relative_to(ROOT)} has no heading "
                                  f"with the anchor #{anchor}")
    for b in broken:
        print("check_links.py: " + b)
    if not broken:
        print(f"check_links.py: every link of {len(markdown_files())} pages lands")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
