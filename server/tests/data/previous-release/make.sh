#!/usr/bin/env bash
# Makes the previous-release fixture of server/tests/upgrade.rs: a backup of a journal written by
# the release at RELEASE below, with that release's own account of it (status.json, verify.json).
#
#   git worktree add --detach /tmp/pozo-release 7a2c15051818d7b99f54346343cb5c082462d5ea
#   server/tests/data/previous-release/make.sh /tmp/pozo-release server/tests/data/previous-release/7a2c150
#
# CHECKOUT is a checkout of RELEASE (refused at any other commit, or with changes to tracked
# files); OUT a new directory. The binaries are that checkout's, built in debug
# (CARGO_TARGET_DIR if set, else CHECKOUT/target). Everything runs on loopback with the embedded
# layout, rulebooks and example keys (the journal key included):
#
#   1. `pozo-server serve` on a new data directory, --snapshot-every 100;
#   2. `pozo-sim run --server … --tables 17 --rounds 3 --seed 7`: every table of the layout plays
#      three rounds through real agents, the office confirms every payout order, every table
#      closes; the simulator checks the books;
#   3. `pozo-agent --table B3`: B3 opens again, a round with a 20% prize (TRES_SIETES_MISMO_PALO,
#      11.2.2) whose payout order stays PENDIENTE DE PAGO, then credits sold and a bet pressed
#      for the next round; B3 is left open;
#   4. `pozo-server status --json` (status.json), `pozo-server backup --to OUT/backup`;
#   5. the server stopped; `pozo-server verify --data backup` in OUT (verify.json);
#   6. the files of the embedded configuration copied into OUT/config (the layout, the three
#      rulebooks and the example keys): a journal is served only with the layout and rulebooks it
#      was started with (docs/operations.md §8) and the journal key it was sealed with, so the
#      test serves it with these, whatever later builds embed.
#
# Not deterministic: the journal id (drawn at genesis), every entry's time (hence the jornadas and
# every hash), the Central Póker instant-prize cards (the server draws them from the OS: the books
# of CP1-CP4 and of the pool iplyc-central-poker differ between runs; no other pool is fed by
# those tables), and which snapshot is the stored one (a snapshot is encoded off the writer's
# path). The seed fixes every other card, ball and bet.
set -euo pipefail

RELEASE=7a2c15051818d7b99f54346343cb5c082462d5ea
CHECKOUT=$(cd "${1:?usage: make.sh CHECKOUT OUT}" && pwd)
OUT=${2:?usage: make.sh CHECKOUT OUT}

say() { printf 'make.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

head=$(git -C "$CHECKOUT" rev-parse HEAD)
[ "$head" = "$RELEASE" ] || die "$CHECKOUT is at $head, not the release $RELEASE"
git -C "$CHECKOUT" diff --quiet HEAD -- || die "$CHECKOUT has changes to tracked files"
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then die "$OUT: not empty"; fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

TARGET=${CARGO_TARGET_DIR:-$CHECKOUT/target}
(cd "$CHECKOUT" && cargo build -p pozo-server -p pozo-sim -p pozo-agent --locked)
SERVER=$TARGET/debug/pozo-server
SIM=$TARGET/debug/pozo-sim
AGENT=$TARGET/debug/pozo-agent

WORK=$(mktemp -d)
SERVER_PID=
AGENT_PID=
DONE=
cleanup() {
    if [ -n "$AGENT_PID" ]; then kill -TERM "$AGENT_PID" 2>/dev/null || true; fi
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
    # OUT was empty or absent: a run that failed leaves nothing there.
    if [ -z "$DONE" ]; then rm -rf "${OUT:?}"; fi
}
trap cleanup EXIT

# 1. The controller.
export NO_COLOR=1
"$SERVER" serve --data "$WORK/data" --listen 127.0.0.1:0 --pages 127.0.0.1:0 --snapshot-every 100 \
    --changed-by make.sh >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 300); do
    [ "$(grep -c '^pozo-server pages on ' "$WORK/server.out" || true)" = 1 ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; die "pozo-server did not start"; }
    sleep 0.1
done
GRPC=http://$(sed -n 's/^pozo-server listening on //p' "$WORK/server.out")
PAGES=$(sed -n 's/^pozo-server pages on //p' "$WORK/server.out")
PAGES=${PAGES%/}
[ "$GRPC" != http:// ] && [ -n "$PAGES" ] || die "pozo-server did not say where it listens"
say "pozo-server at $GRPC, pages at $PAGES"

# 2. The night: every table, three rounds, books checked.
"$SIM" run --server "$GRPC" --tables 17 --rounds 3 --seed 7 >"$OUT/night.txt"
say "night: $(grep '^books:' "$OUT/night.txt")"

# 3. B3 through its agent: a payout order left pending, a bet pressed, the table left open.
coproc AGENT_PROC { exec "$AGENT" --server "$GRPC" --table B3 --key-file "$CHECKOUT/config/keys.toml"; }
AGENT_PID=$AGENT_PROC_PID
agent_out=${AGENT_PROC[0]}
agent_in=${AGENT_PROC[1]}
until_line() { # until_line PATTERN: reads the agent's lines until one matches; fails on a refusal
    local line
    while IFS= read -r -t 30 -u "$agent_out" line; do
        printf '%s\n' "$line" >>"$WORK/agent.out"
        case $line in
            *'"type":"refused"'*) die "agent refused: $line" ;;
            *$1*) return 0 ;;
        esac
    done
    die "agent: no line matching $1"
}
until_line '"suspended":false'
for event in 'open' 'credits 2 5' 'press 2' 'credits 4 5' 'press 4' 'start' \
    'prize 2 TRES_SIETES_MISMO_PALO' 'accept' 'finish' 'credits 5 5' 'press 5'; do
    printf '%s\n' "$event" >&"$agent_in"
    until_line '"type":"ack"'
done
exec {agent_in}>&-
wait "$AGENT_PID" || true
AGENT_PID=
grep -q '"payout_order_id":"[^"]' "$WORK/agent.out" || die "no payout order at B3"

# 4. What this release serves, and its backup.
"$SERVER" status --pages "$PAGES" --json >"$OUT/status.json"
"$SERVER" status --pages "$PAGES" >"$OUT/status.txt"
"$SERVER" backup --pages "$PAGES" --to "$OUT/backup" | tee "$OUT/backup.txt"
# The backup must hold a snapshot with entries after it.
snapshot=$(sed -n 's/.*, snapshot at entry \([0-9]*\), .*/\1/p' "$OUT/backup.txt")
entries=$(sed -n 's/.*: \([0-9]*\) entries (tip .*/\1/p' "$OUT/backup.txt")
[ -n "$snapshot" ] && [ "$snapshot" -lt "$entries" ] || die "the backup has no snapshot with entries after it (where snapshots fall depends on how commands were batched): run make.sh again"

# 5. Stopped; the backup checked by this release's verify.
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
SERVER_PID=
(cd "$OUT" && "$SERVER" verify --data backup >verify.json)
"$SERVER" --version >"$OUT/version.txt"
cp "$WORK/agent.out" "$OUT/agent.jsonl"
mkdir "$OUT/config"
cp "$CHECKOUT"/config/{casino,iplyc,aj-bolivia,andalucia,keys}.toml "$OUT/config/"
DONE=1
say "done: $(du -sh "$OUT" | cut -f1) in $OUT"
