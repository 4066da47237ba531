#!/usr/bin/env bash
# The README's test command: finds what the tests need (Python 3, Node.js with npm, Chromium,
# the browser tests' npm packages), installs what is missing when it can and says what it
# installs, builds the binaries the tests run, and runs every test of the workspace (and the
# Python package's) without stopping at the first failing binary. The arena's database tests
# also run on PostgreSQL: a throwaway server is started here (Debian's postgresql installed when
# its binaries are missing), with TLS certificates of its own CA, named to the tests in
# ARENA_TEST_POSTGRES (with ARENA_REQUIRE_POSTGRES=1, so none is skipped, and the CA files in
# ARENA_TEST_POSTGRES_CA and ARENA_TEST_POSTGRES_STRANGER_CA) and stopped on exit. Tests
# themselves never install anything. Exit status 0 only when every test passed.
#
#   scripts/test.sh            # everything
#   scripts/test.sh -- FILTER  # cargo test's filter, passed on (the Python tests are skipped)
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it starts, in seconds since this script did.
say() { printf '== [%ds] %s\n' "$SECONDS" "$*"; }
fail() { printf 'scripts/test.sh: %s\n' "$*" >&2; exit 1; }

filter=()
if [ "${1:-}" = "--" ]; then
  shift
  filter=("$@")
fi

command -v cargo >/dev/null 2>&1 ||
  fail "cargo is not on PATH: install Rust $(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml) or later (rustup.rs)"

# What the end-to-end tests drive: real Python and Node bots, and pages in a headless Chromium
# (CHROMIUM=/path/to/chromium overrides Debian's /usr/bin/chromium).
chromium="${CHROMIUM:-/usr/bin/chromium}"
export CHROMIUM="$chromium"
missing=()
# Rust links with the C toolchain's cc, as every Rust install needs.
command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
# The Python package's tests (python/test.sh) build a wheel in a virtual environment, and the
# Python bindings' tests (cargo test -p aluette-python) link the interpreter's library.
if ! command -v python3 >/dev/null 2>&1; then
  missing+=(python3 python3-venv python3-pip python3-dev)
else
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
  python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
  python3 -c 'import os, sys, sysconfig as c
lib = os.path.join(c.get_config_var("LIBDIR") or "", c.get_config_var("LDLIBRARY") or "")
sys.exit(0 if os.path.exists(lib) else 1)' 2>/dev/null || missing+=(python3-dev)
fi
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ -x "$chromium" ] || missing+=(chromium)
# The throwaway PostgreSQL server's TLS certificates are made with openssl (below).
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# PostgreSQL's server programs: on PATH, or where Debian puts them (newest version first).
pg_bin() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return 0
  fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -rn); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}
pg_bin >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
  if command -v apt-get >/dev/null 2>&1 && { [ ${#sudo[@]} -eq 0 ] || sudo -n true 2>/dev/null; }; then
    say "installing with apt-get: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    fail "the tests need ${missing[*]}, and this script cannot install them here (no apt-get, or not root and no password-less sudo): install them (Debian and Ubuntu: sudo apt-get install ${missing[*]}), or set CHROMIUM to a Chromium elsewhere, and run this again"
  fi
fi

# The browser tests drive Chromium with puppeteer-core, from the committed lock file; it is
# installed again only when the lock file changed. PUPPETEER_SKIP_DOWNLOAD: the system Chromium.
lock=referee/browser/package-lock.json
stamp=referee/browser/node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
  say "installing the browser tests' npm packages: npm ci --prefix referee/browser"
  PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix referee/browser --no-audit --no-fund --loglevel=error
fi

if [ ! -d target/debug ]; then
  say "first build: a few minutes on two cores (later runs rebuild only what changed)"
fi
# --locked: exactly the committed Cargo.lock, or a failure saying it is stale. The binaries the
# tests run (the referee, the Rust sample bot, the bench) are built first.
say "cargo build --workspace --locked --bins"
cargo build --workspace --locked --bins
# A throwaway PostgreSQL cluster in target/pg-test for the arena's tests, on a unix socket
# directory of its own and a free localhost port, with trust authentication and TLS (it listens
# on 127.0.0.1 only and lives as long as this script). PostgreSQL refuses to run as root: as root
# (CI) it runs as the postgres user the package created.
pg_dir="$PWD/target/pg-test"
bin="$(pg_bin)" || fail "PostgreSQL's initdb and pg_ctl are still missing after installing postgresql"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || fail "running as root, and there is no postgres user to run PostgreSQL as"
  as_pg=(runuser -u postgres --)
fi
rm -rf "$pg_dir"
mkdir -p "$pg_dir"
# The socket's path must stay under the kernel's 108 bytes, whatever the checkout's path.
pg_sock="$(mktemp -d /tmp/aluette-pg.XXXXXX)"
pg_data="$pg_dir/data"
# The arena's ladders, when they run in the background (below): their process group, stopped
# with this script so that no arena server or bot outlives it.
ladder=""
pg_stop() {
  if [ -n "$ladder" ]; then
    # Without setsid the ladders share this script's group: then only cargo is told, which
    # still ends the wait below instead of waiting out the ladders.
    kill -TERM -- "-$ladder" 2>/dev/null || kill -TERM "$ladder" 2>/dev/null || true
    wait "$ladder" 2>/dev/null || true
  fi
  "${as_pg[@]}" "$bin/pg_ctl" -D "$pg_data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$pg_sock"
}
trap pg_stop EXIT
pg_log="$pg_dir/server.log"
if [ ${#as_pg[@]} -gt 0 ]; then
  chown postgres "$pg_dir" "$pg_sock"
  # A checkout the postgres user cannot reach (under /root, say) keeps its cluster in /tmp.
  if ! "${as_pg[@]}" test -w "$pg_dir"; then
    pg_data="$pg_sock/data"
    pg_log="$pg_sock/server.log"
  fi
fi
# TLS on that server, so that the arena's verified connections are tested: a CA of the test's
# own signs a certificate for localhost and 127.0.0.1; a second CA signs nothing, for the tests
# to check that a server their CA did not sign is refused. Elliptic-curve keys: made in
# milliseconds. The server's key must be its user's alone, or PostgreSQL will not start.
tls="$(dirname "$pg_data")/tls"
mkdir -p "$tls"
make_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
    -subj "/CN=$1" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" -keyout "$tls/$2.key" -out "$tls/$2.crt" 2>/dev/null
}
make_ca "aluette test CA" ca && make_ca "a CA that signed nothing here" stranger-ca &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
    -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null &&
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' >"$tls/server.ext" &&
  openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
    -days 7 -extfile "$tls/server.ext" -out "$tls/server.crt" 2>/dev/null ||
  fail "openssl could not make the test server's TLS certificates"
chmod 600 "$tls/server.key"
[ ${#as_pg[@]} -eq 0 ] || chown -R postgres "$tls"
pg_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
say "PostgreSQL for the arena's tests: $bin, cluster $pg_data, port $pg_port"
"${as_pg[@]}" "$bin/initdb" -D "$pg_data" --auth=trust --username=postgres -E UTF8 --no-sync >"$pg_dir/initdb.log" 2>&1 ||
  fail "initdb failed: see $pg_dir/initdb.log"
# fsync off: the cluster is thrown away; many connections: every test has a database and a pool.
"${as_pg[@]}" "$bin/pg_ctl" -D "$pg_data" -l "$pg_log" -w -t 60 \
  -o "-k $pg_sock -p $pg_port -h 127.0.0.1 -c fsync=off -c max_connections=300 -c ssl=on -c ssl_cert_file=$tls/server.crt -c ssl_key_file=$tls/server.key" start >/dev/null ||
  fail "PostgreSQL did not start: $(tail -n 5 "$pg_log" 2>/dev/null | tr '\n' ' ')"
export ARENA_TEST_POSTGRES="postgres://postgres@127.0.0.1:$pg_port/postgres"
export ARENA_REQUIRE_POSTGRES=1
export ARENA_TEST_POSTGRES_CA="$tls/ca.crt"
export ARENA_TEST_POSTGRES_STRANGER_CA="$tls/stranger-ca.crt"

status=0
if [ ${#filter[@]} -gt 0 ]; then
  say "cargo test --workspace --locked --no-fail-fast -- ${filter[*]}"
  cargo test --workspace --locked --no-fail-fast -- "${filter[@]}" || status=1
else
  # The arena's end-to-end ladders (arena/tests/e2e.rs) play games until the official board
  # separates three strengths: about ten minutes on one and a half cores, the longest test
  # binary by far, while most of the others wait on browsers, clocks and bots. So once every
  # test binary is built, the ladders start in a process group of their own and the rest runs
  # beside them: the tests' part of a run took 744 s, against 903 s one after the other.
  # (Started before the other binaries were built, the build took four times as long and the
  # whole run 2 minutes more.)
  ladder_log="$PWD/target/e2e-ladders.log"
  group=()
  command -v setsid >/dev/null 2>&1 && group=(setsid -w)
  say "cargo test --workspace --locked --no-run"
  if cargo test --workspace --locked --no-run; then
    say "the arena's ladders start in the background (their output, shown when they end: $ladder_log)"
    "${group[@]}" cargo test --locked -p aluette-arena --test e2e >"$ladder_log" 2>&1 &
    ladder=$!
  else
    status=1
  fi
  say "cargo test --workspace --locked --no-fail-fast, but for the ladders"
  cargo test --workspace --locked --no-fail-fast -- --skip twelve_tcp_bots_ || status=1
  say "python/test.sh (the aluette wheel: PettingZoo's API test, seeds, leaks, the bot bridge)"
  bash python/test.sh || status=1
  if [ -n "$ladder" ]; then
    say "waiting for the arena's ladders"
    ladder_status=0
    wait "$ladder" || ladder_status=$?
    ladder=""
    cat "$ladder_log"
    if [ "$ladder_status" -ne 0 ]; then
      printf 'scripts/test.sh: the arena ladders failed (exit %d; output above)\n' "$ladder_status" >&2
      status=1
    fi
  fi
fi
if [ "$status" -ne 0 ]; then
  printf 'scripts/test.sh: some tests failed (the lines above say which)\n' >&2
fi
exit "$status"
