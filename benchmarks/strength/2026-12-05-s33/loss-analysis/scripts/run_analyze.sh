#!/bin/sh
# one at a time, nice 19
cd /work/main
while read name path; do
  [ "$name" = "new-1064W" ] && [ -d /work/runs/s33/loss/an-new-1064W ] && continue
  [ -f "/work/runs/s33/loss/an-$name/summary.json" ] && continue
  nice -n 19 .venv/bin/python run_bot.py analyze "$path" --out "/work/runs/s33/loss/an-$name" --jobs 1 --brief > "/work/runs/s33/loss/an-$name.log" 2>&1
done < /work/runs/s33/loss/losses.txt
echo done
