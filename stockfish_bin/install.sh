#!/bin/sh
# Make sure a Stockfish binary is available to rbc_bot.
# Looks where rbc_bot looks (same order as rbc_bot.engine.find_stockfish); when nothing is found,
# installs Debian's `stockfish` package if run as root, else prints the exact command to run.
# Usage: sudo sh stockfish_bin/install.sh
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)

found() {
    echo "Stockfish found ($1): $2"
    exit 0
}

if [ -n "${STOCKFISH_EXECUTABLE:-}" ]; then
    if [ -f "$STOCKFISH_EXECUTABLE" ] && [ -x "$STOCKFISH_EXECUTABLE" ]; then
        found "\$STOCKFISH_EXECUTABLE" "$STOCKFISH_EXECUTABLE"
    fi
    echo "warning: \$STOCKFISH_EXECUTABLE=$STOCKFISH_EXECUTABLE is not an executable file; looking elsewhere" >&2
fi
if [ -f "$here/stockfish" ] && [ -x "$here/stockfish" ]; then
    found "drop-in binary" "$here/stockfish"
fi
if on_path=$(command -v stockfish 2>/dev/null) && [ -n "$on_path" ]; then
    found "on PATH" "$on_path"
fi
if [ -f /usr/games/stockfish ] && [ -x /usr/games/stockfish ]; then
    found "Debian package" /usr/games/stockfish
fi

if [ "$(id -u)" -eq 0 ]; then
    echo "Stockfish not found; installing Debian's stockfish package"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y stockfish
    if [ -x /usr/games/stockfish ]; then
        found "just installed" /usr/games/stockfish
    fi
    echo "error: apt-get finished but /usr/games/stockfish is missing" >&2
    exit 1
fi

echo "Stockfish not found (looked at \$STOCKFISH_EXECUTABLE, $here/stockfish, PATH, /usr/games/stockfish)." >&2
echo "Run as root:  sudo sh $here/install.sh" >&2
echo "or:           sudo apt-get update && sudo apt-get install -y stockfish" >&2
exit 1
