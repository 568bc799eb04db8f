#!/bin/bash
# The interactive console, driven through a pseudo-terminal.
exec python3 "$(dirname "$0")/console.py"
