#!/usr/bin/env bash
# A casino's year (docs/benchmarks.md, "A casino's year"): grows a journal by playing nights
# through a real `pozo-server serve` (embedded layout and example keys, loopback), and at each
# size asked for measures what the data directory takes on disk, `pozo-server backup` against the
# running controller, `pozo-server verify` on the stopped one, and the time from starting
# `pozo-server serve` on it to its `listening` line.
#
#   scripts/year-bench.sh sizes WORK SIZE...   e.g. scripts/year-bench.sh sizes /tmp/year 250000 1000000
#   scripts/year-bench.sh rounds WORK           entries per table-round of each game
#   scripts/year-bench.sh pair WORK DATA_A DATA_B   verify, restart and backup on two journals in turn
#
# sizes: WORK must not exist (it is created, and WORK/data is left for `pair`: delete it
# afterwards; about 0.5 GB per million entries, plus a copy of the data during each backup and
# each verify). SIZE: journal entries, ascending; each is reached by the first night that passes
# it, then short nights until the tip is 9,000 to 10,000 entries past the last snapshot (the
# longest replay a restart after a clean stop meets). Environment: BIN (the release binaries,
# default target/release), TABLES (default 17, the embedded layout's), RUNS (timed runs of each
# command, default 3; the median is printed). Nights are `pozo-sim run --server URL --tables
# TABLES --rounds R --seed N` (night N, R sized from the entries per table-round seen so far).
# Output: one `night` line per night, one `size` line and the timings per size; every night's
# JSON, the controller's log and its /metrics at each size are kept in WORK.
#
# rounds: for each game group of the embedded layout (roulette R1-R4, blackjack B1-B4, Central
# Poker CP1-CP4, the other pokers C1 G1 D1 P1, veintiuno V1), a fresh controller on a copy of
# config/casino.toml with that group's tables first, and one night of ROUNDS rounds (default
# 1000) on those tables only: journal entries per table-round, and by command kind
# (`pozo_commands_total`). Run from the repository's root.
#
# pair: two data directories of stopped controllers (e.g. WORK/data of two `sizes` runs, or one
# kept from each), A and B, taken in turn, A B A B ..., RUNS times (default 3): `verify` (with
# its peak memory), the time to `listening` of `serve`, and `backup` against it; the median of
# each and the median of the ratios A/B pair by pair.
set -euo pipefail

USAGE="usage: year-bench.sh sizes WORK SIZE... | rounds WORK | pair WORK DATA_A DATA_B"
MODE=${1:?$USAGE}
WORK=${2:?$USAGE}
shift 2
BIN=${BIN:-target/release}
TABLES=${TABLES:-17}
RUNS=${RUNS:-3}
DATA=$WORK/data
LAYOUT=()
mkdir "$WORK" "$WORK/tmp"
export TMPDIR=$WORK/tmp # verify copies the data directory there

now() { echo "$EPOCHREALTIME"; }
ms_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

PID=
GRPC=
PAGES=
READY_MS=
# Starts the controller on DATA; READY_MS: from the start to its `listening` line.
start_server() {
    local started line
    started=$(now)
    coproc SERVER { exec "$BIN/pozo-server" serve --data "$DATA" "${LAYOUT[@]}" --listen 127.0.0.1:0 --pages 127.0.0.1:0 2>>"$WORK/serve.log"; }
    PID=$SERVER_PID
    read -r line <&"${SERVER[0]}"
    READY_MS=$(ms_since "$started")
    GRPC=http://${line##* }
    read -r line <&"${SERVER[0]}"
    PAGES=${line##* }
    PAGES=${PAGES%/}
}
stop_server() {
    kill -TERM "$PID"
    wait "$PID" || true
}
entries() { curl -sf "$PAGES/metrics" | awk '$1 == "pozo_journal_entries" { print $2 }'; }

night=0
per_round=8 # entries per table-round, until the first night says
# One night of $1 rounds on every table; per_round from what it journaled.
play_night() {
    local rounds=$1 before have started
    night=$((night + 1))
    before=$(entries)
    started=$(now)
    "$BIN/pozo-sim" run --server "$GRPC" --tables "$TABLES" --rounds "$rounds" --seed "$night" \
        --json "$WORK/night-$night.json" >"$WORK/night-$night.txt"
    have=$(entries)
    # A short night's opening and closing would skew the estimate.
    [ "$rounds" -lt 100 ] || per_round=$(awk -v d="$((have - before))" -v t="$TABLES" -v r="$rounds" 'BEGIN { print d / (t * r) }')
    echo "night $night: $rounds rounds, $((have - before)) entries ($before -> $have) in $(ms_since "$started") ms;" \
        "books $(jq -r .books "$WORK/night-$night.json")"
}
# The entry of the last snapshot the controller saved or started from.
last_snapshot() {
    grep -o -E 'snapshot saved sequence=[0-9]+|from_snapshot=[0-9]+' "$WORK/serve.log" | grep -o -E '[0-9]+$' | sort -n | tail -1
}
# Nights until the journal has $1 entries or more, then one more short one if needed so that
# the restart meets a long replay: 9,000 to 10,000 entries past the last snapshot (every
# 10,000 entries, `serve`'s default), the most a restart after a clean stop replays.
grow_to() {
    local target=$1 rounds tail
    while [ "$(entries)" -lt "$target" ]; do
        play_night "$(awk -v r="$(( target - $(entries) ))" -v t="$TABLES" -v e="$per_round" \
            'BEGIN { n = int(r / (t * e)) + 1; print (n > 100000 ? 100000 : n) }')"
    done
    sleep 1 # a snapshot is stored once encoded: let it land before reading the log
    tail=$(( $(entries) - $(last_snapshot) ))
    while [ "$tail" -lt 9000 ]; do
        rounds=$(awk -v r="$((9400 - tail))" -v t="$TABLES" -v e="$per_round" 'BEGIN { n = int(r / (t * e)); print (n < 1 ? 1 : n) }')
        play_night "$rounds"
        sleep 1
        tail=$(( $(entries) - $(last_snapshot) ))
    done
    echo "tail: $(( $(entries) - $(last_snapshot) )) entries past the last snapshot"
}

measure() {
    local i started ms backup_ms=() verify_ms=() ready_ms=() n
    n=$(entries)
    curl -sf "$PAGES/metrics" >"$WORK/metrics-$n.txt"
    for i in $(seq "$RUNS"); do
        started=$(now)
        "$BIN/pozo-server" backup --to "$WORK/backup" --pages "$PAGES" >"$WORK/backup.out"
        backup_ms+=("$(ms_since "$started")")
        echo "  backup $i: ${backup_ms[-1]} ms: $(cat "$WORK/backup.out"); $(du -s --block-size=1 "$WORK/backup" | cut -f1) bytes"
        rm -rf "$WORK/backup"
    done
    stop_server
    echo "size $n entries: $(du -s --block-size=1 "$DATA" | cut -f1) bytes on disk ($(du -s --apparent-size --block-size=1 "$DATA" | cut -f1) apparent); load average $(cut -d' ' -f1-3 /proc/loadavg)"
    for i in $(seq "$RUNS"); do
        started=$(now)
        "$BIN/pozo-server" verify --data "$DATA" >"$WORK/verify.json"
        verify_ms+=("$(ms_since "$started")")
        echo "  verify $i: ${verify_ms[-1]} ms: entries $(jq .entries "$WORK/verify.json"), chain $(jq -r .chain "$WORK/verify.json"), conservation $(jq -r .conservation "$WORK/verify.json"), snapshot $(jq -r .snapshot "$WORK/verify.json")"
    done
    for i in $(seq "$RUNS"); do
        start_server
        ready_ms+=("$READY_MS")
        echo "  ready after restart $i: $READY_MS ms ($(entries) entries;" \
            "$(grep 'journal recovered' "$WORK/serve.log" | tail -1 | grep -o 'from_snapshot=[0-9]* elapsed_ms=[0-9]*'))"
        stop_server
    done
    echo "  medians at $n entries: backup $(printf '%s\n' "${backup_ms[@]}" | median) ms," \
        "verify $(printf '%s\n' "${verify_ms[@]}" | median) ms, ready $(printf '%s\n' "${ready_ms[@]}" | median) ms"
}

# The embedded layout with the tables whose id matches $1 (an ERE) first: prints how many.
layout_first() {
    awk -v want="^id = \"($1)\"$" 'BEGIN { RS = "" }
        !/\[\[table\]\]/ { head = head $0 "\n\n"; next }
        { split($0, line, "\n"); if (line[2] ~ want) { first = first $0 "\n\n"; n++ } else rest = rest $0 "\n\n" }
        END { printf "%s%s%s", head, first, rest > "/dev/stderr"; print n }' config/casino.toml 2>"$2"
}

kinds() { awk '/^pozo_commands_total\{/ && $2 > 0 { sub(/.*kind="/, "", $1); sub(/".*/, "", $1); print $1, $2 }' "$1"; }

case $MODE in
sizes)
    [ $# -gt 0 ] || { echo "usage: year-bench.sh sizes WORK SIZE..." >&2; exit 2; }
    start_server
    for size in "$@"; do
        grow_to "$size"
        measure
        start_server
    done
    stop_server
    ;;
rounds)
    ROUNDS=${ROUNDS:-1000}
    for group in "R[0-9]" "B[0-9]" "CP[0-9]" "C1|G1|D1|P1" "V1"; do
        name=$(echo "$group" | tr -c 'A-Za-z0-9\n' _)
        tables=$(layout_first "$group" "$WORK/$name.toml")
        DATA=$WORK/$name-data
        LAYOUT=(--config "$WORK/$name.toml")
        start_server
        before=$(entries)
        curl -sf "$PAGES/metrics" >"$WORK/$name-before.txt"
        "$BIN/pozo-sim" run --server "$GRPC" --config "$WORK/$name.toml" --tables "$tables" --rounds "$ROUNDS" --seed 1 \
            --json "$WORK/$name-night.json" >"$WORK/$name-night.txt"
        after=$(entries)
        curl -sf "$PAGES/metrics" >"$WORK/$name-after.txt"
        stop_server
        echo "$group: $tables tables x $ROUNDS rounds (+$(jq .extra_balls "$WORK/$name-night.json") balls), $((after - before)) entries," \
            "$(awk -v d="$((after - before))" -v t="$tables" -v r="$ROUNDS" 'BEGIN { printf "%.2f", d / (t * r) }') a table-round;" \
            "books $(jq -r .books "$WORK/$name-night.json")"
        join <(kinds "$WORK/$name-before.txt" | sort) <(kinds "$WORK/$name-after.txt" | sort) -a 2 -e 0 -o 0,1.2,2.2 |
            awk -v t="$tables" -v r="$ROUNDS" '$3 - $2 > 0 { printf "  %-20s %8d  %.3f a table-round\n", $1, $3 - $2, ($3 - $2) / (t * r) }'
        rm -rf "$DATA" "$DATA.acknowledged"
    done
    ;;
pair)
    # Two data directories of a stopped controller, A and B, measured in turn (A B A B ...) so
    # that the ratio A/B of each pair holds when the machine's speed drifts.
    A=${1:?usage: year-bench.sh pair WORK DATA_A DATA_B}
    B=${2:?usage: year-bench.sh pair WORK DATA_A DATA_B}

    ratios() { paste -d' ' "$1" "$2" | awk '{ print $1 / $2 }' | median; }
    verify_ms() {
        local started
        started=$(now)
        /usr/bin/time -f %M -o "$WORK/verify.kib" "$BIN/pozo-server" verify --data "$1" >"$WORK/verify.json"
        echo "$(ms_since "$started") $(cat "$WORK/verify.kib") $(jq -r '.entries, .chain, .conservation, .snapshot' "$WORK/verify.json" | tr '\n' ' ')"
    }
    for i in $(seq "$RUNS"); do
        for side in A B; do
            data=${!side}
            read -r ms kib rest <<<"$(verify_ms "$data")"
            echo "$ms" >>"$WORK/verify-$side"
            echo "verify $side $i: $ms ms, peak $((kib / 1024)) MiB: $rest"
        done
    done
    for i in $(seq "$RUNS"); do
        for side in A B; do
            DATA=${!side}
            start_server
            echo "$READY_MS" >>"$WORK/ready-$side"
            echo "ready $side $i: $READY_MS ms ($(entries) entries;" \
                "$(grep 'journal recovered' "$WORK/serve.log" | tail -1 | grep -o 'from_snapshot=[0-9]* elapsed_ms=[0-9]*'))"
            stop_server
        done
    done
    for i in $(seq "$RUNS"); do
        for side in A B; do
            DATA=${!side}
            start_server
            started=$(now)
            "$BIN/pozo-server" backup --to "$WORK/backup" --pages "$PAGES" >"$WORK/backup.out"
            ms=$(ms_since "$started")
            stop_server
            rm -rf "$WORK/backup"
            echo "$ms" >>"$WORK/backup-$side"
            echo "backup $side $i: $ms ms: $(cat "$WORK/backup.out")"
        done
    done
    for what in verify ready backup; do
        echo "$what: median A $(median <"$WORK/$what-A") ms, B $(median <"$WORK/$what-B") ms," \
            "A/B pair by pair: median $(ratios "$WORK/$what-A" "$WORK/$what-B")"
    done
    ;;
*) echo "usage: year-bench.sh sizes WORK SIZE... | rounds WORK | pair WORK DATA_A DATA_B" >&2; exit 2 ;;
esac
