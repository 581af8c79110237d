#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets into fuzz/corpus/<target>/ (gitignored) from
# the sample corpus (tests/data/samples), demo/, tests/fixtures/, themes/ and the examples below.
#
#   fuzz/seed.sh                      # from anywhere in the repository
#   INNODEBT_SAMPLES=DIR fuzz/seed.sh # the sample corpus elsewhere (default tests/data/samples)
#   INNODEBT_SEED_CAPTURES="a.idbt b.idbt" fuzz/seed.sh   # more real captures to seed from
#
# Existing corpus files are kept (libFuzzer adds what it finds there), seeds overwritten.
set -euo pipefail

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$fuzz_dir/.." && pwd)
samples=${INNODEBT_SAMPLES:-$repo/tests/data/samples}
corpus=$fuzz_dir/corpus
ptstalk=$repo/tests/fixtures/ptstalk

mkdir -p "$corpus"/{innodb_status,capture_reader,ptstalk_import,theme_config,mycnf}

# The head/tail multi-file layout the ptstalk_import and mycnf targets split their input by:
# "==> NAME <==" lines, each followed by that file's contents.
frame() { # frame NAME FILE [NAME FILE ...]
    while [ $# -ge 2 ]; do
        printf '==> %s <==\n' "$1"
        cat "$2"
        shift 2
    done
}

# A pt-stalk mysqladmin file cut down to the counters innodebt reads, padding squeezed:
# small seeds keep libFuzzer fast (it never grows an input past the largest seed).
slim_mysqladmin() {
    grep -E '^(\+|TS |\| (Variable_name|Uptime|Innodb_(lsn|checkpoint|history|purge|buffer_pool_pages|os_log|log|pages|rows|dblwr|data)|Com_(insert|update|delete|commit)))' "$1" \
        | sed -E 's/ {2,}/ /g; s/-{2,}/--/g'
}

# --- innodb_status: every text dump of the sample corpus, and the pt-stalk fixture -------
n=0
if [ -d "$samples" ]; then
    while IFS= read -r -d '' f; do
        n=$((n + 1))
        cp "$f" "$corpus/innodb_status/sample-$n-$(basename "$f")"
    done < <(find "$samples" -type f -name '*.txt' ! -name 'SOURCES*' -print0 | sort -z)
else
    echo "note: no sample corpus at $samples (set INNODEBT_SAMPLES): seeding from the fixtures only" >&2
fi
for f in "$ptstalk"/*-innodbstatus* "$ptstalk"/*-variables; do
    cp "$f" "$corpus/innodb_status/fixture-$(basename "$f")"
done
slim_mysqladmin "$ptstalk"/*-mysqladmin >"$corpus/innodb_status/fixture-mysqladmin-slim"

# --- capture_reader: real captures made small, then cut and bit-flipped ------------------
captures=("$repo"/demo/*.idbt)
for c in ${INNODEBT_SEED_CAPTURES:-}; do captures+=("$c"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A capture made from the pt-stalk fixture by the binary itself.
if (cd "$repo" && cargo run --quiet --locked -- import pt-stalk "$ptstalk" -o "$work/ptstalk.idbt") >/dev/null 2>&1; then
    captures+=("$work/ptstalk.idbt")
else
    echo "note: could not build innodebt to import the pt-stalk fixture; skipping that seed" >&2
fi
# Each capture rewritten with its first events only, a few per section: small seeds keep
# the target fast, and several sections give the damage somewhere to land.
mkdir -p "$work/small"
(cd "$fuzz_dir" && cargo run --quiet --release --example small_captures -- "$work/small" "${captures[@]}")
k=0
for c in "$work"/small/*.idbt; do
    k=$((k + 1))
    base="$corpus/capture_reader/cap$k"
    cp "$c" "$base.idbt"
    size=$(stat -c %s "$c")
    # Cut at a third, two thirds and just before the trailer (a writer that died).
    head -c $((size / 3)) "$c" >"$base-cut1.idbt"
    head -c $((size * 2 / 3)) "$c" >"$base-cut2.idbt"
    head -c $((size - 40)) "$c" >"$base-notrailer.idbt"
    # One byte flipped in the header, in the middle and near the end.
    for at in 20 $((size / 2)) $((size - 60)); do
        cp "$c" "$base-flip$at.idbt"
        printf '\xa5' | dd of="$base-flip$at.idbt" bs=1 seek="$at" conv=notrunc status=none
    done
done
# The shipped demo as it is, one realistic full-size file.
cp "$repo"/demo/*.idbt "$corpus/capture_reader/"

# --- ptstalk_import: whole pt-stalk directories, framed ---------------------------------
p=2026_11_21_20_34_37
frame "$p-hostname" "$ptstalk/$p-hostname" \
    "$p-innodbstatus1" "$ptstalk/$p-innodbstatus1" \
    "$p-innodbstatus2" "$ptstalk/$p-innodbstatus2" \
    "$p-mysqladmin" <(slim_mysqladmin "$ptstalk/$p-mysqladmin") \
    "$p-procstat" <(head -c 400 "$ptstalk/$p-procstat") \
    "$p-variables" "$ptstalk/$p-variables" >"$corpus/ptstalk_import/fixture-slim"
frame "$p-mysqladmin" <(slim_mysqladmin "$ptstalk/$p-mysqladmin") >"$corpus/ptstalk_import/mysqladmin-only"
frame "$p-innodbstatus1" "$ptstalk/$p-innodbstatus1" >"$corpus/ptstalk_import/status-only"
if [ -d "$samples" ]; then
    # The sample corpus's pt-stalk status files (labelled names with .txt), and its
    # mysqladmin ext outputs under a pt-stalk name.
    args=()
    while IFS= read -r -d '' f; do
        args+=("$(basename "$f")" "$f")
    done < <(find "$samples" -type f -name 'ptstalk-*' -print0 | sort -z)
    [ ${#args[@]} -gt 0 ] && frame "${args[@]}" >"$corpus/ptstalk_import/samples-ptstalk"
    m=0
    while IFS= read -r -d '' f; do
        m=$((m + 1))
        frame "2018_03_05_13_24_55-mysqladmin" <(slim_mysqladmin "$f") >"$corpus/ptstalk_import/samples-mysqladmin-$m"
    done < <(find "$samples" -type f -name '*mysqladmin*' -print0 | sort -z)
fi

# --- theme_config: the built-in themes and small partial ones ---------------------------
cp "$repo"/themes/*.toml "$corpus/theme_config/"
cat >"$corpus/theme_config/partial.toml" <<'EOF'
extends = "light"

[colors]
warning = "#ff8800"
critical = 196
badge-stale = "light-red"

[modifiers]
critical = ["bold", "reversed"]
dim = "dim"
EOF
cat >"$corpus/theme_config/errors.toml" <<'EOF'
[colours]
warnng = "orange"
[modifiers]
title = ["bold", 3]
EOF

# --- mycnf: option files, with includes inside the scratch directory --------------------
cat >"$corpus/mycnf/client.cnf" <<'EOF'
# ~/.my.cnf
[client]
user = monitor
password = "s3cr\"et # not a comment"
host=db1.example.com
port = 3307
socket = '/run/mysqld/mysqld.sock'   # trailing comment
loose-ssl-mode = VERIFY_CA
ssl_ca = /etc/mysql/ca.pem

[innodebt]
user = innodebt
EOF
cat >"$corpus/mycnf/includes" <<'EOF'
==> my.cnf <==
[client-server]
!include extra.cnf
!includedir .
[client]
password
==> extra.cnf <==
[client-mariadb]
host = 127.0.0.1
; comment
==> z.cnf <==
[innodebt]
ssl-mode=REQUIRED
==> loop.cnf <==
!include loop.cnf
EOF
cat >"$corpus/mycnf/errors" <<'EOF'
user = before-any-group
[client
[]
[client] junk
!unknown x
!include
EOF

for t in innodb_status capture_reader ptstalk_import theme_config mycnf; do
    printf '%-15s %4d seeds, %8d bytes\n' "$t" "$(find "$corpus/$t" -type f | wc -l)" \
        "$(cat "$corpus/$t"/* | wc -c)"
done
