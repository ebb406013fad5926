#!/usr/bin/env bash
# This machine's release archive and its krew manifest, as the release workflow makes them for
# each platform (.github/workflows/release.yml): the `dist` profile (release, stripped), packed by
# scripts/package.sh, the manifest rendered from plugins/arc.yaml by scripts/krew-manifest.py with
# the archive's real sha256.
#
#   scripts/release-local.sh OUTDIR [TAG] [BASE_URL]
#
# TAG defaults to v<Cargo.toml's version>; BASE_URL is where the archive will be served (the
# manifest's uri; default the template's GitHub release URL). The build goes to
# .cache/release-target (KUBECTL_ARC_RELEASE_TARGET_DIR overrides it), so a second run with the same
# sources builds nothing. Writes OUTDIR/<archive> and OUTDIR/arc.yaml; prints the archive's path.
#
# KUBECTL_ARC_RELEASE_BIN_DIR=DIR packs the kubectl-arc already built in DIR instead (no build):
# the test command packs its own test build, since what it checks is the packing, the manifest and
# krew's install, and a second, optimised build of the whole dependency tree would cost it a
# quarter of its cold time.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
[ $# -ge 1 ] || { echo "usage: scripts/release-local.sh OUTDIR [TAG] [BASE_URL]" >&2; exit 2; }
outdir=$1
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
tag=${2:-v$version}
base_url=${3:-}
target_dir=${KUBECTL_ARC_RELEASE_TARGET_DIR:-$root/.cache/release-target}
host=$(rustc -vV | sed -n 's/^host: //p')

bindir=${KUBECTL_ARC_RELEASE_BIN_DIR:-}
if [ -z "$bindir" ]; then
  t0=$SECONDS
  CARGO_TARGET_DIR="$target_dir" cargo build --locked --quiet --profile dist --bin kubectl-arc >&2
  echo "release-local: dist build of $host took $((SECONDS - t0))s" >&2
  bindir="$target_dir/dist"
fi
archive=$(scripts/package.sh "$tag" "$host" "$bindir" "$outdir")
args=(--tag "$tag" --local "$archive")
[ -n "$base_url" ] && args+=(--base-url "$base_url")
python3 scripts/krew-manifest.py "${args[@]}" plugins/arc.yaml > "$outdir/arc.yaml"
echo "$archive"
