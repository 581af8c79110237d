#!/usr/bin/env bash
# Records the demo capture shipped in demo/: a private MariaDB (16 MiB redo log, 32 MiB
# buffer pool) under write load; a REPEATABLE READ transaction blocks purge for ~120 s while
# checkpoint age runs past the async point; meanwhile someone "fixes" the growing history
# with innodb_max_purge_lag (the purge-lag trap) and later sets it back; then the
# transaction commits and purge catches up.
#
#   demo/record-demo.sh [OUT]        (default: demo/mariadb-10.11-blocker.idbt)
#
# Needs mariadbd, mariadb-install-db and the mariadb client; uses only its own temp datadir.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-demo/mariadb-10.11-blocker.idbt}
bin=${INNODEBT:-target/release/innodebt}
[ -x "$bin" ] || cargo build --release
tmp=$(mktemp -d)
sock=$tmp/mysqld.sock
cleanup() {
  [ -f "$tmp/pid" ] && kill -9 "$(cat "$tmp/pid")" 2>/dev/null || true
  jobs -p | xargs -r kill 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
user_arg=(); [ "$(id -u)" -eq 0 ] && user_arg=(--user=root)
mariadb-install-db --no-defaults --datadir="$tmp/data" --auth-root-authentication-method=normal "${user_arg[@]}" >/dev/null
mariadbd --no-defaults "${user_arg[@]}" --datadir="$tmp/data" --socket="$sock" --skip-networking \
  --pid-file="$tmp/pid" --log-error="$tmp/error.log" --skip-log-bin \
  --innodb-buffer-pool-size=32M --innodb-log-file-size=16M --innodb-log-buffer-size=4M \
  --innodb-flush-log-at-trx-commit=2 --innodb-io-capacity=100 --innodb-io-capacity-max=200 \
  --innodb-monitor-enable=module_buffer,module_purge,module_log,trx_rseg_current_size,module_buffer_page &
for _ in $(seq 60); do mariadb -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
sql() { mariadb -S "$sock" -uroot "$@"; }
sql -e "CREATE DATABASE IF NOT EXISTS shop; CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, customer INT, status CHAR(12), note CHAR(200), KEY(customer))"
sql -e "CREATE USER app@localhost; GRANT ALL ON shop.* TO app@localhost; CREATE USER report@localhost; GRANT SELECT ON shop.* TO report@localhost"
sql shop -e "INSERT INTO orders (customer, status, note) SELECT seq % 997, 'new', REPEAT('x', 200) FROM seq_1_to_20000"

writer() {  # endless stream of small write transactions through one client
  while :; do
    echo "SET @i = FLOOR(1 + RAND() * 20000); UPDATE orders SET status = 'paid', customer = customer + 1, note = REPEAT(CHAR(65 + FLOOR(RAND() * 26)), 200) WHERE id BETWEEN @i AND @i + 40;"
    echo "INSERT INTO orders (customer, status, note) VALUES (FLOOR(RAND()*997), 'new', REPEAT('y', 200));"
    echo "DELETE FROM orders WHERE id = FLOOR(1 + RAND() * 20000);"
  done | mariadb -S "$sock" -u app shop >/dev/null 2>&1
}
for _ in 1 2 3 4 5 6; do writer & done

"$bin" --no-defaults -S "$sock" -u root --interval 1s --innodb-status-interval 5s \
  record "$out" --duration 210s &
rec=$!
sleep 30
# The nightly report: a long REPEATABLE READ transaction that read one row and went idle.
( echo "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ; START TRANSACTION;"
  echo "SELECT COUNT(*) FROM orders WHERE customer = 42;"
  sleep 120
  echo "COMMIT;" ) | mariadb -S "$sock" -u report shop >/dev/null &
sleep 30
sql -e "SET GLOBAL innodb_max_purge_lag = 2000, GLOBAL innodb_max_purge_lag_delay = 3000"
sleep 70
sql -e "SET GLOBAL innodb_max_purge_lag = 0, GLOBAL innodb_max_purge_lag_delay = 0"
wait "$rec"
echo "recorded $out ($(stat -c %s "$out") bytes)"
