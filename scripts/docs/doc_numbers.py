#!/usr/bin/env python3
"""Numbers in prose, generated from the CSVs and the kernels' constants (never typed by hand).

A figure in a README or a page of docs/ is written with the expression it comes from, in an HTML
comment that GitHub does not show, and the generator writes the value after it:

    the headline reaches <!--= pct("h100/wgmma_persistent", 8192) -->105.0%<!--/--> of cuBLAS

`python3 scripts/docs/results_table.py docs/figures/results.csv --update` rewrites every value from its
expression (with the tables); `--check` (CI) fails when a value differs from what its expression
gives now, or when a page holds a measured-looking figure outside a marker (lint(), below). Keep
the marker on one line; the expression must not contain "-->".

What an expression can read (a variant may start with "FOLDER/" for another GPU's run,
docs/figures/FOLDER/; a size is 4096, meaning 4096^3, or "MxNxK"):

  results.csv, one row per variant and size:
    pct(v, size)      % of the cuBLAS timed in the same process        -> 105.0%
    tflops(v, size)   TFLOPS (GFLOPS / 1000)                            -> 47.3
    gflops(v, size)   GFLOPS                                            -> 47,264
    ms(v, size)       median milliseconds                               -> 2.905
    row(v, size)      the row: .pct .tflops .gflops .ms .min_ms .err (max err / bound) .maxerr
                      .note .commit .timing .device
    base(v, size)     the cuBLAS row of v's process (the baseline v is a percentage of)
  profile.csv (Nsight Compute): prof(v, field), e.g. prof("naive_coalesced", "dram_mb")
  resources.csv: res(kernel, field), e.g. res("wgmma_persistent", "regs_per_thread")
  sass.csv: sass(kernel, column), e.g. sass("tiling_2d_vectorized_kernel", "LDS.128")
  machine.csv: mach(quantity), e.g. mach("DRAM read bandwidth") (level and quantity, or a unique
               prefix of either)
  tile_sweep_04.csv: sweep(params, field)
  any CSV in docs/figures: rows(name, **column=value) -> list of rows (dicts of strings);
                           col(name, column, **column=value) -> that column's numbers;
                           num(text) turns a cell into a number;
                           ratio(name, column, variant, baseline, **column=value) -> for each
                           process with both, 100 x variant's column / baseline's there
                           (scripts/measure/power_limit.sh's CSVs: a process is one pass, seed,
                           size, timing or order)
  records/*.csv: rec(key) -> a figure recorded once, as written there: a measurement made outside
                   the sweep (with the GPU, commit and timing method of the run that gave it) or
                   a figure from a datasheet (with its source); keys are unique over all files
  the kernels' constants (docs/figures/diagrams/inputs.json, which the ctest
  diagrams_match_kernels holds to the kernels): const("kernels.04_2d_tiling.BM")
  arithmetic: gflop(m, n, k) = 2mnk / 1e9 (GFLOP of one GEMM), and any Python arithmetic

How a value is written: a value read from a CSV carries its usual format (pct -> "105.0%"); the
result of arithmetic must say its format with fmt(x, "{:.1f}x") or the short forms
pc(x, digits) -> "12.3%", n(x, digits) -> "1,234", times(x, digits) -> "2.3x", and
rng(lo, hi, spec) -> "98.7-104.1%" (the spec applied to both, its suffix once). Integers print
as they are ("4096" -> "4096", or n(...) for "4,096").
"""
import csv
import json
import math
import pathlib
import re
import statistics

ROOT = pathlib.Path(__file__).resolve().parents[2]  # scripts/docs/ -> the repository
FIGURES = ROOT / "docs" / "figures"

# <!--= EXPR -->VALUE<!--/-->, on one line.
MARKER = re.compile(r"<!--= (?P<expr>.+?) -->(?P<value>[^\n]*?)<!--/-->")


class Num(float):
    """A number read from a CSV, with the format it is usually written in. Arithmetic on it gives
    a plain float, whose format the expression must then name."""

    def __new__(cls, value, spec="{:,.1f}"):
        obj = super().__new__(cls, value)
        obj.spec = spec
        return obj

    def __str__(self):
        return self.spec.format(float(self))


def fmt(x, spec):
    """x in the format spec ("{:.1f}x"): the way to write a computed value."""
    return spec.format(float(x))


def pc(x, digits=1):
    return fmt(x, "{:.%df}%%" % digits)


def n(x, digits=0):
    return fmt(x, "{:,.%df}" % digits)


def times(x, digits=1):
    return fmt(x, "{:.%df}x" % digits)


def rng(lo, hi, spec="{:.1f}"):
    """'98.7-104.1%': both ends in spec's number format, its suffix (the text after the last '}')
    written once."""
    head, _, suffix = spec.rpartition("}")
    return fmt(lo, head + "}") + "-" + fmt(hi, head + "}") + suffix


def span(values, spec="{:.1f}"):
    """rng() of a list's lowest and highest value: span(col(...), "{:.1f}%") -> '98.5-98.8%', or
    one value where both ends print the same ('90.3%')."""
    values = list(values)
    if not values:
        raise ValueError("span() of no values: the selection matched no rows")
    if fmt(min(values), spec) == fmt(max(values), spec):
        return fmt(min(values), spec)
    return rng(min(values), max(values), spec)


def num(text):
    return float(str(text).replace(",", "").rstrip("%"))


def gflop(m, k_or_n, k=None):
    """GFLOP of one M x N x K GEMM (2MNK / 1e9); gflop(4096, 4096, 4096)."""
    m, nn, kk = (m, k_or_n, k) if k is not None else (m, m, k_or_n)
    return Num(2.0 * m * nn * kk / 1e9, "{:,.1f}")


def _size(size):
    if isinstance(size, (tuple, list)):
        return tuple(int(s) for s in size)
    if isinstance(size, str):
        dims = tuple(int(d) for d in size.split("x"))
        return dims * 3 if len(dims) == 1 else dims
    return (int(size),) * 3


def _split(v):
    folder, _, name = v.rpartition("/")
    return folder, name


class Row:
    """One row of results.csv; numeric fields come back as Num with their usual format."""

    FIELDS = {"pct": ("pct_of_cublas", "{:.1f}%"), "gflops": ("gflops", "{:,.0f}"),
              "ms": ("median_ms", "{:.3f}"), "min_ms": ("min_ms", "{:.3f}"),
              "err": ("err_over_bound", "{:.2e}"), "maxerr": ("max_error", "{:.2e}"),
              "m": ("m", "{:.0f}"), "n": ("n", "{:.0f}"), "k": ("k", "{:.0f}"),
              "clock": ("sm_clock_mhz", "{:,.0f}")}

    def __init__(self, data):
        self.data = data

    def __getattr__(self, name):
        if name == "tflops":
            return Num(float(self.data["gflops"]) / 1000.0, "{:.1f}")
        if name == "us":
            return Num(float(self.data["median_ms"]) * 1000.0, "{:,.1f}")
        if name in Row.FIELDS:
            column, spec = Row.FIELDS[name]
            return Num(float(self.data[column]), spec)
        if name in ("note", "commit", "timing", "device", "variant", "chapter", "status"):
            return self.data.get(name, "")
        raise AttributeError(f"a results row has no field '{name}'")


class Sources:
    """The CSVs of docs/figures (and of its GPU folders), each read once."""

    def __init__(self, figures=FIGURES):
        self.figures = pathlib.Path(figures)
        self.cache = {}

    def load(self, name):
        """name: 'results', 'h100/profile', 'experiments' (.csv implied), or 'diagrams/inputs.json'."""
        if name not in self.cache:
            path = self.figures / (name if name.endswith(".json") else name + ".csv")
            if not path.exists():
                raise ValueError(f"{path.relative_to(ROOT)} does not exist")
            with open(path, newline="") as f:
                self.cache[name] = json.load(f) if name.endswith(".json") else list(csv.DictReader(f))
        return self.cache[name]

    def _file(self, folder, kind):
        return f"{folder}/{kind}" if folder else kind

    def results_row(self, v, size=4096):
        folder, name = _split(v)
        chapter, _, variant = name.rpartition(":")
        want = _size(size)
        rows = self.load(self._file(folder, "results"))
        hits = [i for i, r in enumerate(rows)
                if r["variant"] == variant and (not chapter or r["chapter"] == chapter)
                and (int(r["m"]), int(r["n"]), int(r["k"])) == want]
        if not hits:
            raise ValueError(f"no row for variant '{variant}' at {'x'.join(map(str, want))} in "
                             f"{self._file(folder, 'results')}.csv")
        chapters = {rows[i]["chapter"] for i in hits}
        if len(chapters) > 1:
            raise ValueError(f"'{variant}' is in several chapters ({', '.join(sorted(chapters))}): "
                             "write CHAPTER:VARIANT")
        return rows, hits[-1]

    def row(self, v, size=4096):
        rows, i = self.results_row(v, size)
        return Row(rows[i])

    def base(self, v, size=4096):
        """The cuBLAS row of the same precision and size written last before v's row: the
        baseline of v's own process (each program writes its cuBLAS row first)."""
        rows, i = self.results_row(v, size)
        r = rows[i]
        for j in range(i - 1, -1, -1):
            b = rows[j]
            if (b["chapter"] == "cublas" and b["precision"] == r["precision"]
                    and (b["m"], b["n"], b["k"]) == (r["m"], r["n"], r["k"])
                    and ("@" in b["variant"]) == ("@" in r["variant"])):
                return Row(b)
        raise ValueError(f"no cuBLAS row before '{v}' in its CSV")

    def prof(self, v, field):
        folder, variant = _split(v)
        rows = [r for r in self.load(self._file(folder, "profile")) if r["variant"] == variant]
        if not rows:
            raise ValueError(f"no Nsight Compute row for '{variant}' in {self._file(folder, 'profile')}.csv")
        if field not in rows[0]:
            raise ValueError(f"profile.csv has no column '{field}'")
        spec = "{:.1f}%" if field.endswith("_pct") else ("{:,.0f}" if field.endswith(("_mb", "bytes")) else
                                                          "{:,.3f}" if field.endswith("_ms") else "{:,.1f}")
        return Num(num(rows[-1][field]), spec)

    def res(self, kernel, field):
        folder, name = _split(kernel)
        rows = [r for r in self.load(self._file(folder, "resources")) if r["kernel"] == name]
        if not rows:
            raise ValueError(f"no row for kernel '{name}' in {self._file(folder, 'resources')}.csv")
        spec = "{:.1f}%" if field == "occupancy_pct" else "{:,.0f}"
        return Num(num(rows[-1][field]), spec)

    def sass(self, kernel, column):
        folder, name = _split(kernel)
        rows = [r for r in self.load(self._file(folder, "sass")) if r["kernel"] == name]
        if not rows:
            raise ValueError(f"no row for kernel '{name}' in {self._file(folder, 'sass')}.csv")
        value = rows[-1][column]
        return Num(num(value), "{:,.0f}" if "/" not in column else "{:.1f}") if value not in ("", "-") else value

    def mach(self, quantity):
        folder, name = _split(quantity)
        rows = self.load(self._file(folder, "machine"))
        full = lambda r: f"{r['level']} {r['quantity']}"  # "DRAM read bandwidth"
        hits = [r for r in rows if name in (r["quantity"], full(r))] or \
               [r for r in rows if r["quantity"].startswith(name) or full(r).startswith(name)]
        if len(hits) != 1:
            raise ValueError(f"machine.csv: {len(hits)} quantities match '{name}'")
        v = float(hits[0]["value"])
        return Num(v, "{:,.0f}" if v >= 100 else "{:,.1f}")

    def sweep(self, params, field):
        rows = [r for r in self.load("tile_sweep_04") if r["params"] == params]
        if not rows:
            raise ValueError(f"no tile_sweep_04.csv row with params '{params}'")
        spec = {"pct_of_cublas": "{:.1f}%", "median_ms": "{:.3f}", "gflops": "{:,.0f}"}.get(field, "{:,.0f}")
        return Num(num(rows[-1][field]), spec)

    def rows(self, name, **where):
        return [r for r in self.load(name) if all(r.get(k) == str(v) for k, v in where.items())]

    def col(self, name, column, **where):
        """The numbers of one column of a CSV, over the rows that match: col("h100/timing_samples",
        "ms", variant="wgmma_persistent", timing="alone")."""
        return [num(r[column]) for r in self.rows(name, **where)]

    # The columns that tell one process of scripts/measure/power_limit.sh from another.
    PROCESS = ("pass", "seed", "m", "n", "k", "timing", "order")

    def ratio(self, name, column, variant, baseline, **where):
        """100 x `variant`'s `column` / `baseline`'s in the same process, one value per process
        that has a row of each. ratio("h100/power_limit/ways_energy",
        "joules_per_gemm", "wgmma_persistent", "cublas_gemm_f16_f32acc", m="4096")."""
        def key(r):
            return tuple(r.get(c) for c in self.PROCESS)
        base = {}
        for r in self.rows(name, variant=baseline, **where):
            if key(r) in base:
                raise ValueError(f"{name}.csv: two '{baseline}' rows in one process {key(r)}")
            base[key(r)] = num(r[column])
        out = [100.0 * num(r[column]) / base[key(r)]
               for r in self.rows(name, variant=variant, **where) if key(r) in base]
        if not out:
            raise ValueError(f"{name}.csv: no process with both '{variant}' and '{baseline}' "
                             f"matches {where}")
        return out

    def rec(self, key):
        hits = []
        for path in sorted((self.figures / "records").glob("*.csv")):
            hits += [r for r in self.load(f"records/{path.stem}") if r["key"] == key]
        if len(hits) != 1:
            raise ValueError(f"docs/figures/records/*.csv: {len(hits)} rows with key '{key}'")
        text = hits[0]["value"]
        digits = len(text.partition(".")[2]) if "." in text else 0
        return Num(float(text), "{:,.%df}" % digits + hits[0].get("suffix", ""))

    def const(self, path):
        node = self.load("diagrams/inputs.json")
        for part in path.split("."):
            if isinstance(node, list):
                node = node[int(part)]
            elif part in node:
                node = node[part]
            else:
                raise ValueError(f"inputs.json has no '{path}' (no '{part}')")
        return node

    def namespace(self):
        src = self
        ns = {"row": src.row, "base": src.base, "prof": src.prof, "res": src.res, "sass": src.sass,
              "mach": src.mach, "sweep": src.sweep, "rows": src.rows, "col": src.col, "rec": src.rec,
              "ratio": src.ratio, "span": span,
              "const": src.const, "num": num, "gflop": gflop, "fmt": fmt, "pc": pc, "n": n,
              "times": times, "rng": rng, "Num": Num, "min": min, "max": max, "abs": abs,
              "round": round, "len": len, "sum": sum, "zip": zip, "sorted": sorted, "math": math, "median": statistics.median,
              "pct": lambda v, size=4096: src.row(v, size).pct,
              "tflops": lambda v, size=4096: src.row(v, size).tflops,
              "gflops": lambda v, size=4096: src.row(v, size).gflops,
              "ms": lambda v, size=4096: src.row(v, size).ms}
        return ns


def render(value):
    if isinstance(value, str):
        return value
    if isinstance(value, Num):
        return str(value)
    if isinstance(value, bool):
        raise ValueError("the expression gives a truth value, not a figure")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        raise ValueError(f"a computed value ({value!r}) needs a format: fmt(x, '{{:.1f}}'), pc(x), "
                         "n(x), times(x)")
    raise ValueError(f"the expression gives a {type(value).__name__}, not a figure")


def fill(text, sources, where="?"):
    """text with every marker's value rewritten from its expression. Errors name the file and
    line."""
    ns = sources.namespace()

    def one(m):
        line = text.count("\n", 0, m.start()) + 1
        try:
            # The helpers as globals, so that a comprehension inside an expression sees them too.
            value = render(eval(m.group("expr"), {"__builtins__": {}, **ns}))  # noqa: S307
        except Exception as e:  # the page's author needs the place and the reason, whatever it is
            raise SystemExit(f"{where}:{line}: <!--= {m.group('expr')} -->: {e}") from None
        return f"<!--= {m.group('expr')} -->{value}<!--/-->"

    return MARKER.sub(one, text)


# ---- The lint: figures that look measured but are not in a marker. ----------------------------

# A number with a unit that only a measurement (or a sum of measurements) gives.
MEASURED = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s?(?:-|to)\s?\d[\d,]*(?:\.\d+)?)?"
    r"(x(?![\w])|\s?(?:%|ms\b|µs|us\b|ns\b|TFLOPS|GFLOPS|TB/s|GB/s|MHz|GHz|mJ\b|J\b|W\b|cycles\b"
    r"|[KMG]i?B\b|GFLOP\b|TFLOP\b))")
# Exact percentages that follow from definitions, not from a run.
EXACT = {"0%", "100%", "50%", "25%", "75%"}


def strip_unchecked(text):
    """text with what the lint does not read blanked out (same line count): fenced code, inline
    code, generated tables, markers, HTML comments, link targets and image paths."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r"^```.*?^```", blank, text, flags=re.S | re.M)
    text = re.sub(r"<!-- ([\w-]+)(?::[^ ]*)? -->\n.*?<!-- /\1 -->", blank, text, flags=re.S)
    text = MARKER.sub(blank, text)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", blank, text)
    text = re.sub(r"\]\([^)\n]*\)", blank, text)
    return text


def lint(text):
    """[(line, figure)] for every measured-looking figure outside a marker."""
    found = []
    clean = strip_unchecked(text)
    for i, line in enumerate(clean.split("\n"), 1):
        for m in MEASURED.finditer(line):
            figure = m.group(0).strip()
            if figure in EXACT or re.fullmatch(r"\d+x", figure) and m.group(2) == "x":
                continue  # 100%, or a shape or factor like "4x" (exact, not measured)
            found.append((i, figure))
    return found


def selftest():
    """The generator must reject what it exists to catch: a stale figure, a figure typed by hand, an
    expression that reads nothing. Returns the number of failed checks (the ctest
    doc_numbers_selftest runs it)."""
    sources = Sources()
    failures = []

    def expect(what, ok):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    row = next(r for r in sources.load("results") if r["chapter"] == "01_naive")
    size = "x".join(row[d] for d in "mnk")
    stale = f'<!--= ms("{row["variant"]}", "{size}") -->999.999<!--/-->'
    fresh = fill(stale, sources, "selftest")
    expect("a stale figure is rewritten from its CSV row",
           fresh != stale and f"-->{float(row['median_ms']):.3f}<!--/-->" in fresh)
    expect("a filled figure is left as it is", fill(fresh, sources, "selftest") == fresh)
    expect("a derived figure is computed: 512 x 512 x 16384 is 8.6 GFLOP",
           "-->8.6<!--/-->" in fill('<!--= fmt(gflop(512, 512, 16384), "{:.1f}") -->16<!--/-->',
                                    sources, "selftest"))
    for bad in ('<!--= pct("no_such_variant") -->1%<!--/-->', '<!--= 1.0 / 3 -->0.3<!--/-->'):
        try:
            fill(bad, sources, "selftest")
            expect(f"an expression that cannot give a figure fails: {bad}", False)
        except SystemExit:
            expect(f"an expression that cannot give a figure fails: {bad}", True)
    expect("span() gives a list's range, or one value where both ends print the same",
           span([3.0, 1.04, 2.0], "{:.1f}%") == "1.0-3.0%" and span([2.01, 1.99], "{:.1f}") == "2.0")
    # ratio(): a process is the rows of one pass, seed, size, timing or order; the baseline's row
    # of the same process divides, and a process without it is left out.
    sources.cache["selftest_ratio"] = [
        {"pass": "1", "seed": "1", "m": "8", "variant": "base", "ms": "2"},
        {"pass": "1", "seed": "1", "m": "8", "variant": "ours", "ms": "1"},
        {"pass": "1", "seed": "2", "m": "8", "variant": "base", "ms": "4"},
        {"pass": "1", "seed": "2", "m": "8", "variant": "ours", "ms": "3"},
        {"pass": "2", "seed": "1", "m": "8", "variant": "base", "ms": "5"}]
    expect("ratio() divides by the baseline of the same process, one value per process",
           sources.ratio("selftest_ratio", "ms", "ours", "base") == [50.0, 75.0]
           and sources.ratio("selftest_ratio", "ms", "base", "ours", seed="2") == [400.0 / 3])
    try:
        sources.ratio("selftest_ratio", "ms", "ours", "base", **{"pass": "9"})
        expect("ratio() with no matching process fails", False)
    except ValueError:
        expect("ratio() with no matching process fails", True)
    typed = "It runs at 92.1% of cuBLAS, 47.3 TFLOPS, 1.5x faster, moving 4,335 MB in 2.9 ms."
    expect("the lint finds every figure typed by hand",
           [f for _, f in lint(typed)] == ["92.1%", "47.3 TFLOPS", "1.5x", "4,335 MB", "2.9 ms"])
    exempt = ("A `1.2 ms` code span, a 128 x 128 tile, 100% of the rows, " + fresh +
              ", and <!-- results:01_naive -->\n| 3.5 ms |\n<!-- /results -->")
    expect("the lint skips code, shapes, exact percentages, markers and generated tables",
           lint(exempt) == [])
    return len(failures)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] != ["--selftest"]:
        sys.exit("usage: python3 scripts/docs/doc_numbers.py --selftest   (the generator runs through "
                 "scripts/docs/results_table.py --update/--check/--lint)")
    sys.exit(1 if selftest() else 0)
