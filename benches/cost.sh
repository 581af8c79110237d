#!/usr/bin/env bash
# The cost benchmark in one command: installs Dolphie from PyPI into a virtualenv under
# target/ (once), then runs `cargo bench --bench cost` with it. Options go to the bench, e.g.
#   benches/cost.sh --sessions 10,1500,5000 --seconds 30 --rate 1000
# Needs: mariadbd + mariadb-install-db, mysqladmin, sysbench, tmux, python3 with venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
venv=target/dolphie-venv
if [ ! -x "$venv/bin/dolphie" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet dolphie
fi
for tool in sysbench tmux mysqladmin; do
  command -v "$tool" >/dev/null || { echo "cost benchmark: $tool is missing (apt-get install sysbench tmux mariadb-client)" >&2; exit 1; }
done
exec cargo bench --bench cost -- --dolphie "$PWD/$venv/bin/dolphie" "$@"
