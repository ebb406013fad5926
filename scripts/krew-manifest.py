#!/usr/bin/env python3
"""Render plugins/arc.yaml, a krew-release-bot template, as the bot does.

The bot (rajatjindal/krew-release-bot pkg/source/template.go, RenderTemplate) runs the file through
Go's text/template with two things: `{{ .TagName }}`, the release tag, and
`{{addURIAndSha "URL" .TagName }}`, which renders URL's own `{{ .TagName }}`, downloads it and
becomes `uri: URL` and, on the next line at four spaces, `sha256: HEX`. This renderer knows those
two actions and nothing else (any other `{{` is an error), and takes the checksums from files here
instead of downloading:

  krew-manifest.py --tag v1.2.3 --sums dist/SHA256SUMS plugins/arc.yaml
      every archive the template names must be in SHA256SUMS (the release workflow)
  krew-manifest.py --tag v1.2.3 --local ARCHIVE --base-url URL plugins/arc.yaml
      one platform, this machine's: its entry points at URL/ARCHIVE's name with ARCHIVE's real
      sha256, and the other platforms' entries are left out (scripts/release-local.sh)
  krew-manifest.py --tag v1.2.3 --placeholder plugins/arc.yaml
      every platform with a made-up checksum (of its archive's name), for structural checks

Writes the manifest to stdout; exit 2 on a template or checksum it cannot render.
"""

import argparse
import hashlib
import os
import re
import sys

TAG = re.compile(r"\{\{\s*\.TagName\s*\}\}")
ADD = re.compile(r'^(?P<indent>\s*)\{\{\s*addURIAndSha\s+"(?P<url>[^"]+)"\s+\.TagName\s*\}\}\s*$')

# An archive's name: kubectl-arc-TAG-TRIPLE.tar.gz or .zip (scripts/package.sh).
ARCHIVE = re.compile(r"-(?P<arch>x86_64|aarch64)-(?P<rest>[a-z0-9_-]+?)\.(tar\.gz|zip)$")
# Rust's names -> krew's (the os and arch labels of a platform selector).
KREW_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}
KREW_OS = (("-linux-", "linux"), ("apple-darwin", "darwin"), ("-windows-", "windows"))


def fail(message):
    print(f"krew-manifest: {message}", file=sys.stderr)
    sys.exit(2)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_sums(path):
    sums = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            digest, name = line.split(None, 1)
            sums[name.lstrip("*")] = digest
    return sums


def os_arch_of(name):
    """krew's (os, arch) of an archive named kubectl-arc-TAG-TRIPLE.{tar.gz,zip}."""
    m = ARCHIVE.search(name)
    if not m:
        return None, None
    rest = "-" + m.group("rest") + "-"
    os_ = next((krew for rust, krew in KREW_OS if rust in rest), None)
    return os_, KREW_ARCH[m.group("arch")]


def platform_blocks(lines):
    """Split the template's lines at each platform entry (`  - selector:`): head, [blocks]."""
    starts = [i for i, line in enumerate(lines) if line.startswith("  - selector:")]
    if not starts:
        return lines, []
    head = lines[: starts[0]]
    blocks = [lines[a:b] for a, b in zip(starts, starts[1:] + [len(lines)])]
    return head, blocks


def render(template, tag, checksum, keep):
    lines = template.splitlines()
    head, blocks = platform_blocks(lines)
    out = []
    for line in head:
        out.append(render_line(line, tag, checksum))
    for block in blocks:
        rendered = []
        url = None
        for line in block:
            m = ADD.match(line)
            if m:
                url = TAG.sub(tag, m.group("url"))
            rendered.append(render_line(line, tag, checksum))
        if url is None:
            fail("a platform without an addURIAndSha line")
        if keep(os.path.basename(url)):
            out.extend(rendered)
    return "\n".join(out) + "\n"


def render_line(line, tag, checksum):
    m = ADD.match(line)
    if m:
        url = TAG.sub(tag, m.group("url"))
        digest = checksum(os.path.basename(url))
        # As the bot: `uri:` where the action was, `sha256:` on the next line at four spaces.
        return f"{m.group('indent')}uri: {url}\n    sha256: {digest}"
    rendered = TAG.sub(tag, line)
    if "{{" in rendered:
        fail(f"cannot render {line.strip()!r}: only {{{{ .TagName }}}} and addURIAndSha are known")
    return rendered


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("template")
    p.add_argument("--tag", required=True)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--sums", help="SHA256SUMS naming every archive")
    g.add_argument("--local", help="this machine's archive: the one platform rendered")
    g.add_argument("--placeholder", action="store_true", help="made-up checksums")
    p.add_argument("--base-url", help="with --local: where the archive is served (default: the template's)")
    a = p.parse_args()
    if not re.fullmatch(r"v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", a.tag):
        fail(f"--tag {a.tag}: not a vMAJOR.MINOR.PATCH tag")
    with open(a.template, encoding="utf-8") as f:
        template = f.read()

    keep = lambda name: True  # noqa: E731
    if a.sums:
        sums = read_sums(a.sums)

        def checksum(name):
            if name not in sums:
                fail(f"{name}: named by the manifest but not in {a.sums}")
            return sums[name]

    elif a.local:
        local = os.path.basename(a.local)
        local_digest = sha256_of(a.local)
        want = os_arch_of(local)
        if None in want:
            fail(f"{local}: cannot tell its platform")

        def keep(name):  # noqa: F811
            return os_arch_of(name) == want

        def checksum(name):
            return local_digest if keep(name) else ""

    else:

        def checksum(name):
            # Not all digits: YAML would read 000...0 as a number.
            return hashlib.sha256(f"placeholder {name}".encode()).hexdigest()

    text = render(template, a.tag, checksum, keep)
    if a.local:
        names = re.findall(r"^\s*uri: (\S+)$", text, re.M)
        if len(names) != 1:
            fail(f"{local}: {len(names)} platforms of the manifest match its os/arch")
        base = a.base_url.rstrip("/") + "/" if a.base_url else names[0].rsplit("/", 1)[0] + "/"
        text = text.replace(f"uri: {names[0]}", f"uri: {base}{local}")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
