#!/bin/bash
# The interactive console, driven through a pseudo-terminal.
. "$(dirname "$0")/need-kvm.sh"
exec python3 "$(dirname "$0")/console.py"
