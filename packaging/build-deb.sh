#!/usr/bin/env bash
# Builds the Debian package of innodebt from this checkout with dpkg-deb:
#   packaging/build-deb.sh                 # release build, then target/debian/innodebt_VERSION_ARCH.deb
#   INNODEBT_BIN=path packaging/build-deb.sh   # package an already built binary (tests)
#   OUT_DIR=dir packaging/build-deb.sh         # write the .deb there
# The man pages and shell completions are what `innodebt man` and `innodebt completions` print.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { printf 'build-deb: %s\n' "$*" >&2; exit 1; }
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (apt-get install dpkg)"

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
[ -n "$version" ] || die "no version in Cargo.toml"
arch=$(dpkg --print-architecture)
bin=${INNODEBT_BIN:-}
if [ -z "$bin" ]; then
    cargo build --release --locked
    bin=target/release/innodebt
fi
[ -x "$bin" ] || die "$bin is not an executable"
out=${OUT_DIR:-target/debian}
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

install -D -m 0755 "$bin" "$root/usr/bin/innodebt"
if command -v strip >/dev/null; then
    strip --strip-unneeded "$root/usr/bin/innodebt"
fi
"$root/usr/bin/innodebt" man --out-dir "$stage/man" >/dev/null
for page in "$stage"/man/*.1; do
    install -D -m 0644 "$page" "$root/usr/share/man/man1/$(basename "$page")"
    gzip -9n "$root/usr/share/man/man1/$(basename "$page")"
done
mkdir -p "$stage/completions"
"$root/usr/bin/innodebt" completions bash > "$stage/completions/innodebt.bash"
"$root/usr/bin/innodebt" completions zsh > "$stage/completions/_innodebt"
"$root/usr/bin/innodebt" completions fish > "$stage/completions/innodebt.fish"
install -D -m 0644 "$stage/completions/innodebt.bash" "$root/usr/share/bash-completion/completions/innodebt"
install -D -m 0644 "$stage/completions/_innodebt" "$root/usr/share/zsh/vendor-completions/_innodebt"
install -D -m 0644 "$stage/completions/innodebt.fish" "$root/usr/share/fish/vendor_completions.d/innodebt.fish"
install -D -m 0644 packaging/debian/innodebt.service "$root/lib/systemd/system/innodebt.service"
install -D -m 0640 packaging/debian/innodebt.toml "$root/etc/innodebt/innodebt.toml"
install -D -m 0640 packaging/debian/my.cnf "$root/etc/innodebt/my.cnf"
install -D -m 0644 contrib/prometheus/alerts.yml "$root/usr/share/innodebt/prometheus/alerts.yml"
install -D -m 0644 contrib/grafana/innodebt.json "$root/usr/share/innodebt/grafana/innodebt.json"
install -D -m 0644 README.md "$root/usr/share/doc/innodebt/README.md"
gzip -9n "$root/usr/share/doc/innodebt/README.md"
# Who builds the package: the Debian packager's usual variables, else a placeholder.
maintainer="${DEBFULLNAME:-innodebt developers} <${DEBEMAIL:-innodebt@example.org}>"
# A native package's changelog (lintian: no-changelog), dated like the build.
build_date=$(date -R ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"})
cat > "$root/usr/share/doc/innodebt/changelog" <<CHANGELOG
innodebt ($version) unstable; urgency=medium

  * Built from the innodebt source tree (see README.md).

 -- $maintainer  $build_date
CHANGELOG
gzip -9n "$root/usr/share/doc/innodebt/changelog"
cat > "$root/usr/share/doc/innodebt/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: innodebt
Files: *
Copyright: the innodebt authors
License: see the source repository
COPYRIGHT

mkdir -p "$root/DEBIAN"
for f in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$f" "$root/DEBIAN/$f"
done
printf '/etc/innodebt/innodebt.toml\n/etc/innodebt/my.cnf\n' > "$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: innodebt
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: adduser, libc6
Section: database
Priority: optional
Description: InnoDB redo and undo debt: dashboard, Prometheus exporter, fleet view
 innodebt shows how much redo debt (checkpoint age against the async and
 stall points, crash-recovery time) and undo debt (history list, purge and
 the read view that blocks it) InnoDB carries, and whether it is being paid
 back. This package installs the terminal dashboard, 'innodebt serve' as a
 systemd service exporting the figures to Prometheus, man pages and shell
 completions.
CONTROL
deb="$out/innodebt_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
