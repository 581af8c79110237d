#!/usr/bin/env bash
# Builds the Debian package of innodebt from this checkout with dpkg-deb:
#   packaging/build-deb.sh                 # release build, then target/debian/innodebt_VERSION_ARCH.deb
#   INNODEBT_BIN=path packaging/build-deb.sh   # package an already built binary (tests)
#   OUT_DIR=dir packaging/build-deb.sh         # write the .deb there
#   DEB_VERSION=0.1.0+1 packaging/build-deb.sh # another package version (the upgrade test)
#   DEB_COMPRESS=gzip packaging/build-deb.sh   # faster than the default xz (tests)
# The man pages and shell completions are what `innodebt man` and `innodebt completions` print.
# Why dpkg-deb rather than cargo-deb: Debian ships no cargo-deb, so a clean machine (and CI)
# would compile it first; the package needs nothing cargo-deb adds, and the maintainer
# scripts in packaging/debian/ do what its systemd-units handling (dh_installsystemd's
# snippets) does: enable on install, restart on upgrade, stop on remove, purge drops data.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { printf 'build-deb: %s\n' "$*" >&2; exit 1; }
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (apt-get install dpkg)"

version=${DEB_VERSION:-$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)}
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
install -D -m 0644 packaging/debian/default "$root/etc/default/innodebt"
# serde_yaml_ng (the --web-config reader) compiles in unsafe-libyaml, a Rust translation of
# libyaml whose strings lintian takes for an embedded copy of the C library.
install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/innodebt"
install -D -m 0644 contrib/prometheus/alerts.yml "$root/usr/share/innodebt/prometheus/alerts.yml"
install -D -m 0644 contrib/grafana/innodebt.json "$root/usr/share/innodebt/grafana/innodebt.json"
install -D -m 0644 README.md "$root/usr/share/doc/innodebt/README.md"
gzip -9n "$root/usr/share/doc/innodebt/README.md"
# The reference the README links to, at the same relative place.
for f in docs/*.md; do
    install -D -m 0644 "$f" "$root/usr/share/doc/innodebt/$f"
    gzip -9n "$root/usr/share/doc/innodebt/$f"
done
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
Source: https://github.com/innodebt/innodebt

Files: *
Copyright: The innodebt developers
License: Expat or Apache-2.0

License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all
 copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.

License: Apache-2.0
 On Debian systems, the full text of the Apache License, Version 2.0 is in
 /usr/share/common-licenses/Apache-2.0 (also LICENSE-APACHE in the source).
COPYRIGHT

mkdir -p "$root/DEBIAN"
for f in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$f" "$root/DEBIAN/$f"
done
printf '/etc/default/innodebt\n/etc/innodebt/innodebt.toml\n/etc/innodebt/my.cnf\n' > "$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: innodebt
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: adduser, init-system-helpers (>= 1.54~), libc6
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
dpkg-deb --root-owner-group "-Z${DEB_COMPRESS:-xz}" --build "$root" "$deb" >/dev/null
echo "$deb"
