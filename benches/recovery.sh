#!/usr/bin/env bash
# The crash-recovery benchmark in one command: for each redo log size (default 64M, 256M, 1G;
# or the arguments, e.g. `benches/recovery.sh 64M 256M`) a private MariaDB under write load is
# `kill -9`ed three times, at ~60 %, ~90 % and ~30 % of its checkpoint-age limit M. Before
# each kill innodebt's live pipeline gives its recovery estimate (the second and third from
# the error log of the crash before); the restart is timed to the first query. Prints the
# BENCHMARKS.md table (and fails when a calibrated estimate is outside ±35 %).
# Needs: mariadbd + mariadb-install-db. Takes minutes (the 1G log fills at the load's pace).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sizes="${*:-64M 256M 1G}"
export INNODEBT_RECOVERY_SIZES="${sizes// /,}"
exec cargo test --test it recovery::recovery_table -- --ignored --nocapture
