#!/bin/sh
# Installs the Debian packages sandbx needs to build and test, when missing.
# Idempotent and quiet when everything is present; needs root (or sudo) only
# when something is missing.
set -eu
pkgs="build-essential pkg-config clang libseccomp-dev libcmocka-dev libcjson-dev
libcurl4-openssl-dev libncurses-dev libssl-dev libpcre2-dev
tmux util-linux python3 openssl valgrind bubblewrap ripgrep hyperfine locales xfsprogs"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
