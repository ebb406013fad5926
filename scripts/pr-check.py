#!/usr/bin/env python3
"""The pull-request check of action.yml: download kubectl-arc, run `kubectl arc diff`, report.

Steps, each a subcommand the action runs (and the tests run with GITHUB_* files of their own):

  install   the release archive for the runner's platform (RUNNER_OS, RUNNER_ARCH) from
            ARC_RELEASE_URL/ARC_VERSION/, checked against that release's SHA256SUMS, unpacked into
            ARC_CACHE_DIR/ARC_VERSION/TARGET/ (which actions/cache keeps); a cached copy is checked
            again. Writes `bin=PATH` to GITHUB_OUTPUT.
  check     `kubectl arc diff` of ARC_FILES (or of ARC_RENDER's output) with ARC_ARGS: the JSON
            report (a file; the `report` output), a Markdown job summary (GITHUB_STEP_SUMMARY: one
            row per scale set, what recycles, its impact on running work and why, then the
            impact's totals), the `-o github` annotations within GitHub's budget, the `recycle`
            output, and the exit status ARC_FAIL_ON asks for (`jobs` runs both diffs with
            `--fail-on jobs`: exit 1 only where new jobs wait for running ones).

Annotations: GitHub shows 10 errors, 10 warnings and 10 notices per step and drops the rest
silently. The annotations of `kubectl arc diff -o github` are put in order (what recycles runners
first, each message opening with the impact on running work; then legacy recycle loops; then the
rest; each in the report's order) and, where a level has more than ten, the first nine are written
and a tenth counts the others. Each annotation attached to the rendered file gets `line=`, the line
in that file of the first field that changes (found by `locate` below; the manifest's own line when
no field is found).
"""

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import urllib.request
import zipfile

BUDGET = 10  # GitHub's annotations shown per level and step
LEVELS = ("error", "warning", "notice")
FAIL_ON = ("recycle", "jobs", "error", "never")


def fail(message):
    print(f"::error title=kubectl-arc action::{escape_data(message)}")
    print(f"kubectl-arc action: {message}", file=sys.stderr)
    sys.exit(2)


def escape_data(s):
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def env(name, default=None):
    value = os.environ.get(name, "")
    if value == "":
        if default is None:
            fail(f"{name} is not set")
        return default
    return value


def write_output(name, value):
    path = os.environ.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{name}={value}\n")


# --- install ------------------------------------------------------------------------------------

TARGETS = {
    ("Linux", "X64"): ("x86_64-unknown-linux-musl", "tar.gz"),
    ("Linux", "ARM64"): ("aarch64-unknown-linux-musl", "tar.gz"),
    ("macOS", "X64"): ("x86_64-apple-darwin", "tar.gz"),
    ("macOS", "ARM64"): ("aarch64-apple-darwin", "tar.gz"),
    ("Windows", "X64"): ("x86_64-pc-windows-msvc", "zip"),
}


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download(url, dest):
    with urllib.request.urlopen(url, timeout=60) as r, open(dest, "wb") as f:
        while chunk := r.read(1 << 20):
            f.write(chunk)


def install():
    version = env("ARC_VERSION")
    if not re.fullmatch(r"v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", version):
        fail(f"version: {version!r} is not a release tag (v1.2.3)")
    target = os.environ.get("ARC_TARGET") or None
    if target is None:
        key = (env("RUNNER_OS"), env("RUNNER_ARCH"))
        if key not in TARGETS:
            fail(f"no kubectl-arc release for {key[0]} {key[1]}")
        target, ext = TARGETS[key]
    else:
        ext = "zip" if "-windows-" in target else "tar.gz"
    archive = f"kubectl-arc-{version}-{target}.{ext}"
    base = env("ARC_RELEASE_URL").rstrip("/") + f"/{version}/"
    cache = os.path.join(env("ARC_CACHE_DIR"), version, target)
    exe = "kubectl-arc.exe" if ext == "zip" else "kubectl-arc"
    os.makedirs(cache, exist_ok=True)
    sums_path = os.path.join(cache, "SHA256SUMS")
    archive_path = os.path.join(cache, archive)
    if not (os.path.exists(sums_path) and os.path.exists(archive_path)):
        try:
            download(base + "SHA256SUMS", sums_path + ".part")
            download(base + archive, archive_path + ".part")
        except OSError as e:
            fail(f"cannot download {base}: {e}")
        os.replace(sums_path + ".part", sums_path)
        os.replace(archive_path + ".part", archive_path)
    want = None
    with open(sums_path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[1].lstrip("*") == archive:
                want = parts[0].lower()
    got = sha256_of(archive_path)
    if want != got:
        # Not kept: the next run downloads again rather than trusting it.
        os.remove(archive_path)
        os.remove(sums_path)
        fail(
            f"{archive}: sha256 {got} does not match SHA256SUMS ({want or 'not listed'}); "
            "refusing to run it"
        )
    unpacked = os.path.join(cache, "bin")
    os.makedirs(unpacked, exist_ok=True)
    if ext == "zip":
        with zipfile.ZipFile(archive_path) as z:
            z.extract(exe, unpacked)
    else:
        with tarfile.open(archive_path) as t:
            t.extract(exe, unpacked, filter="data")
    path = os.path.join(unpacked, exe)
    os.chmod(path, 0o755)
    print(f"kubectl-arc {version} ({target}): {archive} sha256 {got} verified")
    write_output("bin", path)


# --- check --------------------------------------------------------------------------------------


def vlines(text):
    """Block YAML as (line number, indent, kind, text): a `- x` line is an `item` at the dash's
    indent and `x` as text two columns further; block scalars and comments are skipped."""
    out = []
    scalar_indent = None
    for n, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        indent = len(raw) - len(raw.lstrip(" "))
        if scalar_indent is not None:
            if stripped == "" or indent > scalar_indent:
                continue
            scalar_indent = None
        if stripped == "" or stripped.startswith("#"):
            continue
        rest, col = raw[indent:], indent
        while rest.startswith("- ") or rest == "-":
            out.append((n, col, "item", ""))
            rest = rest[2:].lstrip(" ")
            col += 2
        if rest:
            out.append((n, col, "text", rest))
            if re.search(r":\s*[|>][-+0-9]*\s*(#.*)?$", rest):
                scalar_indent = col
    return out


def key_of(text):
    m = re.match(r"""^(?:"([^"]*)"|'([^']*)'|([^:#{}\[\],]+?))\s*:(?:\s|$)""", text)
    if not m:
        return None
    return next(g for g in m.groups() if g is not None)


def locate(text, path):
    """The line of `path` (`spec.template.spec.containers[0].image`) in the block-YAML document
    `text`, or that of its nearest ancestor that is there; None if not even the first."""
    segs = []
    for part in re.finditer(r"([^.\[\]]+)|\[(\d+)\]", path):
        segs.append(part.group(1) if part.group(1) is not None else int(part.group(2)))
    vl = vlines(text)
    lo, hi, parent = 0, len(vl), -1
    found = None
    for seg in segs:
        block = [i for i in range(lo, hi)]
        if not block:
            break
        child = min(vl[i][1] for i in block)
        hit = None
        if isinstance(seg, str):
            for i in block:
                if vl[i][1] == child and vl[i][2] == "text" and key_of(vl[i][3]) == seg:
                    hit = i
                    break
            if hit is None:
                break
            end = hit + 1
            while end < hi and (
                vl[end][1] > child or (vl[end][1] == child and vl[end][2] == "item")
            ):
                end += 1
        else:
            items = [i for i in block if vl[i][1] == child and vl[i][2] == "item"]
            if seg >= len(items):
                break
            hit = items[seg]
            end = hit + 1
            while end < hi and vl[end][1] > child:
                end += 1
        found = vl[hit][0]
        lo, hi, parent = hit + 1, end, child
    return found


def documents(text):
    """The documents of a YAML stream with the line each starts on (1-based)."""
    docs, start, cur = [], 1, []
    for n, line in enumerate(text.split("\n"), start=1):
        if re.match(r"^---(\s|$)", line):
            if any(s.strip() and not s.strip().startswith("#") for s in cur):
                docs.append((start, "\n".join(cur)))
            cur, start = [], n + 1
            continue
        cur.append(line)
    if any(s.strip() and not s.strip().startswith("#") for s in cur):
        docs.append((start, "\n".join(cur)))
    return docs


# An origin as kubectl-arc writes it (src/input.rs): `PATH`, `#DOCUMENT` (from 1, when the file has
# several) and `[ITEM]` for each enclosing List.
ORIGIN = re.compile(r"\((?P<file>[^()]+?)(?:#(?P<doc>\d+))?(?P<items>(?:\[\d+\])*)\)$")


def origin_of(desired_from):
    """`AutoscalingRunnerSet ns/name (file.yaml#2[0])` -> ("file.yaml", 1, [0])."""
    m = ORIGIN.search(desired_from or "")
    if not m:
        return None, 0, []
    doc = int(m.group("doc")) - 1 if m.group("doc") else 0
    return m.group("file"), doc, [int(i) for i in re.findall(r"\[(\d+)\]", m.group("items"))]


_DOCUMENTS = {}


def documents_of(file):
    """The documents of `file`, read and split once per run (a render of 2,000 scale sets is
    annotated without reading it 2,000 times)."""
    if file not in _DOCUMENTS:
        with open(file, encoding="utf-8") as f:
            _DOCUMENTS[file] = documents(f.read())
    return _DOCUMENTS[file]


def in_manifest(path):
    """Where a difference's path sits in the AutoscalingRunnerSet: a runner spec's fields
    (`spec.containers[0].image`, `metadata.labels`) are the pod template's; the other fields of
    the scale set's spec (`githubConfigUrl`, `template.spec...`, `proxy`) are under `spec.`."""
    head = re.split(r"[.\[]", path, maxsplit=1)[0]
    return ("spec.template." if head in ("spec", "metadata") else "spec.") + path


def decides(item):
    """The differences that make the release in use act, first: every difference where a hash
    decides (any change of a hashed field replaces or cleans up), the semantic ones where the
    revision era's Semantic equality decides."""
    differences = item.get("differences") or []
    if item.get("mechanism") == "ActionableRevision":
        return [d for d in differences if d.get("semantic")], [
            d for d in differences if not d.get("semantic")
        ]
    if item.get("recycle"):
        return differences, []
    return [], differences


def line_of(item, loop=False):
    """The line in the rendered file of the first field of `item` that makes the release in use
    act (with `loop`, the first field that makes an integrity-hash-era ARC loop)."""
    file, doc, items = origin_of(item.get("desiredFrom"))
    if file is None or not os.path.isfile(file):
        return None, None
    docs = documents_of(file)
    if doc >= len(docs):
        return file, None
    start, text = docs[doc]
    prefix = "".join(f"items[{i}]." for i in items)
    acting, others = decides(item)
    acting = [in_manifest(d["path"]) for d in acting]
    looping = [in_manifest(p) for p in item.get("legacyRecycleLoopPaths") or []]
    # ARC up to 0.14: what changed in the scale set itself (paths from the object) first.
    changed = [d["path"] for d in item.get("scaleSetDifferences") or []]
    paths = (looping + changed + acting) if loop else (changed + acting + looping)
    paths += [in_manifest(d["path"]) for d in others]
    for path in paths:
        line = locate(text, prefix + path)
        if line is not None:
            return file, start - 1 + line
    line = locate(text, prefix + "kind")
    return file, (start - 1 + line) if line else start


COMMAND = re.compile(r"^::(?P<level>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<msg>.*)$")


def props_of(s):
    out = []
    for part in re.split(r",(?=[a-zA-Z]+=)", s or ""):
        if "=" in part:
            k, v = part.split("=", 1)
            out.append((k, v))
    return out


def unescape_prop(s):
    return s.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def escape_prop(s):
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def rank(level, title):
    """Most important first: errors; ARC recycling runners; a legacy loop; the rest."""
    if level == "warning":
        return 1 if title.startswith("Integrity-hash-era") else 0
    return 0


def budget(annotations):
    """At most BUDGET per level: the first BUDGET-1 and a last one counting the others."""
    out = []
    for level in LEVELS:
        these = [a for a in annotations if a["level"] == level]
        these.sort(key=lambda a: rank(level, a["title"]))  # stable: report order within a rank
        if len(these) <= BUDGET:
            out += these
            continue
        out += these[: BUDGET - 1]
        rest = len(these) - (BUDGET - 1)
        noun = {"error": "errors", "warning": "warnings", "notice": "notices"}[level]
        out.append(
            {
                "level": level,
                "props": [("title", f"kubectl arc diff: {rest} more {noun}")],
                "title": "",
                "synthetic": True,
                "msg": f"{rest} more {noun} are not shown as annotations (GitHub shows {BUDGET} "
                "per step); the job summary lists every scale set.",
            }
        )
    return out


def scale_set_of(title):
    m = re.search(r"scale set (\S+?/\S+?)( forever)?$", title)
    return m.group(1) if m else None


def hashes(pair):
    """`current -> desired` of a hash pair of the report (`<none>` for a set without one)."""
    return f"`{pair.get('current') or '<none>'}` -> `{pair.get('desired', '')}`"


def why(item):
    """Why the release in use acts or not, by that release's rule: the runner-spec hash (ARC up
    to 0.14), the integrity hash, or the revision era's Semantic equality, where alone a
    strict-only difference is one ARC does not act on."""
    parts = []
    mechanism = item.get("mechanism")
    release = item.get("release")
    spec_hash = item.get("runnerSpecHash")
    integrity = item.get("integrityHash")
    if mechanism == "RunnerSpecHash" and spec_hash:
        parts.append(f"runner-spec hash of ARC {release or '?'}: {hashes(spec_hash)}")
    elif mechanism == "IntegrityHash" and integrity:
        parts.append(f"integrity hash: {hashes(integrity)}")
        stored = integrity.get("stored")
        if stored and stored != integrity.get("current"):
            parts.append(
                f"cleanup pending: the set as stored hashes to `{stored}`, so its controller deletes idle and pending runners next"
            )
    changed = item.get("scaleSetDifferences") or []
    if changed:
        parts.append(
            f"{len(changed)} changed in the AutoscalingRunnerSet's hashed fields: "
            + ", ".join(f"`{d['path']}` ({d.get('reason', '')})" for d in changed)
        )
    alternative = item.get("alternative")
    if alternative:
        verb = "replaces" if alternative.get("recycle") else "keeps"
        parts.append(
            f"if the controller still runs ARC {alternative.get('release')}, it {verb} the set: "
            + hashes(alternative.get("runnerSpecHash") or {})
        )
    acting, others = decides(item)
    if changed:
        acting, others = [], []
    if acting:
        noun = "semantic" if mechanism == "ActionableRevision" else "changed"
        parts.append(
            f"{len(acting)} {noun}: "
            + ", ".join(f"`{d['path']}` ({d.get('reason', '')})" for d in acting)
        )
    if item.get("legacyRecycleLoop"):
        parts.append(
            "loops on an integrity-hash-era ARC: "
            + ", ".join(f"`{p}`" for p in item.get("legacyRecycleLoopPaths") or [])
        )
    if others and mechanism == "ActionableRevision":
        parts.append(f"{len(others)} strict-only (ARC does not act)")
    elif others:
        parts.append(
            f"{len(others)} outside the hash (ARC does not act; reaches runners when the set is next replaced): "
            + ", ".join(f"`{d['path']}`" for d in others)
        )
    if item.get("note"):
        parts.append(item["note"])
    if item.get("error"):
        parts.append(f"error: {item['error']}")
    return "; ".join(parts) or "no difference"


def verdict_of(item):
    """The summary's verdict: the item's `recycle`, which the exit code follows, said by the rule
    of the release that decides (replaced, cleaned up, revision bumped)."""
    if item.get("error"):
        return "error"
    if item.get("new"):
        return "new: nothing to recycle"
    if not item.get("recycle"):
        return "no"
    mechanism = item.get("mechanism")
    if mechanism == "RunnerSpecHash":
        return f"**yes**: ARC {item.get('release') or '?'} replaces the set"
    if mechanism == "IntegrityHash":
        return "**yes**: idle and pending runners cleaned up"
    return "**yes**: revision bumped"


def plural(n, one, many):
    return f"{n} {one if n == 1 else many}"


BUSY_NAMED = 3  # src/render/impact.rs: how many busy runners are named before the rest are counted


def job(busy):
    """One busy runner's job, as src/render/impact.rs's `job`: `acme/api: build, run 812` (the
    runner's name when its status has no job details)."""
    s = busy.get("jobRepositoryName") or ""
    if busy.get("jobDisplayName"):
        s += (": " if s else "") + busy["jobDisplayName"]
    if busy.get("workflowRunId") is not None:
        s += (", " if s else "") + f"run {busy['workflowRunId']}"
    return s or busy.get("name", "")


def impact_words(impact):
    """An item's `impact` in the words of src/render/impact.rs's `clause`, shortened for a table
    cell: what is deleted now, which jobs finish first, whether new jobs wait and job pickup
    pauses. Empty for an item without one."""
    if not impact:
        return ""
    parts = []
    waits = impact.get("waitsForJobs")
    if not impact.get("runnersKnown"):
        parts.append("runners not in the input (add ephemeralrunners to the dump): who is hit is not known")
    else:
        idle, pending, deleted = impact.get("idle", 0), impact.get("pending", 0), impact.get("deleted", 0)
        terminated = deleted - idle - pending
        now = [f"{idle} idle"] if idle else []
        now += [f"{pending} pending"] if pending else []
        now += [f"{terminated} finished or failed"] if terminated > 0 else []
        if deleted:
            parts.append(f"{plural(deleted, 'runner', 'runners')} deleted now ({', '.join(now)})")
        busy = impact.get("busy") or []
        if busy:
            named = [job(b) for b in busy[:BUSY_NAMED]]
            if len(busy) > BUSY_NAMED:
                named.append(f"and {len(busy) - BUSY_NAMED} more")
            what = "busy runner finishes its job" if len(busy) == 1 else "busy runners finish their jobs"
            parts.append(f"{len(busy)} {what} first ({'; '.join(named)})")
        unregistered = impact.get("unregistered", 0)
        if unregistered:
            parts.append(
                f"{plural(unregistered, 'runner', 'runners')} not registered with GitHub "
                f"(status.runnerId 0) {'stays' if unregistered == 1 else 'stay'} and the cleanup "
                "retries (ARC #4653)"
            )
        if not parts and not waits:
            parts.append("no runner is deleted")
    if waits:
        wait = "new jobs wait until the set's running and pending runners are gone"
        if impact.get("idleRunnersHoldTheWait"):
            wait += " (idle runners count as running and, without a listener, nothing removes them)"
        parts.append(wait)
    if impact.get("jobPickupPauses"):
        parts.append(
            "no job is picked up until the listener is made again after that"
            if waits
            else "job pickup pauses while the listener is made again"
        )
    strategy = impact.get("updateStrategy")
    if strategy:
        parts.append(f"update strategy {strategy.get('value')}: {strategy.get('from')}")
    return "; ".join(parts)


def totals_words(totals):
    """The report's `impact` totals, as src/render/impact.rs's `totals_line` says them."""
    sets, unknown = totals.get("scaleSets", 0), totals.get("runnersUnknown", 0)
    parts = []
    if unknown < sets:
        busy = totals.get("busy", 0)
        parts.append(f"{plural(totals.get('deleted', 0), 'runner', 'runners')} deleted now")
        parts.append(
            f"{plural(busy, 'busy runner', 'busy runners')} finishing "
            f"{'its job' if busy == 1 else 'their jobs'} first"
        )
    if totals.get("jobPickupPauses"):
        parts.append(f"job pickup pauses for {plural(totals['jobPickupPauses'], 'scale set', 'scale sets')}")
    if totals.get("waitsForJobs"):
        parts.append(
            f"new jobs wait for running ones in {plural(totals['waitsForJobs'], 'scale set', 'scale sets')}"
        )
    line = f"on {plural(sets, 'scale set', 'scale sets')}"
    if parts:
        line += ": " + ", ".join(parts)
    if unknown:
        line += f" ({unknown} without {'its' if unknown == 1 else 'their'} runners in the input: not counted)"
    return line


def md(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def summary(report, footer):
    lines = ["## kubectl arc diff", ""]
    items = report.get("items", [])
    if items:
        lines += ["| Scale set | Recycles runners | Impact | Why |", "|---|---|---|---|"]
        for it in items:
            name = f"{it.get('namespace', '')}/{it.get('name', '')}"
            impact = md(impact_words(it.get("impact")))
            lines.append(f"| `{md(name)}` | {verdict_of(it)} | {impact} | {md(why(it))} |")
        lines.append("")
    else:
        lines += ["No scale set in the change.", ""]
    if report.get("impact"):
        lines += [f"**Impact** {md(totals_words(report['impact']))}", ""]
    if footer:
        lines += [footer, ""]
    return "\n".join(lines) + "\n"


def check():
    binary = env("ARC_BIN")
    fail_on = env("ARC_FAIL_ON", "error")
    if fail_on not in FAIL_ON:
        fail(f"fail-on: {fail_on!r} is not one of {', '.join(FAIL_ON)}")
    args = shlex.split(os.environ.get("ARC_ARGS", ""))
    files = os.environ.get("ARC_FILES", "").split()
    render = os.environ.get("ARC_RENDER", "").strip()
    out_dir = os.path.join(env("RUNNER_TEMP"), "kubectl-arc")
    os.makedirs(out_dir, exist_ok=True)
    if render:
        if files:
            fail("give files or render, not both")
        rendered = os.path.join(out_dir, "rendered.yaml")
        with open(rendered, "wb") as f:
            r = subprocess.run(["bash", "-eo", "pipefail", "-c", render], stdout=f)
        if r.returncode != 0:
            fail(f"render exited {r.returncode}: {render}")
        files = [rendered]
    if not files:
        fail("give files or render")
    f_args = [a for f in files for a in ("-f", f)]
    # `jobs`: kubectl-arc's own --fail-on decides, so its exit 1 (and the exit-code output) means
    # that work in flight is hit; the other values keep its default (`recycle`) and read its code.
    if fail_on == "jobs":
        args += ["--fail-on", "jobs"]
    report_path = os.path.join(out_dir, "report.json")
    with open(report_path, "wb") as f:
        j = subprocess.run([binary, "diff", *f_args, *args, "-o", "json"], stdout=f)
    g = subprocess.run(
        [binary, "diff", *f_args, *args, "-o", "github"], stdout=subprocess.PIPE, text=True
    )
    code = g.returncode
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError):
        report = {"items": []}
    by_name = {f"{it.get('namespace')}/{it.get('name')}": it for it in report.get("items", [])}
    annotations, footer = [], []
    for line in g.stdout.splitlines():
        m = COMMAND.match(line)
        if not m:
            footer.append(line)
            continue
        props = props_of(m.group("props"))
        title = unescape_prop(dict(props).get("title", ""))
        item = by_name.get(scale_set_of(title) or "")
        if item is not None:
            file, line_no = line_of(item, loop=title.startswith("Integrity-hash-era"))
            if line_no is not None and dict(props).get("file") == file:
                props = [(k, v) for k, v in props if k != "line"]
                at = [k for k, _ in props].index("file") + 1
                props.insert(at, ("line", str(line_no)))
        annotations.append({"level": m.group("level"), "props": props, "title": title, "msg": m.group("msg")})
    for a in budget(annotations):
        synthetic = a.get("synthetic", False)
        props = ",".join(f"{k}={escape_prop(v) if synthetic else v}" for k, v in a["props"])
        msg = escape_data(a["msg"]) if synthetic else a["msg"]
        print(f"::{a['level']} {props}::{msg}")
    for line in footer:
        print(line)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(summary(report, "\n".join(footer)))
    recycle = any(it.get("recycle") for it in report.get("items", []))
    write_output("recycle", "true" if recycle else "false")
    write_output("report", report_path)
    write_output("exit-code", str(code))
    if j.returncode != code:
        print(f"kubectl-arc action: -o json exited {j.returncode}, -o github {code}", file=sys.stderr)
    failed = {"recycle": code != 0, "jobs": code != 0, "error": code >= 2, "never": False}[fail_on]
    sys.exit(1 if failed else 0)


def main():
    step = sys.argv[1] if len(sys.argv) > 1 else ""
    if step == "install":
        install()
    elif step == "check":
        check()
    else:
        print("usage: pr-check.py install|check", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
