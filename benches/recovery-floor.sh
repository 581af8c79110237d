#!/usr/bin/env bash
# The measurement behind the crash-recovery calibration floor, in one command: one private
# MariaDB (64M log and buffer pool) is crashed with `kill -9` at each redo size (default 0, 4,
# 8, 16, 24, 32 and 48 MB; or the arguments, e.g. `benches/recovery-floor.sh 0 16 32`), five
# times each (INNODEBT_FLOOR_REPEATS), and each restart is timed by the host as innodebt times
# it at connect. Prints the BENCHMARKS.md table ("What a recovery must be to calibrate").
# Needs: mariadbd + mariadb-install-db. Takes minutes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sizes="${*:-0 4 8 16 24 32 48}"
export INNODEBT_FLOOR_SIZES="${sizes// /,}"
exec cargo test --test it recovery::restart_by_redo_size_table -- --ignored --nocapture
