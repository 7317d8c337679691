#!/usr/bin/env bash
# Installs Debian's chromium, which the HTML report's test renders the page
# with, when it is missing. Without root or apt-get it says so and leaves it
# to the test, which then skips with that reason.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
	echo "hack/install-chromium.sh: chromium is missing and cannot be installed here (needs root and apt-get); the HTML rendering test will skip" >&2
	exit 0
fi
echo "installing Debian's chromium for the HTML report test ..." >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; then
	if ! { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium >/dev/null; }; then
		echo "hack/install-chromium.sh: installing chromium failed; the HTML rendering test will skip" >&2
		exit 0
	fi
fi
chromium --version >&2 2>/dev/null || true
