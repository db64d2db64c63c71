#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests and for kaleido's static
# image export. Playwright never downloads a browser here; it is pointed at
# /usr/bin/chromium. Under CI a missing browser is an error; elsewhere it is a
# warning (the browser tests then skip, and say so).
set -u
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian's chromium (browser tests, static figure export)..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
if [ ! -x /usr/bin/chromium ]; then
  if [ -n "${CI:-}" ]; then
    echo "error: /usr/bin/chromium is missing and could not be installed (need root and apt-get)" >&2
    exit 1
  fi
  echo "warning: /usr/bin/chromium is missing; browser tests will be skipped (install Debian's chromium as root)" >&2
fi
exit 0
