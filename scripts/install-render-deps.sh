#!/usr/bin/env bash
# Installs what the real-window test needs from Debian when it is missing: an X server for
# headless runs (xvfb), a software Vulkan driver (mesa-vulkan-drivers: lavapipe) and xdotool.
set -euo pipefail
need=()
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
# The window tests move the X pointer out of the way (nothing hovered) with xdotool.
command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
echo "install-render-deps: installing ${need[*]}"
if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
else
    sudo=
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
