#!/usr/bin/env bash
# Installs the system libraries Bindery builds against, when they are missing.
#   libxml2-dev            the CSDL reader (bindery-gen) parses XML with libxml2
#   libcurl4-openssl-dev   the runtime's HTTP transport (next: CurlTransport)
#   libsqlite3-dev         InboxOffline's store (GRDB links the system SQLite and needs its header)
#   curl                   the mock's banner prints curl commands, and a test runs them as printed
#   nginx, openssl         the TLS and HTTP/2 tests of CurlTransport run against a local nginx with a test CA
set -euo pipefail

needed=()
for package in libxml2-dev libcurl4-openssl-dev libsqlite3-dev curl nginx openssl; do
  if ! dpkg -s "$package" >/dev/null 2>&1; then needed+=("$package"); fi
done
if [ ${#needed[@]} -eq 0 ]; then
  echo "setup: libxml2-dev, libcurl4-openssl-dev, libsqlite3-dev, curl, nginx and openssl are installed."
  exit 0
fi

echo "setup: installing ${needed[*]} with apt-get (needed to build Bindery)."
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: error: apt-get is not available; install ${needed[*]} (or your system's equivalents) yourself." >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup: error: installing packages needs root; run as root or install ${needed[*]} yourself." >&2
    exit 1
  fi
fi
$sudo apt-get update -qq || { echo "setup: error: apt-get update failed." >&2; exit 1; }
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${needed[@]}" \
  || { echo "setup: error: could not install ${needed[*]}." >&2; exit 1; }
echo "setup: installed ${needed[*]}."
