#!/usr/bin/env bash
# report.sh OUT_DIR -- turns the rows make bench wrote (OUT_DIR/rows.jsonl, one JSON object a
# row) into OUT_DIR/results.json (the run and every row) and OUT_DIR/results.md (a table),
# draws the plots (gnuplot: commit ops/s by batch and concurrency from commit.dat, the wake-up
# latency distribution of the waiters from wake.dat, the clients section's initial sync, Pouch
# against Syncthing, from clients-sync.dat and its propagation latencies from
# clients-prop-{pouch,syncthing}.dat) as OUT_DIR/*.svg and, with BENCH_DOC=1,
# copies them to docs/ and rewrites the generated block of docs/PERFORMANCE.md (between its
# `bench:begin` and `bench:end` markers) from results.json. Nothing in that block is typed.
# Relies on jq and gnuplot (Debian gnuplot-nox).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: report.sh OUT_DIR}
rows=$out/rows.jsonl
[[ -s $rows ]] || { echo "report.sh: no rows in $rows" >&2; exit 1; }

git_rev=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty="+changes"
jq -s --arg date "$(date -u +%FT%TZ)" --arg cores "$(nproc)" --arg kernel "$(uname -r)" \
    --arg git "$git_rev$dirty" \
    '{run: {date: $date, cores: ($cores | tonumber), kernel: $kernel, git: $git,
            load_min: (map(.load | tonumber) | min), load_max: (map(.load | tonumber) | max)},
      summary: {targets: (map(select(.target != "report")) | length),
                met: (map(select(.target != "report" and .verdict == "met")) | length),
                missed: (map(select(.verdict == "MISSED")) | length)},
      rows: .}' "$rows" >"$out/results.json"

# The table (both results.md and the doc block).
table() {
    echo "| row | measured | baseline | ratio | target | verdict | load |"
    echo "|---|---|---|---|---|---|---|"
    jq -r '.rows[] | "| \(.name) | \(.measured) | \(.baseline) | \(.ratio) | \(.target) | \(if .verdict == "MISSED" then "**MISSED**" else .verdict end) | \(.load) |"' "$out/results.json"
}
# What rows say beside their figures (a row's note: every run's ratio, where it stored...).
notes() {
    jq -r 'if any(.rows[]; .note != "") then "", "Notes:", "", (.rows[] | select(.note != "") | "- \(.name): \(.note)") else empty end' \
        "$out/results.json"
}
summary() {
    jq -r '"`make bench`, \(.run.date), \(.run.cores) cores, \(.run.kernel), git \(.run.git), 1-minute load \(.run.load_min)-\(.run.load_max) while the rows were measured.",
        "",
        "**Targets met: \(.summary.met) of \(.summary.targets).** Rows MISSED: \(.summary.missed)\(if .summary.missed > 0 then ":" else "." end)",
        "",
        (.rows[] | select(.verdict == "MISSED") | "- \(.name): \(.measured) against \(.baseline), ratio \(.ratio), target \(.target)")' \
        "$out/results.json"
}
{
    echo "# make bench results"
    echo
    summary
    echo
    table
    notes
} >"$out/results.md"

# Plots. commit.dat: fsync batch concurrency pouches ours baseline (ops/s).
plots=()
if command -v gnuplot >/dev/null; then
    if [[ -s $out/commit.dat ]]; then
        awk '{ k = "b" $2 "/c" $3 ($4 > 1 ? "/" $4 "p" : ""); if (!(k in seen)) { seen[k] = 1; order[++n] = k }
               v[k, $1, "o"] = $5; v[k, $1, "b"] = $6 }
             END { for (i = 1; i <= n; i++) { k = order[i]
                   printf "\"%s\" %s %s %s %s\n", k, (v[k,"off","o"] == "" ? "-" : v[k,"off","o"]), (v[k,"off","b"] == "" ? "-" : v[k,"off","b"]),
                          (v[k,"on","o"] == "" ? "-" : v[k,"on","o"]), (v[k,"on","b"] == "" ? "-" : v[k,"on","b"]) } }' \
            "$out/commit.dat" >"$out/commit-plot.dat"
        gnuplot <<EOF
set terminal svg size 900,480 dynamic font "sans,11"
set output "$out/bench-commit.svg"
set title "Commit ops/s by batch (b) and concurrency (c), one pouch unless /32p: pouch-loadgen vs pgbench of the set-based SQL"
set bmargin 5
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set datafile missing "-"
set logscale y
set ylabel "applied ops/s (log)"
set grid ytics
set key top left
set xtics font ",10"
plot "$out/commit-plot.dat" using 2:xtic(1) title "service, fsync off" lc rgb "#4a7ebb", \
     "" using 3 title "baseline, fsync off" lc rgb "#a8c4e5", \
     "" using 4 title "service, fsync on" lc rgb "#c0504d", \
     "" using 5 title "baseline, fsync on" lc rgb "#e6b9b8"
EOF
        plots+=(bench-commit.svg)
    fi
    if [[ -s $out/wake.dat ]]; then
        n=$(wc -l <"$out/wake.dat")
        gnuplot <<EOF
set terminal svg size 900,420 dynamic font "sans,11"
set output "$out/bench-wake.svg"
set title "Wake-up latency of $n parked event long-polls, from their pouch's commit sent (target: p99 <= 250 ms)"
set xlabel "ms"
set ylabel "share of waiters answered"
set yrange [0:1]
set grid
set key bottom right
set arrow from graph 0, first 0.99 to graph 1, first 0.99 nohead dt 2 lc rgb "#c0504d"
set label "p99" at graph 0.01, first 0.965 tc rgb "#c0504d"
plot "$out/wake.dat" using 1:((\$0 + 1) / $n) with lines lw 2 lc rgb "#4a7ebb" title "cumulative share"
EOF
        plots+=(bench-wake.svg)
    fi
    # The clients section (tools/bench/clients.sh): clients-sync.dat ("label" seconds), and the
    # propagation latencies of each client in edit order, clients-prop-{pouch,syncthing}.dat.
    if [[ -s $out/clients-sync.dat ]]; then
        gnuplot <<EOF
set terminal svg size 700,400 dynamic font "sans,11"
set output "$out/bench-clients-sync.svg"
set title "Initial sync of 1 GiB in 10,000 files, A -> B byte-identical (target: Pouch <= 1.0x Syncthing)"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.6
set ylabel "seconds"
set yrange [0:*]
set grid ytics
unset key
plot "$out/clients-sync.dat" using 2:xtic(1) lc rgb "#4a7ebb", \
     "" using 0:2:(sprintf("%.1f s", \$2)) with labels offset 0,0.8 notitle
EOF
        plots+=(bench-clients-sync.svg)
    fi
    if [[ -s $out/clients-prop-pouch.dat || -s $out/clients-prop-syncthing.dat ]]; then
        series=()
        for c in pouch syncthing; do
            f=$out/clients-prop-$c.dat
            [[ -s $f ]] || continue
            n=$(wc -l <"$f")
            color="#4a7ebb"
            [[ $c == syncthing ]] && color="#9bbb59"
            label=Pouch
            [[ $c == syncthing ]] && label=Syncthing
            series+=("\"< sort -n $f\" using 1:((\$0 + 1) / $n) with steps lw 2 lc rgb \"$color\" title \"$label ($n edits)\"")
        done
        plot_line=$(IFS=,; echo "${series[*]}")
        gnuplot <<EOF
set terminal svg size 900,420 dynamic font "sans,11"
set output "$out/bench-clients-propagation.svg"
set title "One edit on A until its content is readable on B, both watching (target: Pouch p99 <= 1 s and <= 0.5x Syncthing's)"
set xlabel "ms"
set ylabel "share of edits arrived"
set yrange [0:1]
set xrange [0:*]
set grid
set key bottom right
set arrow from graph 0, first 0.99 to graph 1, first 0.99 nohead dt 2 lc rgb "#c0504d"
set arrow from 1000, graph 0 to 1000, graph 1 nohead dt 3 lc rgb "#c0504d"
set label "p99" at graph 0.01, first 0.965 tc rgb "#c0504d"
plot $plot_line
EOF
        plots+=(bench-clients-propagation.svg)
    fi
else
    echo "report.sh: gnuplot not found (apt-get install gnuplot-nox); no plots" >&2
fi

cat "$out/results.md"
echo
echo "results: $out/results.json, $out/results.md"

[[ ${BENCH_DOC:-0} == 1 ]] || exit 0
doc=docs/PERFORMANCE.md
if ! grep -q '^<!-- bench:begin' "$doc" || ! grep -q '^<!-- bench:end' "$doc"; then
    echo "report.sh: $doc lacks the bench:begin / bench:end markers" >&2
    exit 1
fi
for p in "${plots[@]}"; do cp "$out/$p" "docs/$p"; done
block=$out/doc-block.md
{
    echo "<!-- bench:begin: generated by tools/bench/report.sh from build/bench/results.json; do not edit by hand -->"
    summary
    echo
    for p in "${plots[@]}"; do echo "![${p%.svg}]($p)"; echo; done
    table
    notes
    echo "<!-- bench:end -->"
} >"$block"
awk -v block="$block" '
    /^<!-- bench:begin/ { while ((getline line < block) > 0) print line; skip = 1; next }
    /^<!-- bench:end/ { skip = 0; next }
    !skip { print }' "$doc" >"$doc.new"
mv "$doc.new" "$doc"
echo "rewrote the generated block of $doc${plots[*]:+ and docs/${plots[*]}}"
