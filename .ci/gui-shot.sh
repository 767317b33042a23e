#!/usr/bin/env bash
# Screenshot of dit-gui running its simulated demo job under a virtual X
# server (what `make gui-shot` and CI run). Canvas().Capture() is blank
# under Xvfb, so the window is captured with ImageMagick's import.
#
# Usage: .ci/gui-shot.sh DIT_GUI_BINARY OUT.png [SECONDS_INTO_THE_JOB [THEME [DIT-GUI ARGS...]]]
# THEME is light (default) or dark; further arguments go to dit-gui after
# --demo (e.g. --demo-fail --demo-size 200MB: a failed job).
# Needs: Xvfb, xdotool, ImageMagick, x11-utils (make gui-deps installs them).
set -euo pipefail
bin=$1 out=$2 delay=${3:-20} theme=${4:-light}
shift $(($# < 4 ? $# : 4))
for tool in Xvfb xdotool import xdpyinfo; do
  command -v "$tool" >/dev/null || { echo "gui-shot: $tool is missing: run make gui-deps" >&2; exit 1; }
done
mkdir -p "$(dirname "$out")"
work=$(mktemp -d "${TMPDIR:-/tmp}/dit-gui-shot.XXXXXX")
gpid="" xpid=""
cleanup() {
  [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
  [ -n "$xpid" ] && kill "$xpid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# A free display number, from GUI_SHOT_DISPLAY (99): make gui-shot takes
# its three screenshots at once, each from a number of its own.
n=${GUI_SHOT_DISPLAY:-99}
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
export DISPLAY=":$n"
Xvfb "$DISPLAY" -screen 0 1280x860x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xpid=$!
for _ in $(seq 1 100); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
xdpyinfo >/dev/null 2>&1 || { echo "gui-shot: Xvfb did not start:" >&2; cat "$work/xvfb.log" >&2; exit 1; }

# The demo's data lives in $work.
"$bin" --demo --demo-dir "$work/demo" --theme "$theme" "$@" >"$work/gui.log" 2>&1 &
gpid=$!
for _ in $(seq 1 600); do
  xdotool search --name '^dit$' >/dev/null 2>&1 && break
  kill -0 "$gpid" 2>/dev/null || { echo "gui-shot: dit-gui exited:" >&2; cat "$work/gui.log" >&2; exit 1; }
  sleep 0.2
done
xdotool search --name '^dit$' >/dev/null 2>&1 || { echo "gui-shot: no dit-gui window after 2 minutes" >&2; cat "$work/gui.log" >&2; exit 1; }
sleep "$delay"
kill -0 "$gpid" 2>/dev/null || { echo "gui-shot: dit-gui exited during the job:" >&2; cat "$work/gui.log" >&2; exit 1; }
win=$(xdotool search --name '^dit$' | head -1)
import -window "$win" "$out"
echo "gui-shot: screenshot of the running job: $(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
