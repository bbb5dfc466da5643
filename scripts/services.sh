#!/usr/bin/env bash
# Starts MariaDB and PostgreSQL on loopback for the database workload's tests and
# writes their DSNs to .services.env (sourced by scripts/test.sh).
# Usage: scripts/services.sh [start|stop]
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:-start}
if [ "$action" = stop ]; then
  service mariadb stop >/dev/null 2>&1 || true
  service postgresql stop >/dev/null 2>&1 || true
  exit 0
fi

# MariaDB, bound to 127.0.0.1 only.
mkdir -p /etc/mysql/mariadb.conf.d
printf '[mysqld]\nbind-address = 127.0.0.1\nport = 3306\n' > /etc/mysql/mariadb.conf.d/99-conclab.cnf
service mariadb start >/dev/null 2>&1 || service mysql start >/dev/null
for _ in $(seq 50); do mysqladmin ping --silent 2>/dev/null && break; sleep 0.2; done
mysql -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS conclab;
CREATE USER IF NOT EXISTS 'conclab'@'127.0.0.1' IDENTIFIED BY 'conclab';
CREATE USER IF NOT EXISTS 'conclab'@'localhost' IDENTIFIED BY 'conclab';
GRANT ALL ON conclab.* TO 'conclab'@'127.0.0.1';
GRANT ALL ON conclab.* TO 'conclab'@'localhost';
FLUSH PRIVILEGES;
SQL

# PostgreSQL, listening on 127.0.0.1 only.
pgver=$(ls /etc/postgresql | sort -n | tail -1)
conf=/etc/postgresql/$pgver/main/postgresql.conf
grep -q "^listen_addresses = '127.0.0.1'" "$conf" || echo "listen_addresses = '127.0.0.1'" >> "$conf"
service postgresql start >/dev/null
for _ in $(seq 50); do pg_isready -q -h 127.0.0.1 && break; sleep 0.2; done
su postgres -c "psql -q -v ON_ERROR_STOP=1" <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'conclab') THEN
    CREATE ROLE conclab LOGIN PASSWORD 'conclab';
  END IF;
END $$;
SQL
su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='conclab'\"" | grep -q 1 \
  || su postgres -c "createdb -O conclab conclab"

cat > .services.env <<'ENV'
export CONCLAB_MYSQL_DSN='conclab:conclab@tcp(127.0.0.1:3306)/conclab'
export CONCLAB_PG_DSN='postgres://conclab:conclab@127.0.0.1:5432/conclab?sslmode=disable'
ENV
echo "services: MariaDB and PostgreSQL up on 127.0.0.1 (DSNs in .services.env)"
