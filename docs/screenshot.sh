#!/usr/bin/env bash
# Writes docs/screenshot.svg, the README's picture: `innodebt --demo` at +135s, 100x30, as
# innodebt's own renderer draws it (tests/it/readme_picture.rs). The test of the same name fails
# whenever the committed picture differs from the current render; run this, look at the
# picture, and commit it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -n "${CI:-}" ]; then
    echo "docs/screenshot.sh: CI compares the picture, never writes it (unset CI to run)" >&2
    exit 1
fi
# Every test target with the name filter: found wherever the test lives.
INNODEBT_WRITE_PICTURE=1 cargo test --locked --tests -- the_readme_picture_is_the_current_render
echo "wrote docs/screenshot.svg"
