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

t0=$SECONDS
CARGO_TARGET_DIR="$target_dir" cargo build --locked --quiet --profile dist --bin kubectl-arc >&2
echo "release-local: dist build of $host took $((SECONDS - t0))s" >&2
archive=$(scripts/package.sh "$tag" "$host" "$target_dir/dist" "$outdir")
args=(--tag "$tag" --local "$archive")
[ -n "$base_url" ] && args+=(--base-url "$base_url")
python3 scripts/krew-manifest.py "${args[@]}" plugins/arc.yaml > "$outdir/arc.yaml"
echo "$archive"
