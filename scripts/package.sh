#!/usr/bin/env bash
# Pack one release archive, as the release workflow (.github/workflows/release.yml) and
# scripts/release-local.sh make it, and as plugins/arc.yaml names and unpacks it:
#
#   scripts/package.sh TAG TARGET BINDIR OUTDIR
#
# OUTDIR/kubectl-arc-TAG-TARGET.tar.gz (.zip for a Windows target) holding, at the top level,
# kubectl-arc (kubectl-arc.exe), LICENSE, README.md, docs/ (the pages README.md links) and
# completions/. kubectl's plugin completer is
# the same executable under another name: `kubectl arc completion install` links it.
# Prints the archive's path.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: scripts/package.sh TAG TARGET BINDIR OUTDIR" >&2; exit 2; }
tag=$1 target=$2 bindir=$3 outdir=$4
case "$tag" in v[0-9]*) ;; *) echo "package: TAG must look like v1.2.3, not $tag" >&2; exit 2 ;; esac
exe=kubectl-arc
case "$target" in *-windows-*) exe=kubectl-arc.exe ;; esac
[ -f "$bindir/$exe" ] || { echo "package: no $bindir/$exe" >&2; exit 1; }

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$bindir/$exe" "$stage/$exe"
cp "$root/LICENSE" "$root/README.md" "$stage/"
cp -R "$root/completions" "$stage/completions"
cp -R "$root/docs" "$stage/docs"

name="kubectl-arc-$tag-$target"
case "$target" in
  *-windows-*)
    archive="$outdir/$name.zip"
    rm -f "$archive"
    # python3 is on every runner; its zipfile keeps the names as given (no leading directory).
    (cd "$stage" && python3 -m zipfile -c "$archive" "$exe" LICENSE README.md docs completions)
    ;;
  *)
    archive="$outdir/$name.tar.gz"
    # Reproducible metadata: owner, group and mode as a user would make them.
    tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$archive" \
      "$exe" LICENSE README.md docs completions 2>/dev/null ||
      tar -C "$stage" -czf "$archive" "$exe" LICENSE README.md docs completions
    ;;
esac
echo "$archive"
