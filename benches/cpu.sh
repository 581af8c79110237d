#!/usr/bin/env bash
# CPU of the live dashboard over a window, at a given refresh: runs the release binary in a
# detached tmux pane (a real terminal) against a server, then reads utime+stime from /proc.
#
#   benches/cpu.sh [SECONDS] [INTERVAL] -- [connection flags…]
#   benches/cpu.sh 60 1s -- -S /run/mysqld/mysqld.sock -u root
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs=${1:-60}; interval=${2:-1s}; shift 2 || true; [ "${1:-}" = "--" ] && shift
bin=target/release/innodebt
[ -x "$bin" ] || cargo build --release
sock=$(mktemp -u /tmp/innodebt-bench.XXXX)
tmux -S "$sock" new-session -d -x 200 -y 60 "$bin --interval $interval $*"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true' EXIT
sleep 3
pid=$(pgrep -n -f "^$bin --interval $interval") || { echo "innodebt did not start" >&2; exit 1; }
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks); start=$(date +%s.%N)
sleep "$secs"
t1=$(ticks); end=$(date +%s.%N)
rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$start" -v e="$end" -v rss="$rss" -v iv="$interval" 'BEGIN {
  cpu = (b - a) / hz; wall = e - s;
  printf "dashboard at 200x60, refresh %s: %.2f s CPU over %.1f s = %.2f %% of one core; peak RSS %.1f MiB\n", iv, cpu, wall, 100 * cpu / wall, rss / 1024 }'
