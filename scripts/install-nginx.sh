#!/usr/bin/env bash
# Installs Debian's nginx, the reverse proxy of docs/dashboards.md ("Many
# playtesters") and of tests/browser/test_nginx.py, which runs it as an ordinary
# foreground process with its own prefix folder (never the system service:
# installing the package does not need it running, and the tests never touch it).
# Under CI a missing nginx is an error; elsewhere it is a warning (the nginx
# test then skips, and says so).
set -u
NGINX=/usr/sbin/nginx
if [ -x "$NGINX" ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's nginx (reverse proxy for several dashboard servers)..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends nginx >/dev/null
fi
if [ ! -x "$NGINX" ]; then
  if [ -n "${CI:-}" ]; then
    echo "error: $NGINX is missing and could not be installed (need root and apt-get)" >&2
    exit 1
  fi
  echo "warning: $NGINX is missing; the nginx test will be skipped (install Debian's nginx as root)" >&2
fi
exit 0
