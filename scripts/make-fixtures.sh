#!/usr/bin/env bash
# Regenerates the real-tool fixtures under src/formats/{sarif,coverage,sbom}/fixtures/ from the
# small projects in test/fixtures/tools/: installs the tools (Debian packages, npm packages at the
# versions pinned below), copies each project into one fixed directory, runs the tools there and
# keeps their reports, their own summaries (*.tool-output.txt, *.summary.json) and a manifest per
# kind. See test/fixtures/tools/README.md.
#
# Usage: scripts/make-fixtures.sh [all|sarif|coverage|sbom|pull-request|renames|staticcheck-module|gcc|gcc-history|eslint|file-names|coverage-other|checkstyle|style-lint|python-lint|message-numbers|suppressions|shards|oxlint-parse|local-plugin]
#        (default: all; staticcheck-module makes only Staticcheck's report of a module in a
#        subdirectory, gcc only GCC's reports, gcc-history GCC's on other versions of its
#        project, eslint only ESLint's, file-names only the reports on
#        files with unusual names; `sarif` makes them all; coverage-other only the coverage of
#        src/formats/coverage/fixtures/other/, which `coverage` makes too; checkstyle the
#        checkstyle XML and ShellCheck reports of src/formats/checkstyle/fixtures/; style-lint
#        only the style linters' reports, which `sarif` makes too; python-lint only pylint's and
#        Bandit's JSON, which `sarif` makes too)
# Environment: ASSAY_FIXTURE_TOOLS  where the npm tools and Go's caches go
#                                   (default: /tmp/assay-fixtures-tools)
set -euo pipefail

# Every tool runs under this directory, so absolute paths in the reports are the same on every
# machine. src/formats/fixtures.ts exports the same value (FIXTURE_WORK_ROOT).
readonly WORK=/tmp/assay-fixtures

# Pinned npm tools. secretlint stays on 11.x: 12 and later need Node 22.
readonly ESLINT_VERSION=10.15.0
readonly ESLINT_SARIF_VERSION=3.1.0
readonly ESLINT_CHECKSTYLE_VERSION=9.0.1
readonly BIOME_VERSION=2.6.8
readonly OXLINT_VERSION=1.94.0
readonly SECRETLINT_VERSION=11.7.1
readonly C8_VERSION=12.0.0
readonly NPM_VERSION=11.19.1
readonly CYCLONEDX_NPM_VERSION=6.0.1
# cdxgen installs apart from the others, without its optional dependencies (prebuilt plugin
# binaries of several hundred megabytes it does not need for a lockfile).
readonly CDXGEN_VERSION=12.8.4
# pylint's json2 output came with pylint 3; Debian 12 has 2.16. This one installs from PyPI into
# a virtual environment of its own (python3-venv), beside Debian's.
readonly PYLINT_JSON2_VERSION=4.1.1

readonly DEBIAN_PACKAGES=(
  clang llvm cppcheck gcc make lcov gcovr python3 python3-coverage python3-tabulate
  default-jdk-headless ant libjacoco-java golang-go go-staticcheck git jq
  php-cli php-xml phpunit php-pcov php-xdebug diff-cover shellcheck checkstyle php-codesniffer pylint bandit
  python3-venv
)
# The SBOMs need only jq besides the npm tools; the pull request's history jq and git.
readonly DEBIAN_PACKAGES_SBOM=(jq)
readonly DEBIAN_PACKAGES_PULL_REQUEST=(jq git)
readonly DEBIAN_PACKAGES_STATICCHECK_MODULE=(jq golang-go go-staticcheck)
readonly DEBIAN_PACKAGES_GCC=(jq gcc)
readonly DEBIAN_PACKAGES_ESLINT=(jq)
readonly DEBIAN_PACKAGES_CHECKSTYLE=(jq shellcheck checkstyle php-cli php-xml php-codesniffer)
readonly DEBIAN_PACKAGES_PYTHON_LINT=(jq pylint bandit python3-venv)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ROOT
readonly SOURCES="$ROOT/test/fixtures/tools"
readonly TOOLS="${ASSAY_FIXTURE_TOOLS:-/tmp/assay-fixtures-tools}"
readonly NPM_DIR="$TOOLS/npm"
readonly BIN="$NPM_DIR/node_modules/.bin"
readonly CDXGEN_DIR="$TOOLS/cdxgen"
readonly PYLINT_JSON2_DIR="$TOOLS/pylint-json2"
readonly PYTHON=/usr/bin/python3 # Debian's, whose dist-packages hold tabulate and coverage
readonly WHAT="${1:-all}"

# Tool output that does not depend on the terminal, the locale or the time zone.
export LC_ALL=C.UTF-8 TZ=UTC NO_COLOR=1 FORCE_COLOR=0 PYTHONDONTWRITEBYTECODE=1
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GOPATH="$TOOLS/go" GOCACHE="$TOOLS/go-cache" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local

log() { printf '== %s\n' "$*" >&2; }
die() {
  printf 'make-fixtures: %s\n' "$*" >&2
  exit 1
}

install_debian_packages() {
  local missing=() package wanted=("${DEBIAN_PACKAGES[@]}")
  [ "$WHAT" = sbom ] && wanted=("${DEBIAN_PACKAGES_SBOM[@]}")
  [ "$WHAT" = pull-request ] && wanted=("${DEBIAN_PACKAGES_PULL_REQUEST[@]}")
  [ "$WHAT" = renames ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = staticcheck-module ] && wanted=("${DEBIAN_PACKAGES_STATICCHECK_MODULE[@]}")
  [ "$WHAT" = gcc ] && wanted=("${DEBIAN_PACKAGES_GCC[@]}")
  [ "$WHAT" = gcc-history ] && wanted=("${DEBIAN_PACKAGES_GCC[@]}")
  [ "$WHAT" = eslint ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = checkstyle ] && wanted=("${DEBIAN_PACKAGES_CHECKSTYLE[@]}")
  [ "$WHAT" = style-lint ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = message-numbers ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = suppressions ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = shards ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = oxlint-parse ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = local-plugin ] && wanted=("${DEBIAN_PACKAGES_ESLINT[@]}")
  [ "$WHAT" = python-lint ] && wanted=("${DEBIAN_PACKAGES_PYTHON_LINT[@]}")
  for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages, run as root: apt-get install -y ${missing[*]}"
  log "apt-get install ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
}

install_npm_tools() {
  local wanted=(
    "eslint@$ESLINT_VERSION" "@microsoft/eslint-formatter-sarif@$ESLINT_SARIF_VERSION"
    "eslint-formatter-checkstyle@$ESLINT_CHECKSTYLE_VERSION"
    "@biomejs/biome@$BIOME_VERSION" "oxlint@$OXLINT_VERSION" "secretlint@$SECRETLINT_VERSION"
    "@secretlint/secretlint-rule-preset-recommend@$SECRETLINT_VERSION"
    "@secretlint/secretlint-formatter-sarif@$SECRETLINT_VERSION" "c8@$C8_VERSION" "npm@$NPM_VERSION"
    "@cyclonedx/cyclonedx-npm@$CYCLONEDX_NPM_VERSION"
  )
  local stamp="$NPM_DIR/installed.txt"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${wanted[*]}" ]; then return; fi
  log "npm install ${wanted[*]}"
  rm -rf "$NPM_DIR"
  mkdir -p "$NPM_DIR"
  echo '{"private":true}' >"$NPM_DIR/package.json"
  (cd "$NPM_DIR" && npm install --no-audit --no-fund --save-exact --loglevel=error "${wanted[@]}" >/dev/null)
  echo "${wanted[*]}" >"$stamp"
}

install_cdxgen() {
  local wanted="@cyclonedx/cdxgen@$CDXGEN_VERSION"
  local stamp="$CDXGEN_DIR/installed.txt"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then return; fi
  log "npm install --omit=optional $wanted"
  rm -rf "$CDXGEN_DIR"
  mkdir -p "$CDXGEN_DIR"
  echo '{"private":true}' >"$CDXGEN_DIR/package.json"
  (cd "$CDXGEN_DIR" && npm install --no-audit --no-fund --save-exact --omit=optional --loglevel=error "$wanted" >/dev/null)
  echo "$wanted" >"$stamp"
}

# pylint $PYLINT_JSON2_VERSION in a virtual environment of its own (for its json2 output).
install_pylint_json2() {
  local requirement="pylint==$PYLINT_JSON2_VERSION"
  local stamp="$PYLINT_JSON2_DIR/installed.txt"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$requirement" ]; then return; fi
  log "pip install $requirement (virtual environment)"
  rm -rf "$PYLINT_JSON2_DIR"
  "$PYTHON" -m venv "$PYLINT_JSON2_DIR"
  "$PYLINT_JSON2_DIR/bin/pip" install --quiet --disable-pip-version-check "$requirement"
  echo "$requirement" >"$stamp"
}

# Copies a project's sources to $WORK/<project> (afresh) and enters it.
enter_project() {
  rm -rf "${WORK:?}/$1"
  mkdir -p "$WORK"
  cp -r "$SOURCES/$1" "$WORK/$1"
  cd "$WORK/$1"
}

# Runs a command whose exit status must be one of $1 (space-separated), e.g. "0 1" for a linter
# that exits 1 when it reports findings.
expect_status() {
  local expected=$1 status=0
  shift
  "$@" || status=$?
  case " $expected " in *" $status "*) ;; *) die "'$*' exited $status (expected $expected)" ;; esac
}

# Writes a tool summary: tool, version, command, workDir and the figures (JSON) the tool gave.
write_summary() { # file tool version command workDir figures-json
  jq -n --arg tool "$2" --arg version "$3" --arg command "$4" --arg workDir "$5" --argjson figures "$6" \
    '{tool: $tool, version: $version, command: $command, workDir: $workDir, figures: $figures}' >"$1"
}

# Records a fixture in its kind's manifest: the file, its format, the tool, the directory the
# tool ran in, how the report writes paths, and its summary and raw tool output.
add_fixture() { # kind tool file format paths summary tool-output [extra-json]
  jq -nc --arg kind "$1" --arg tool "$2" --arg file "$3" --arg format "$4" --arg paths "$5" \
    --arg summary "$6" --arg toolOutput "$7" --arg workDir "$PWD" --argjson extra "${8:-{\}}" \
    '{tool: $tool, file: $file, format: $format, workDir: $workDir, paths: $paths,
      summary: $summary, toolOutput: $toolOutput} + $extra' >>"$WORK/_manifest/$1.jsonl"
}

# Records reports of the kind's manifest that are uploaded to one run together (coverage and its
# changed lines, or two test runs), with the summary of the tool that read them together.
add_run() { # kind name summary tool-output file...
  local kind=$1 name=$2 summary=$3 tool_output=$4
  shift 4
  jq -nc --arg name "$name" --arg summary "$summary" --arg toolOutput "$tool_output" \
    '{name: $name, files: $ARGS.positional, summary: $summary, toolOutput: $toolOutput}' --args "$@" \
    >>"$WORK/_manifest/$kind-runs.jsonl"
}

write_manifest() { # kind
  jq -s '.' "$WORK/_manifest/$1.jsonl" >"$ROOT/src/formats/$1/fixtures/manifest.json"
  if [ -s "$WORK/_manifest/$1-runs.jsonl" ]; then
    jq -s '.' "$WORK/_manifest/$1-runs.jsonl" >"$ROOT/src/formats/$1/fixtures/runs.json"
  fi
}

# Starts a kind afresh: its fixture folder emptied, its manifest restarted.
begin_kind() { # kind
  rm -rf "${ROOT:?}/src/formats/$1/fixtures"
  mkdir -p "$ROOT/src/formats/$1/fixtures" "$WORK/_manifest"
  : >"$WORK/_manifest/$1.jsonl"
  : >"$WORK/_manifest/$1-runs.jsonl"
}

# XML attributes or counters, read with Debian's Python (no dependency of ours).
xml_figures() { # file python-expression over `root` (ElementTree root), printing JSON
  "$PYTHON" -c 'import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print(json.dumps(eval(sys.argv[2])))' "$1" "$2"
}

# `lcov --summary` figures: {"lines": {"covered": n, "total": n}, "functions": ..., "branches": ...}.
lcov_summary_figures() { # summary-text-file
  sed -nE 's/^ *(lines|functions|branches)\.+: [0-9.]+% \(([0-9]+) of ([0-9]+) [a-z]+\)$/{"\1": {"covered": \2, "total": \3}}/p' "$1" |
    jq -s 'add // {}'
}

# diff-cover's JSON report: the changed lines its coverage report measures, those it misses, and
# per file the percentage and the missed lines (keys sorted: diff-cover lists files in no fixed order).
diff_cover_figures() { # json-report
  jq -S '{diffCover: {lines: .total_num_lines, missing: .total_num_violations, percentCovered: .total_percent_covered,
    files: (.src_stats | map_values({percentCovered: .percent_covered, missingLines: .violation_lines}))}}' "$1"
}

# The diff of the current git repository's last commit as a changed-lines fixture in a tool's
# folder (changes.diff), with `git diff --numstat` as its output and figures.
record_git_diff() { # tool-folder
  local dir="$ROOT/src/formats/coverage/fixtures/$1"
  git diff HEAD~1 HEAD >"$dir/changes.diff"
  git diff --numstat HEAD~1 HEAD >"$dir/changes.tool-output.txt"
  write_summary "$dir/changes.summary.json" git "$(git --version)" "git diff HEAD~1 HEAD" "$PWD" "$(
    jq -Rn '{files: ([inputs | split("\t") | {key: .[2], value: {added: (.[0] | tonumber), deleted: (.[1] | tonumber)}}]
      | from_entries)}' "$dir/changes.tool-output.txt"
  )"
  add_fixture coverage "$1" "$1/changes.diff" unified-diff relative "$1/changes.summary.json" "$1/changes.tool-output.txt"
}

# diff-cover reading a coverage report against the last commit's diff, recorded as a run of
# runs.json: the report's fixture uploaded with the folder's changes.diff, diff-cover's figures.
record_diff_cover() { # tool-folder run-name report-fixture diff-cover-arguments...
  local folder=$1 name=$2 report=$3
  shift 3
  local dir="$ROOT/src/formats/coverage/fixtures/$folder" command=(diff-cover "$@" --compare-branch=HEAD~1)
  {
    echo "\$ ${command[*]} --json-report diff-cover.json"
    "${command[@]}" --json-report "$WORK/_diff-cover.json"
  } >"$dir/diff-cover.tool-output.txt" 2>&1
  write_summary "$dir/diff-cover.summary.json" diff-cover "$(diff-cover --version)" \
    "${command[*]} --json-report diff-cover.json" "$PWD" "$(diff_cover_figures "$WORK/_diff-cover.json")"
  add_run coverage "$name" "$folder/diff-cover.summary.json" "$folder/diff-cover.tool-output.txt" "$report" \
    "$folder/changes.diff"
}

lcov_summary() { # lcov-file output-file
  lcov --summary "$1" --rc lcov_branch_coverage=1 >"$2" 2>&1
}

# `go tool cover -func` output as figures: the total percentage of statements and each function's.
readonly GO_COVER_FUNC_FIGURES='split("\n") as $lines
  | {statementsPercent: ($lines | map(capture("^total:\\s+\\(statements\\)\\s+(?<pct>[0-9.]+)%$").pct) | first | tonumber),
     functions: ($lines | map(select(startswith("total:") | not)
       | capture("^(?<where>\\S+):\\s+(?<fn>\\S+)\\s+(?<pct>[0-9.]+)%$")
       | {key: "\(.where) \(.fn)", value: (.pct | tonumber)}) | from_entries)}'

# One profile of the go-modules project: `go test` in a directory of it (a module alone, with
# GOWORK=off, or the workspace at its root), then `go tool cover -func` there; the fixture records
# the workspace's modules (goModules: what an upload sends) and, in the summary, where `go list`
# puts each package.
record_go_modules_profile() { # directory profile mode modules-json packages-json go-test-arguments...
  local dir=$1 profile=$2 mode=$3 modules=$4 packages=$5 gowork=off
  shift 5
  [ "$dir" = . ] && gowork=auto
  local out="$ROOT/src/formats/coverage/fixtures/go-modules" command="go test -count=1 -coverprofile=$profile $*"
  {
    echo "\$ cd $dir && GOWORK=$gowork $command && go tool cover -func=$profile"
    (cd "$dir" && GOWORK=$gowork GOFLAGS= go test -count=1 -coverprofile="$profile" "$@" 2>&1)
    (cd "$dir" && GOWORK=$gowork GOFLAGS= go tool cover -func="$profile")
  } >>"$out/go-modules.tool-output.txt"
  cp "$dir/$profile" "$out/$profile"
  write_summary "$out/${profile%.out}.summary.json" go "$(go version)" \
    "cd $dir && GOWORK=$gowork $command && go tool cover -func=$profile" "$PWD" "$(
      jq -n --arg func "$(cd "$dir" && GOWORK=$gowork GOFLAGS= go tool cover -func="$profile")" --arg mode "$mode" \
        --argjson modules "$modules" --argjson packages "$packages" \
        "def totals: $GO_COVER_FUNC_FIGURES; {goModules: \$modules, packages: \$packages, (\$mode): (\$func | totals)}"
    )"
  add_fixture coverage go-modules "go-modules/$profile" go import-path "go-modules/${profile%.out}.summary.json" \
    go-modules/go-modules.tool-output.txt "{\"goModules\": $modules}"
}

# Staticcheck run inside the go-modules project's backend/ module (`cd backend && staticcheck`),
# as a repository with its Go module in a subdirectory runs it: the SARIF's paths are relative to
# backend/ (against an undefined %SRCROOT%), and only `invocations[].workingDirectory`, after the
# results, names backend/. The upload's workDir is the project's root. The summary is made as for
# go-lint: the stylish totals and the JSON output's codes.
record_staticcheck_in_module() { # out-dir
  local out=$1 command="go-staticcheck -checks all -f sarif ./..."
  enter_project go-modules
  # GOFLAGS empty: go.work at the root puts the module in workspace mode, which refuses -mod=mod.
  (cd backend && GOFLAGS= expect_status "0" go-staticcheck -checks all -f sarif ./...) >"$out/backend.sarif"
  (cd backend && GOFLAGS= expect_status "1" go-staticcheck -checks all ./...) >"$out/backend.tool-output.txt"
  (cd backend && GOFLAGS= expect_status "1" go-staticcheck -checks all -f stylish ./...) >"$WORK/_staticcheck-backend.stylish"
  (cd backend && GOFLAGS= expect_status "1" go-staticcheck -checks all -f json ./...) >"$WORK/_staticcheck-backend.json"
  write_summary "$out/backend.summary.json" staticcheck "$(go-staticcheck -version)" "cd backend && $command" "$PWD" "$(
    jq -n --rawfile stylish "$WORK/_staticcheck-backend.stylish" --slurpfile problems "$WORK/_staticcheck-backend.json" '
      ($stylish | capture("(?<p>[0-9]+) problems? \\((?<e>[0-9]+) errors?, (?<w>[0-9]+) warnings?, (?<i>[0-9]+) ignored\\)")) as $t
      | {errors: ($t.e | tonumber), warnings: ($t.w | tonumber), ignored: ($t.i | tonumber),
         byRule: ($problems | group_by(.code) | map({key: .[0].code, value: {
           errors: map(select(.severity == "error")) | length, warnings: map(select(.severity == "warning")) | length}})
           | from_entries),
         files: ($problems | map(.location.file | ltrimstr("'"$PWD"'/")) | unique)}'
  )"
  add_fixture sarif staticcheck staticcheck/backend.sarif sarif relative staticcheck/backend.summary.json staticcheck/backend.tool-output.txt
}

# `scripts/make-fixtures.sh staticcheck-module`: only the fixture above, its manifest entry put
# after go-lint's Staticcheck report (where `sarif` writes it) in place of the one before.
make_staticcheck_module() {
  local out="$ROOT/src/formats/sarif/fixtures" manifest="$ROOT/src/formats/sarif/fixtures/manifest.json"
  mkdir -p "$out/staticcheck" "$WORK/_manifest"
  : >"$WORK/_manifest/sarif.jsonl"
  record_staticcheck_in_module "$out/staticcheck"
  jq --slurpfile new "$WORK/_manifest/sarif.jsonl" '
    map(select(.file != $new[0].file))
    | (map(.file) | index("staticcheck/staticcheck.sarif")) as $at
    | .[0:$at + 1] + $new + .[$at + 1:]' "$manifest" >"$WORK/_manifest.json"
  mv "$WORK/_manifest.json" "$manifest"
}

# Reports on files whose names a URI would escape (a space, `%20` and `%` written literally,
# letters outside ASCII), in JavaScript, C and Go, by every tool here that reads them: each tool
# writes names its own way (encoded `file:` URIs, encoded `%SRCROOT%` references, or the names as
# they are). Every file has a finding of each tool, so each must come back under its own name.
# `files.json` lists the project's files; `manifest.json` lists the reports, with the directory
# each was made in, in the folder's own manifest (the tests of the sarif manifest do not read it).
record_file_names() { # out-dir
  local out=$1 source
  mkdir -p "$out"
  enter_project file-names
  find . -type f \( -name '*.js' -o -name '*.c' -o -name '*.go' \) ! -name eslint.config.js \
    | sed 's|^\./||' | sort | jq -R . | jq -s . >"$out/files.json"
  : >"$WORK/_file-names.jsonl"
  entry() { # tool file format language
    jq -nc --arg tool "$1" --arg file "$2" --arg format "$3" --arg language "$4" --arg workDir "$PWD" \
      '{tool: $tool, file: $file, format: $format, language: $language, workDir: $workDir}' >>"$WORK/_file-names.jsonl"
  }
  NODE_PATH="$NPM_DIR/node_modules" expect_status "1" "$BIN/eslint" --format @microsoft/eslint-formatter-sarif src >"$out/eslint.sarif"
  entry eslint eslint.sarif sarif js
  expect_status "1" "$BIN/biome" lint --colors=off --reporter=sarif src >"$out/biome.sarif" 2>/dev/null
  entry biome biome.sarif sarif js
  expect_status "0 1" "$BIN/oxlint" --threads=1 --format sarif src >"$out/oxlint.sarif"
  entry oxlint oxlint.sarif sarif js
  local n=0
  : >"$out/gcc.json"
  for source in c/*.c; do
    n=$((n + 1))
    clang --analyze --analyzer-output sarif -std=c99 -o "$out/clang-$n.sarif" "$source" 2>/dev/null
    entry clang "clang-$n.sarif" sarif c
    expect_status "0" gcc -std=c11 -Wall -Wextra -fanalyzer -fdiagnostics-format=json -c "$source" -o /dev/null 2>>"$out/gcc.json"
  done
  entry gcc gcc.json gcc-json c
  cppcheck --enable=warning,style --xml c 2>"$out/cppcheck.xml" >/dev/null
  entry cppcheck cppcheck.xml cppcheck-xml c
  expect_status "0" go-staticcheck -checks all -f sarif ./... >"$out/staticcheck.sarif"
  entry staticcheck staticcheck.sarif sarif go
  expect_status "0" go vet -json ./... 2>"$out/vet.json"
  entry govet vet.json go-vet-json go
  jq -s . "$WORK/_file-names.jsonl" >"$out/manifest.json"
  rm -f "$WORK/_file-names.jsonl"
}

# `scripts/make-fixtures.sh file-names`: only the reports above.
make_file_names() {
  record_file_names "$ROOT/src/formats/sarif/fixtures/file-names"
}

# pylint's and Bandit's JSON, on the python-lint project (Debian 12's pylint 2.16, which has no
# `json2`, and Bandit 1.6.2, which writes no SARIF). legacy.py does not parse: pylint reports it as
# syntax-error (E0001), Bandit lists it under `errors`. The summaries are the tools' own: pylint's
# text output (each `path:line:col: ID: message (symbol)` line) and its reports' "Messages by
# category" table; Bandit's screen output (each `>> Issue: [ID:name]` with the severity and
# confidence after it, its "Run metrics" totals and its "Files skipped"). Both run without a
# cache or previous results (pylint --persistent=n), so their output is the same on each run but
# for Bandit's `generated_at`. The folder's own manifest.json lists the two reports. pylint also
# runs on tidy.py, in which it finds nothing: pylint-clean.json is its empty list.
# pylint's own figures from its text output with --reports=y: each message line, and the
# "Messages by category" table.
pylint_figures() { # tool-output.txt
  jq -Rn '[inputs] as $lines
    | [$lines[] | capture("^(?<path>[^ :]+):(?<line>[0-9]+):(?<column>[0-9]+): (?<id>[A-Z][0-9]{4}): (?<message>.*) \\((?<symbol>[a-z0-9-]+)\\)$")
        | .line |= tonumber | .column |= tonumber] as $messages
    | {messages: ($messages | length),
       byCategory: ([$lines[] | capture("^\\|(?<type>convention|refactor|warning|error|fatal|info) *\\|(?<n>[0-9]+) *\\|")]
         | map({key: .type, value: (.n | tonumber)}) | from_entries),
       byRule: ($messages | group_by(.id) | map({key: .[0].id, value: {symbol: .[0].symbol, count: length,
         places: map("\(.path):\(.line)") | sort}}) | from_entries)}' "$1"
}

record_python_lint() { # out-dir
  local out=$1
  install_pylint_json2
  log "pylint and Bandit"
  rm -rf "$out"
  mkdir -p "$out"
  enter_project python-lint
  export PYLINTHOME="$WORK/_pylint-home"
  local pylint_command="pylint --persistent=n --output-format=json shop"
  # pylint's exit status is a bit mask of the message types it printed (here 1|2|4|8|16 = 30 at most).
  expect_status "0 1 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30" pylint --persistent=n --output-format=json shop >"$out/pylint.json"
  expect_status "0 1 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30" pylint --persistent=n --reports=y --score=n shop \
    >"$out/pylint.tool-output.txt"
  # A module pylint finds nothing in: its report is an empty list (its text output, the score).
  expect_status "0" pylint --persistent=n --output-format=json tidy.py >"$out/pylint-clean.json"
  expect_status "0" pylint --persistent=n tidy.py >"$out/pylint-clean.tool-output.txt"
  # pylint 4's json2 output of the same project, with its text output and reports as the summary.
  local pylint4="$PYLINT_JSON2_DIR/bin/pylint"
  local pylint4_command="pylint --persistent=n --output-format=json2 shop"
  expect_status "0 1 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30" "$pylint4" --persistent=n --output-format=json2 shop \
    >"$out/pylint4.json2"
  expect_status "0 1 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30" "$pylint4" --persistent=n --reports=y --score=n shop \
    >"$out/pylint4.tool-output.txt"
  write_summary "$out/pylint4.summary.json" pylint "$("$pylint4" --version | head -n 1)" "$pylint4_command" "$PWD" "$(
    pylint_figures "$out/pylint4.tool-output.txt"
  )"
  write_summary "$out/pylint.summary.json" pylint "$(pylint --version | head -n 1)" "$pylint_command" "$PWD" "$(
    pylint_figures "$out/pylint.tool-output.txt"
  )"
  local bandit_command="bandit -r shop -f json -o bandit.json"
  expect_status "0 1" bandit -q -r shop -f json -o "$out/bandit.json"
  expect_status "0 1" bandit -r shop >"$out/bandit.tool-output.txt" 2>/dev/null
  write_summary "$out/bandit.summary.json" bandit "$(bandit --version | head -n 1)" "$bandit_command" "$PWD" "$(
    jq -Rn '[inputs] as $lines
      | [range(0; $lines | length) as $i | $lines[$i]
          | capture("^>> Issue: \\[(?<id>B[0-9]+):(?<name>[a-z_0-9]+)\\]")
          | . + ($lines[$i + 1] | capture("Severity: (?<severity>[A-Za-z]+) +Confidence: (?<confidence>[A-Za-z]+)"))
          | . + ($lines[$i + 2] | capture("Location: (?<path>[^:]+):(?<line>[0-9]+)") | .line |= tonumber)] as $issues
      | ($lines | index("\tTotal issues (by severity):")) as $s
      | {issues: ($issues | length),
         bySeverity: ([$lines[$s + 1:$s + 5][] | capture("^\\t\\t(?<k>[A-Za-z]+): (?<n>[0-9.]+)$")]
           | map({key: .k, value: (.n | tonumber)}) | from_entries),
         byRule: ($issues | group_by(.id) | map({key: .[0].id, value: {name: .[0].name, count: length,
           severities: (map(.severity) | unique), places: map("\(.path):\(.line)") | sort}}) | from_entries),
         skipped: [$lines[] | capture("^\\t(?<path>[^ ]+) \\((?<reason>.*)\\)$")]}' "$out/bandit.tool-output.txt"
  )"
  unset PYLINTHOME
  jq -n --arg workDir "$PWD" '[
    {tool: "pylint", file: "pylint.json", format: "pylint-json", workDir: $workDir,
     summary: "pylint.summary.json", toolOutput: "pylint.tool-output.txt"},
    {tool: "pylint", file: "pylint4.json2", format: "pylint-json2", workDir: $workDir,
     summary: "pylint4.summary.json", toolOutput: "pylint4.tool-output.txt"},
    {tool: "bandit", file: "bandit.json", format: "bandit-json", workDir: $workDir,
     summary: "bandit.summary.json", toolOutput: "bandit.tool-output.txt"}]' >"$out/manifest.json"
}

# `scripts/make-fixtures.sh python-lint`: only the reports above.
make_python_lint() {
  record_python_lint "$ROOT/src/formats/sarif/fixtures/python-lint"
}

# GCC's warnings and -fanalyzer as JSON, on the c-gcc project. GCC 12 (Debian 12) writes no SARIF
# (that came in 13): -fdiagnostics-format=json writes one JSON list per file compiled, to stderr,
# so a build's stderr (`make 2> gcc.json`) is the lists one after another: gcc.json is each
# invocation's stderr appended in turn, and by-file/<name>.json each one alone (what a CI job that
# uploads per file sends). legacy.c does not compile, and -Werror= makes one warning an error;
# both make gcc exit 1. pricing.h is included by invoice.c and receipt.c, so GCC prints its
# warnings twice. The text output of the same commands is the summary: each
# `file:line:col: warning|error:` line by its [-W…] option, once as printed (`printed`) and once
# for each distinct line (`sort -u`: the other figures).
record_gcc() { # out-dir
  local out=$1 source name gcc_flags=(-std=c11 -Wall -Wextra -Werror=unused-variable -fanalyzer)
  log "GCC (warnings and -fanalyzer, as JSON)"
  enter_project c-gcc
  mkdir -p "$out/by-file"
  : >"$out/gcc.json"
  : >"$out/gcc.tool-output.txt"
  for source in src/*.c; do
    name=$(basename "$source" .c)
    expect_status "0 1" gcc "${gcc_flags[@]}" -fdiagnostics-format=json -c "$source" -o /dev/null 2>"$out/by-file/$name.json"
    cat "$out/by-file/$name.json" >>"$out/gcc.json"
    expect_status "0 1" gcc "${gcc_flags[@]}" -c "$source" -o /dev/null 2>>"$out/gcc.tool-output.txt"
  done
  write_summary "$out/gcc.summary.json" gcc "$(gcc --version | head -n 1)" \
    "for each src/*.c: gcc ${gcc_flags[*]} -fdiagnostics-format=json -c <file> -o /dev/null" "$PWD" "$(
      jq -Rn 'def figures: (map(select(.option != null))) as $findings
          | {warnings: ($findings | map(select(.kind == "warning")) | length),
             errors: ($findings | map(select(.kind == "error")) | length),
             notCompiled: (map(select(.option == null and .kind != "warning")) | length),
             byRule: ($findings | group_by(.option) | map({key: .[0].option, value: {
               errors: map(select(.kind == "error")) | length, warnings: map(select(.kind == "warning")) | length}})
               | from_entries)};
        [inputs | select(test("^[^ :]+:[0-9]+:[0-9]+: (warning|error|fatal error): "))] as $lines
        | [$lines[] | capture("^(?<file>[^ :]+):[0-9]+:[0-9]+: (?<kind>warning|error|fatal error): (?<message>.*)$")
            | . + {option: (.message | capture("\\[(?<o>-W[^]]+)\\]$").o // null)}] as $printed
        | [$lines | unique[] | capture("^(?<file>[^ :]+):[0-9]+:[0-9]+: (?<kind>warning|error|fatal error): (?<message>.*)$")
            | . + {option: (.message | capture("\\[(?<o>-W[^]]+)\\]$").o // null)}] as $distinct
        | ($distinct | figures) + {printed: ($printed | figures | del(.byRule))}' "$out/gcc.tool-output.txt"
    )"
  add_fixture sarif gcc gcc/gcc.json gcc-json relative gcc/gcc.summary.json gcc/gcc.tool-output.txt "$(
    cd "$out" && printf '%s\n' by-file/*.json | jq -Rn '{byFile: [inputs | "gcc/\(.)"]}'
  )"
}

# GCC's whole-build JSON on other versions of the c-gcc project, for histories with the gcc
# fixture (test/ingest-unanalyzed.test.ts). c-gcc-history/<version>/ holds only the files that
# differ from c-gcc/, copied over it in the order a build lists them:
#   base.json            base: src/legacy.c still compiles (two warnings), src/discount.c exists
#   fixed.json           fixed: src/legacy.c compiles again with one of its two warnings fixed
#   rounding.json        fixed + rounding: src/receipt.c prints its label after freeing it (a
#                        middle-end warning, given only when the file compiles); pricing.h compiles
#   rounding-broken.json the same built with -DPRICING_ROUNDING: pricing.h has an error, so
#                        receipt.c's and invoice.c's compilations stop there
#   shard-plain.json,    fixed + rounding + shards (receipt.c frees after printing again), built
#   shard-rounding.json  without and with -DPRICING_ROUNDING: two shards of one commit's build
# The same flags and directory as the gcc fixture, so the fingerprints agree. The summary: per
# build, the distinct `file:line:col: warning|error:` lines of the text output, per file
# (findings, and errors without an option: a file not compiled), and the files GCC's text says
# the failing headers were included from ("In file included from …"), which its JSON does not.
record_gcc_history() { # out-dir
  local out=$1 build name overlays overlay source flags gcc_flags=(-std=c11 -Wall -Wextra -Werror=unused-variable -fanalyzer)
  local builds=(
    "base|base|" "fixed|fixed|" "rounding|fixed rounding|" "rounding-broken|fixed rounding|-DPRICING_ROUNDING"
    "shard-plain|fixed rounding shards|" "shard-rounding|fixed rounding shards|-DPRICING_ROUNDING"
  )
  rm -rf "$out"
  mkdir -p "$out" "$WORK"
  : >"$WORK/_gcc-history.jsonl"
  for build in "${builds[@]}"; do
    IFS='|' read -r name overlays flags <<<"$build"
    log "GCC on the c-gcc project's $name version"
    enter_project c-gcc
    for overlay in $overlays; do cp -r "$SOURCES/c-gcc-history/$overlay/." .; done
    : >"$out/$name.json"
    : >"$out/$name.tool-output.txt"
    for source in src/*.c; do
      # $flags is one option or none: unquoted on purpose.
      # shellcheck disable=SC2086
      expect_status "0 1" gcc "${gcc_flags[@]}" $flags -fdiagnostics-format=json -c "$source" -o /dev/null 2>>"$out/$name.json"
      # shellcheck disable=SC2086
      expect_status "0 1" gcc "${gcc_flags[@]}" $flags -c "$source" -o /dev/null 2>>"$out/$name.tool-output.txt"
    done
    jq -Rnc --arg name "$name" --arg overlays "$overlays" --arg flags "$flags" '
      [inputs] as $all
      | [$all[] | select(test("^[^ :]+:[0-9]+:[0-9]+: (warning|error|fatal error): "))] | unique
      | map(capture("^(?<file>[^ :]+):[0-9]+:[0-9]+: (?<kind>warning|error|fatal error): (?<message>.*)$")
        | . + {finding: (.message | test("\\[-W[^]]+\\]$"))})
      | {key: $name, value: {overlays: ($overlays | split(" ")), flags: $flags,
          byFile: (group_by(.file) | map({key: .[0].file, value: {
            findings: map(select(.finding)) | length,
            notCompiled: map(select(.finding | not)) | length}}) | from_entries),
          includedFrom: [$all[] | capture("^In file included from (?<file>[^ :]+):[0-9]+:$").file] | unique}}' \
      "$out/$name.tool-output.txt" >>"$WORK/_gcc-history.jsonl"
  done
  write_summary "$out/gcc-history.summary.json" gcc "$(gcc --version | head -n 1)" \
    "for each build, with its files copied over c-gcc/: for each src/*.c: gcc ${gcc_flags[*]} [<build flags>] -fdiagnostics-format=json -c <file> -o /dev/null" "$PWD" \
    "$(jq -s 'from_entries | {builds: .}' "$WORK/_gcc-history.jsonl")"
  rm -f "$WORK/_gcc-history.jsonl"
}

# ESLint with the SARIF formatter, on the js-lint project, and the same run's own JSON outputs
# (eslint.json from `--format json`, eslint-metadata.json from `--format json-with-metadata`,
# which adds its rules' `meta`), read as reports of their own. The summary: the stylish formatter's
# totals, and from the JSON formatter the problems per rule and, apart (`withoutRule`), those of
# no rule, such as an unused eslint-disable directive, which ESLint counts among its problems and
# the SARIF formatter files under the invocation's toolConfigurationNotifications.
record_eslint() { # out-dir
  local out=$1
  log "ESLint"
  enter_project js-lint
  # The formatter is resolved through NODE_PATH, from the tools directory.
  NODE_PATH="$NPM_DIR/node_modules" expect_status "1" "$BIN/eslint" --format @microsoft/eslint-formatter-sarif src >"$out/eslint.sarif"
  expect_status "1" "$BIN/eslint" src >"$out/eslint.tool-output.txt"
  expect_status "1" "$BIN/eslint" --format json src >"$out/eslint.json"
  expect_status "1" "$BIN/eslint" --format json-with-metadata src >"$out/eslint-metadata.json"
  write_summary "$out/eslint.summary.json" eslint "$("$BIN/eslint" --version)" \
    "eslint --format @microsoft/eslint-formatter-sarif src" "$PWD" "$(
      jq -n --rawfile stylish "$out/eslint.tool-output.txt" --slurpfile results "$out/eslint.json" --arg root "$PWD/" '
        ($stylish | capture("(?<p>[0-9]+) problems? \\((?<e>[0-9]+) errors?, (?<w>[0-9]+) warnings?\\)")) as $t
        | [$results[0][] | (.filePath | ltrimstr($root)) as $file | .messages[] | . + {file: $file}] as $messages
        | {problems: ($t.p | tonumber), errors: ($t.e | tonumber), warnings: ($t.w | tonumber),
           formatterSarif: "'"$ESLINT_SARIF_VERSION"'",
           byRule: ($messages | map(select(.ruleId != null)) | group_by(.ruleId) | map({key: .[0].ruleId, value: {
             errors: map(select(.severity == 2)) | length, warnings: map(select(.severity == 1)) | length}})
             | from_entries),
           withoutRule: ($messages | map(select(.ruleId == null)
             | {file, line, column, level: (if .severity == 2 then "error" else "warning" end), message}))}'
    )"
  add_fixture sarif eslint eslint/eslint.sarif sarif absolute-file-uri eslint/eslint.summary.json eslint/eslint.tool-output.txt
}

# `scripts/make-fixtures.sh gcc|eslint`: only that tool's fixture, its manifest entry kept where it was.
make_one_sarif_fixture() { # tool record-function
  local out="$ROOT/src/formats/sarif/fixtures" manifest="$ROOT/src/formats/sarif/fixtures/manifest.json"
  rm -rf "${out:?}/$1"
  mkdir -p "$out/$1" "$WORK/_manifest"
  : >"$WORK/_manifest/sarif.jsonl"
  "$2" "$out/$1"
  jq --slurpfile new "$WORK/_manifest/sarif.jsonl" 'map(if .file == $new[0].file then $new[0] else . end)' \
    "$manifest" >"$WORK/_manifest.json"
  mv "$WORK/_manifest.json" "$manifest"
}

# Coverage that tools write in forms outside the coverage manifest (whose tests expect a report's
# own totals to agree with its detail, which LLVM's LCOV does not): clang's source-based coverage
# exported as LCOV (`llvm-cov export -format=lcov`), with lcov's and llvm-cov's own summaries; and
# three JSON reports Assay does not read, which an upload refuses naming the export to use instead:
# llvm-cov's JSON export, c8's (Istanbul's) coverage-final.json and coverage.py's JSON report. The
# folder's own `manifest.json` lists them.
record_coverage_other() { # out-dir
  local out=$1
  rm -rf "$out"
  mkdir -p "$out"
  : >"$WORK/_coverage-other.jsonl"
  other() { # file format tool
    jq -nc --arg file "$1" --arg format "$2" --arg tool "$3" --arg workDir "$PWD" \
      '{file: $file, format: $format, tool: $tool, workDir: $workDir}' >>"$WORK/_coverage-other.jsonl"
  }
  log "clang's source-based coverage (llvm-cov)"
  enter_project c-coverage
  clang -std=c11 -O0 -fprofile-instr-generate -fcoverage-mapping -o test_ring tests/test_ring.c src/ring.c
  LLVM_PROFILE_FILE=ring.profraw ./test_ring >/dev/null
  llvm-profdata merge -sparse ring.profraw -o ring.profdata
  llvm-cov export -format=lcov -instr-profile=ring.profdata test_ring >llvm.lcov
  cp llvm.lcov "$out/llvm.lcov"
  llvm-cov export -summary-only -instr-profile=ring.profdata test_ring >"$out/llvm-export.json"
  {
    echo "\$ llvm-cov report -instr-profile=ring.profdata test_ring"
    llvm-cov report -instr-profile=ring.profdata test_ring
  } >"$out/llvm.tool-output.txt"
  lcov_summary llvm.lcov "$WORK/_llvm-summary.txt"
  cat "$WORK/_llvm-summary.txt" >>"$out/llvm.tool-output.txt"
  write_summary "$out/llvm.summary.json" lcov "$(lcov --version | sed 's/^lcov: //'), $(llvm-cov --version | sed -n 's/^.*LLVM version /LLVM /p')" \
    "clang -fprofile-instr-generate -fcoverage-mapping; ./test_ring; llvm-profdata merge; llvm-cov export -format=lcov" "$PWD" \
    "$(jq -n --argjson lcov "$(lcov_summary_figures "$WORK/_llvm-summary.txt")" '{lcovSummary: $lcov}')"
  other llvm.lcov lcov llvm
  other llvm-export.json llvm-cov-json llvm
  log "c8's JSON coverage"
  enter_project js-coverage
  "$BIN/c8" --reporter=json node --test test/ >/dev/null 2>&1
  cp coverage/coverage-final.json "$out/coverage-final.json"
  other coverage-final.json istanbul-json c8
  log "coverage.py's JSON report"
  enter_project python-coverage
  "$PYTHON" -m coverage run --branch "--omit=*/_distutils_hack/*" -m unittest discover -s tests -t . >/dev/null 2>&1
  "$PYTHON" -m coverage json -q "--include=$PWD/*" -o "$out/coverage.json"
  other coverage.json coverage-py-json coverage-py
  jq -s . "$WORK/_coverage-other.jsonl" >"$out/manifest.json"
  rm -f "$WORK/_coverage-other.jsonl"
}

make_coverage_other() {
  record_coverage_other "$ROOT/src/formats/coverage/fixtures/other"
}

# ---------------------------------------------------------------------------------------------
make_sarif() {
  begin_kind sarif
  local out="$ROOT/src/formats/sarif/fixtures"
  mkdir -p "$out/clang" "$out/cppcheck" "$out/gcc" "$out/staticcheck" "$out/govet" "$out/eslint" "$out/biome" "$out/oxlint" "$out/secretlint"

  log "clang static analyzer"
  enter_project c-analyzer
  local clang_version tu command
  clang_version=$(clang --version | head -n 1)
  for tu in inventory main; do
    command="clang --analyze --analyzer-output sarif -std=c99 -Xclang -analyzer-checker=security.insecureAPI.strcpy -o $tu.sarif src/$tu.c"
    $command >"$out/clang/$tu.tool-output.txt" 2>&1
    cp "$tu.sarif" "$out/clang/$tu.sarif"
    write_summary "$out/clang/$tu.summary.json" "clang static analyzer" "$clang_version" "$command" "$PWD" "$(
      jq -Rn '[inputs] as $lines | {
        warnings: ($lines | map(capture("^(?<n>[0-9]+) warnings? generated\\.$").n | tonumber) | add // 0),
        byChecker: ($lines | map(capture(": warning: .* \\[(?<c>[A-Za-z0-9_.]+)\\]$").c)
          | group_by(.) | map({key: .[0], value: length}) | from_entries)
      }' "$out/clang/$tu.tool-output.txt"
    )"
    add_fixture sarif clang "clang/$tu.sarif" sarif absolute-file-uri "clang/$tu.summary.json" "clang/$tu.tool-output.txt"
  done

  log "cppcheck"
  enter_project c-cppcheck
  # cppcheck 2.10 (Debian 12) writes no SARIF: its XML (version 2) is the report, its default text
  # output the summary. A 64-bit platform so that a pointer kept in an int is a portability finding.
  command="cppcheck --enable=all --inconclusive --platform=unix64 --xml src"
  $command 2>"$out/cppcheck/cppcheck.xml" >/dev/null
  cppcheck --enable=all --inconclusive --platform=unix64 src >/dev/null 2>"$out/cppcheck/cppcheck.tool-output.txt"
  write_summary "$out/cppcheck/cppcheck.summary.json" cppcheck "$(cppcheck --version)" "$command" "$PWD" "$(
    jq -Rn '[inputs | capture("^(?<file>[^ :]+):[0-9]+:[0-9]+: (?<severity>[a-z]+): (?<inconclusive>inconclusive: )?.* \\[(?<id>[A-Za-z0-9_]+)\\]$")
        | select(.severity != "note")] as $findings
      | {problems: ($findings | length),
         bySeverity: ($findings | group_by(.severity) | map({key: .[0].severity, value: length}) | from_entries),
         withoutFile: ($findings | map(select(.file == "nofile")) | length),
         byRule: ($findings | group_by(.id) | map({key: .[0].id, value: {
           severity: .[0].severity, count: length, inconclusive: map(select(.inconclusive != null)) | length,
           withoutFile: map(select(.file == "nofile")) | length}})
           | from_entries)}' "$out/cppcheck/cppcheck.tool-output.txt"
  )"
  add_fixture sarif cppcheck cppcheck/cppcheck.xml cppcheck-xml relative cppcheck/cppcheck.summary.json cppcheck/cppcheck.tool-output.txt

  record_gcc "$out/gcc"
  record_gcc_history "$out/gcc-history"

  log "Staticcheck"
  enter_project go-lint
  # Every check (`-checks all`, which adds the doc-comment checks the default leaves out). Its SARIF
  # gives results no level; its stylish output's totals and its JSON output's codes are the summary.
  # One `//lint:ignore` matches a finding (stylish counts it as ignored; the SARIF leaves it out)
  # and one matches nothing (reported as the check `staticcheck`). With SARIF it exits 0.
  expect_status "0" go-staticcheck -checks all -f sarif ./... >"$out/staticcheck/staticcheck.sarif"
  expect_status "1" go-staticcheck -checks all ./... >"$out/staticcheck/staticcheck.tool-output.txt"
  expect_status "1" go-staticcheck -checks all -f stylish ./... >"$WORK/_staticcheck.stylish"
  expect_status "1" go-staticcheck -checks all -f json ./... >"$WORK/_staticcheck.json"
  write_summary "$out/staticcheck/staticcheck.summary.json" staticcheck "$(go-staticcheck -version)" \
    "go-staticcheck -checks all -f sarif ./..." "$PWD" "$(
      jq -n --rawfile stylish "$WORK/_staticcheck.stylish" --slurpfile problems "$WORK/_staticcheck.json" '
        ($stylish | capture("(?<p>[0-9]+) problems? \\((?<e>[0-9]+) errors?, (?<w>[0-9]+) warnings?, (?<i>[0-9]+) ignored\\)")) as $t
        | {errors: ($t.e | tonumber), warnings: ($t.w | tonumber), ignored: ($t.i | tonumber),
           byRule: ($problems | group_by(.code) | map({key: .[0].code, value: {
             errors: map(select(.severity == "error")) | length, warnings: map(select(.severity == "warning")) | length}})
             | from_entries)}'
    )"
  add_fixture sarif staticcheck staticcheck/staticcheck.sarif sarif relative staticcheck/staticcheck.summary.json staticcheck/staticcheck.tool-output.txt
  record_staticcheck_in_module "$out/staticcheck"

  log "go vet"
  enter_project go-vet
  # vet writes its JSON, after the go command's `# <package>` lines, to stderr; it exits 2 here
  # because one package does not type-check. Its text output names no analyzer, so the summary
  # runs vet once per analyzer (`go vet -<name>`) and counts the places each printed; `vet:`
  # lines are the packages it could not analyze.
  expect_status "2" go vet -json ./... 2>"$out/govet/vet.json"
  expect_status "2" go vet ./... 2>"$out/govet/vet.tool-output.txt"
  local analyzer
  for analyzer in $(go tool vet help | sed -n 's/^    \([a-z]*\) .*/\1/p'); do
    expect_status "2" go vet "-$analyzer" ./... 2>"$WORK/_vet.txt"
    printf '%s %s\n' "$analyzer" "$(grep -v '^vet: ' "$WORK/_vet.txt" | grep -cE '^[^ #].*:[0-9]+:[0-9]+: ' || true)"
  done >"$WORK/_vet-by-analyzer.txt"
  write_summary "$out/govet/vet.summary.json" "go vet" "$(go version)" "go vet -json ./..." "$PWD" "$(
    jq -n --rawfile text "$out/govet/vet.tool-output.txt" --rawfile counts "$WORK/_vet-by-analyzer.txt" '
      ($text | split("\n")) as $lines
      | {findings: ($lines | map(select(test("^[^ #].*:[0-9]+:[0-9]+: ") and (startswith("vet: ") | not))) | length),
         toolErrors: ($lines | map(select(startswith("vet: "))) | length),
         byRule: ($counts | split("\n") | map(select(. != "") | split(" ") | {key: .[0], value: (.[1] | tonumber)})
           | map(select(.value > 0)) | from_entries)}'
  )"
  add_fixture sarif govet govet/vet.json go-vet-json absolute govet/vet.summary.json govet/vet.tool-output.txt

  record_eslint "$out/eslint"

  log "Biome"
  expect_status "1" "$BIN/biome" lint --colors=off --reporter=sarif src >"$out/biome/biome.sarif" 2>/dev/null
  expect_status "1" "$BIN/biome" lint --colors=off --reporter=summary src >"$out/biome/biome.tool-output.txt" 2>&1
  write_summary "$out/biome/biome.summary.json" biome "$("$BIN/biome" --version | sed 's/^Version: //')" \
    "biome lint --reporter=sarif src" "$PWD" "$(
      jq -Rn '[inputs] as $lines | {
        errors: ($lines | map(capture("^Found (?<n>[0-9]+) errors?\\.").n | tonumber) | add // 0),
        warnings: ($lines | map(capture("^Found (?<n>[0-9]+) warnings?\\.").n | tonumber) | add // 0),
        byRule: ($lines | map(capture("^ *(?<rule>lint/[A-Za-z0-9/]+) +(?<n>[0-9]+) \\((?<detail>[^)]*)\\)"))
          | sort_by(.rule) | map({key: .rule, value: {
              diagnostics: (.n | tonumber),
              errors: ((.detail | capture("(?<e>[0-9]+) errors?").e // "0") | tonumber),
              warnings: ((.detail | capture("(?<w>[0-9]+) warnings?").w // "0") | tonumber)}})
          | from_entries)
      }' "$out/biome/biome.tool-output.txt"
    )"
  add_fixture sarif biome biome/biome.sarif sarif absolute-path biome/biome.summary.json biome/biome.tool-output.txt

  log "oxlint"
  # One thread: the findings come out in the same order every time.
  expect_status "1" "$BIN/oxlint" --threads=1 --format sarif src >"$out/oxlint/oxlint.sarif"
  expect_status "1" "$BIN/oxlint" --threads=1 src >"$out/oxlint/oxlint.tool-output.txt"
  write_summary "$out/oxlint/oxlint.summary.json" oxlint "$("$BIN/oxlint" --version | sed 's/^Version: //')" \
    "oxlint --threads=1 --format sarif src" "$PWD" "$(
      jq -Rn '[inputs] as $lines
        | ($lines | map(capture("^Found (?<w>[0-9]+) warnings? and (?<e>[0-9]+) errors?\\.")) | first) as $t
        | {errors: ($t.e | tonumber), warnings: ($t.w | tonumber),
           byRule: ($lines | map(capture("^  (?<mark>[x!]) (?<rule>[a-z0-9_-]+\\([^)]+\\)):"))
             | group_by(.rule) | map({key: .[0].rule, value: {
                 errors: map(select(.mark == "x")) | length, warnings: map(select(.mark == "!")) | length}})
             | from_entries)}' "$out/oxlint/oxlint.tool-output.txt"
    )"
  add_fixture sarif oxlint oxlint/oxlint.sarif sarif relative oxlint/oxlint.summary.json oxlint/oxlint.tool-output.txt

  log "secretlint"
  enter_project secrets
  expect_status "1" "$BIN/secretlint" "**/*" --format @secretlint/secretlint-formatter-sarif >"$out/secretlint/secretlint.sarif"
  expect_status "1" "$BIN/secretlint" "**/*" --no-color >"$out/secretlint/secretlint.tool-output.txt"
  expect_status "1" "$BIN/secretlint" "**/*" --format json >"$WORK/_secretlint.json"
  write_summary "$out/secretlint/secretlint.summary.json" secretlint "$("$BIN/secretlint" --version)" \
    "secretlint \"**/*\" --format @secretlint/secretlint-formatter-sarif" "$PWD" "$(
      jq -n --rawfile stylish "$out/secretlint/secretlint.tool-output.txt" --slurpfile results "$WORK/_secretlint.json" '
        ($stylish | capture("(?<p>[0-9]+) problems? \\((?<e>[0-9]+) errors?, (?<w>[0-9]+) warnings?")) as $t
        | {problems: ($t.p | tonumber), errors: ($t.e | tonumber), warnings: ($t.w | tonumber),
           byRule: ([$results[0][].messages[]] | group_by(.ruleId) | map({value: length,
             key: ((if .[0].ruleParentId then "\(.[0].ruleParentId) > " else "" end) + .[0].ruleId)})
             | from_entries)}'
    )"
  add_fixture sarif secretlint secretlint/secretlint.sarif sarif relative secretlint/secretlint.summary.json secretlint/secretlint.tool-output.txt

  log "file names a URI would escape"
  record_file_names "$out/file-names"

  record_python_lint "$out/python-lint"

  write_manifest sarif
}

# ---------------------------------------------------------------------------------------------
make_coverage() {
  begin_kind coverage
  local out="$ROOT/src/formats/coverage/fixtures"
  mkdir -p "$out/c8" "$out/node-test" "$out/coverage-py" "$out/gcc-lcov" "$out/gcovr" "$out/jacoco" "$out/go" "$out/git-diff" \
    "$out/phpunit"

  log "git diff (changed lines between two commits of js-coverage)"
  enter_project js-coverage
  local git_env=(env GIT_AUTHOR_NAME="Assay fixtures" GIT_AUTHOR_EMAIL=fixtures@assay.invalid
    GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_NAME="Assay fixtures"
    GIT_COMMITTER_EMAIL=fixtures@assay.invalid GIT_COMMITTER_DATE=2025-01-01T00:00:00Z)
  git -c init.defaultBranch=main init -q .
  cp -r "$SOURCES/js-coverage-previous/." .
  git add -A && "${git_env[@]}" git commit -q -m "Price carts"
  cp -r "$SOURCES/js-coverage/." .
  git add -A && "${git_env[@]}" git commit -q -m "Silver tier, first-order discount, more shipping regions"
  record_git_diff git-diff

  log "c8 over node --test"
  rm -rf .git
  local node_version
  node_version=$(node --version)
  "$BIN/c8" --reporter=lcov --reporter=cobertura --reporter=clover --reporter=json-summary \
    --reporter=text --reporter=text-summary node --test test/ >"$out/c8/c8.tool-output.txt" 2>&1
  cp coverage/lcov.info "$out/c8/lcov.info"
  cp coverage/cobertura-coverage.xml "$out/c8/cobertura-coverage.xml"
  cp coverage/clover.xml "$out/c8/clover.xml"
  cp coverage/coverage-summary.json "$out/c8/coverage-summary.json"
  lcov_summary coverage/lcov.info "$WORK/_c8-lcov-summary.txt"
  cat "$WORK/_c8-lcov-summary.txt" >>"$out/c8/c8.tool-output.txt"
  write_summary "$out/c8/c8.summary.json" c8 "c8 $(jq -r .version "$NPM_DIR/node_modules/c8/package.json"), node $node_version" \
    "c8 --reporter=lcov --reporter=cobertura --reporter=clover --reporter=json-summary --reporter=text --reporter=text-summary node --test test/" \
    "$PWD" "$(
      jq -n --slurpfile summary coverage/coverage-summary.json \
        --argjson clover "$(xml_figures coverage/clover.xml '{k: int(v) for k, v in root.find("project/metrics").attrib.items()}')" \
        --argjson cobertura "$(xml_figures coverage/cobertura-coverage.xml '{k: root.attrib[k] for k in ("lines-valid", "lines-covered", "line-rate", "branches-valid", "branches-covered", "branch-rate")}')" \
        --argjson lcov "$(lcov_summary_figures "$WORK/_c8-lcov-summary.txt")" \
        '{jsonSummaryTotal: $summary[0].total, cloverProjectMetrics: $clover, coberturaRoot: $cobertura,
          lcovSummaryOfLcovInfo: $lcov}'
    )"
  add_fixture coverage c8 c8/lcov.info lcov relative c8/c8.summary.json c8/c8.tool-output.txt
  add_fixture coverage c8 c8/cobertura-coverage.xml cobertura relative-to-sources c8/c8.summary.json c8/c8.tool-output.txt
  add_fixture coverage c8 c8/clover.xml clover absolute-path c8/c8.summary.json c8/c8.tool-output.txt

  log "node --test --experimental-test-coverage"
  node --test --experimental-test-coverage --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=lcov --test-reporter-destination="$WORK/_node-test.lcov" test/ >"$out/node-test/node-test.tool-output.txt" 2>&1
  cp "$WORK/_node-test.lcov" "$out/node-test/lcov.info"
  lcov_summary "$WORK/_node-test.lcov" "$WORK/_node-test-lcov-summary.txt"
  cat "$WORK/_node-test-lcov-summary.txt" >>"$out/node-test/node-test.tool-output.txt"
  write_summary "$out/node-test/node-test.summary.json" "node test runner" "node $node_version" \
    "node --test --experimental-test-coverage --test-reporter=spec --test-reporter-destination=stdout --test-reporter=lcov --test-reporter-destination=lcov.info test/" \
    "$PWD" "$(
      jq -Rn --argjson lcov "$(lcov_summary_figures "$WORK/_node-test-lcov-summary.txt")" '
        [inputs | capture("^. all files +\\| +(?<l>[0-9.]+) \\| +(?<b>[0-9.]+) \\| +(?<f>[0-9.]+)")] | first
        | {allFiles: {linePercent: (.l | tonumber), branchPercent: (.b | tonumber), functionPercent: (.f | tonumber)},
           lcovSummaryOfLcovInfo: $lcov}' "$out/node-test/node-test.tool-output.txt"
    )"
  add_fixture coverage node-test node-test/lcov.info lcov relative node-test/node-test.summary.json node-test/node-test.tool-output.txt

  log "coverage.py"
  enter_project python-coverage
  local coverage_run=(-m coverage run --branch "--omit=*/_distutils_hack/*" -m unittest discover -s tests -t .)
  {
    echo "\$ python3 ${coverage_run[*]}"
    "$PYTHON" "${coverage_run[@]}" 2>&1
    echo "\$ python3 -m coverage report"
    "$PYTHON" -m coverage report
    echo "\$ python3 -m coverage report --include=$PWD/*"
    "$PYTHON" -m coverage report "--include=$PWD/*"
  } >"$out/coverage-py/coverage-py.tool-output.txt"
  "$PYTHON" -m coverage xml -q -o "$out/coverage-py/coverage.xml"
  write_summary "$out/coverage-py/coverage-py.summary.json" coverage.py "$("$PYTHON" -m coverage --version | head -n 1)" \
    "python3 ${coverage_run[*]} && python3 -m coverage xml -o coverage.xml" "$PWD" "$(
      jq -n --argjson all "$("$PYTHON" -m coverage json -q -o - | jq .totals)" \
        --argjson project "$("$PYTHON" -m coverage json -q -o - "--include=$PWD/*" | jq .totals)" \
        --argjson cobertura "$(xml_figures "$out/coverage-py/coverage.xml" '{k: root.attrib[k] for k in ("lines-valid", "lines-covered", "line-rate", "branches-valid", "branches-covered", "branch-rate")}')" \
        '{allFiles: $all, projectFilesOnly: $project, projectFilesOnlyInclude: "'"$PWD"'/*", coberturaRoot: $cobertura}'
    )"
  add_fixture coverage coverage-py coverage-py/coverage.xml cobertura relative-to-sources coverage-py/coverage-py.summary.json coverage-py/coverage-py.tool-output.txt

  # The same run as LCOV (`coverage lcov`, coverage.py 6.3 and later). coverage.py 6.5's writer puts
  # a function's exit branches on line 0 and a line 1 into every module; lcov reads the detail as
  # written, so its summary, over the project's files (lcov --remove of the rest), is the figure.
  "$PYTHON" -m coverage lcov -q -o "$out/coverage-py/coverage.lcov"
  lcov --remove "$out/coverage-py/coverage.lcov" '/usr/*' --rc lcov_branch_coverage=1 -o "$WORK/_coverage-py-project.lcov" >/dev/null 2>&1
  lcov_summary "$WORK/_coverage-py-project.lcov" "$WORK/_coverage-py-lcov-summary.txt"
  {
    echo "\$ python3 -m coverage lcov -o coverage.lcov"
    echo "\$ lcov --remove coverage.lcov '/usr/*' -o project.lcov && lcov --summary project.lcov"
    cat "$WORK/_coverage-py-lcov-summary.txt"
  } >"$out/coverage-py/coverage-lcov.tool-output.txt"
  write_summary "$out/coverage-py/coverage-lcov.summary.json" coverage.py "$("$PYTHON" -m coverage --version | head -n 1), $(lcov --version | sed 's/^lcov: //')" \
    "python3 ${coverage_run[*]} && python3 -m coverage lcov -o coverage.lcov" "$PWD" "$(
      jq -n --argjson lcov "$(lcov_summary_figures "$WORK/_coverage-py-lcov-summary.txt")" \
        --argjson own "$("$PYTHON" -m coverage json -q -o - "--include=$PWD/*" | jq .totals)" \
        '{lcovSummaryOfProjectFiles: $lcov, coveragePyReportOfProjectFiles: $own}'
    )"
  add_fixture coverage coverage-py coverage-py/coverage.lcov lcov relative coverage-py/coverage-lcov.summary.json coverage-py/coverage-lcov.tool-output.txt

  log "coverage.py with two sources (pytest's --cov=invoices --cov=tests), its git diff and diff-cover"
  # sources.coveragerc names two sources, as pytest-cov's --cov options do. coverage.py's XML then
  # lists both under <sources> and writes each filename relative to the source it lies in, without
  # saying which (`totals.py`, `test_totals.py`; the two `__init__.py` become one element). The
  # project is also a history of two commits (python-coverage-previous's files, then these), whose
  # diff diff-cover reads the XML against, joining each filename with each source.
  enter_project python-coverage
  git -c init.defaultBranch=main init -q .
  cp -r "$SOURCES/python-coverage-previous/." .
  git add -A && "${git_env[@]}" git commit -q -m "Invoice totals"
  cp -r "$SOURCES/python-coverage/." .
  git add -A && "${git_env[@]}" git commit -q -m "Negative quantities refused, AU tax, late fee tiers"
  local sources_run=(-m coverage run --rcfile=sources.coveragerc -m unittest discover -s tests -t .)
  {
    echo "\$ python3 ${sources_run[*]}"
    "$PYTHON" "${sources_run[@]}" 2>&1
    echo "\$ python3 -m coverage report --rcfile=sources.coveragerc"
    "$PYTHON" -m coverage report --rcfile=sources.coveragerc
  } >"$out/coverage-py/coverage-sources.tool-output.txt"
  "$PYTHON" -m coverage xml -q --rcfile=sources.coveragerc -o coverage-sources.xml
  cp coverage-sources.xml "$out/coverage-py/coverage-sources.xml"
  "$PYTHON" -m coverage json -q --rcfile=sources.coveragerc -o "$WORK/_coverage-sources.json"
  write_summary "$out/coverage-py/coverage-sources.summary.json" coverage.py "$("$PYTHON" -m coverage --version | head -n 1)" \
    "python3 ${sources_run[*]} && python3 -m coverage xml --rcfile=sources.coveragerc -o coverage-sources.xml" "$PWD" "$(
      jq --argjson cobertura "$(xml_figures coverage-sources.xml '{k: root.attrib[k] for k in ("lines-valid", "lines-covered", "line-rate", "branches-valid", "branches-covered", "branch-rate")}')" \
        --argjson sources "$(xml_figures coverage-sources.xml '[s.text for s in root.iter("source")]')" \
        '{allFiles: .totals, coveragePyFiles: (.files | map_values(.summary | {covered_lines, num_statements, covered_branches, num_branches})),
          coberturaRoot: $cobertura, coberturaSources: $sources}' "$WORK/_coverage-sources.json"
    )"
  add_fixture coverage coverage-py coverage-py/coverage-sources.xml cobertura relative-to-sources \
    coverage-py/coverage-sources.summary.json coverage-py/coverage-sources.tool-output.txt
  record_git_diff coverage-py
  record_diff_cover coverage-py coverage-py-sources-changes coverage-py/coverage-sources.xml coverage-sources.xml

  log "gcc --coverage, lcov and gcovr"
  enter_project c-coverage
  {
    make -s check CC=gcc
    lcov --capture --directory . --rc lcov_branch_coverage=1 --output-file ring.lcov
  } >"$out/gcc-lcov/gcc-lcov.tool-output.txt" 2>&1
  cp ring.lcov "$out/gcc-lcov/ring.lcov"
  lcov_summary ring.lcov "$WORK/_gcc-lcov-summary.txt"
  cat "$WORK/_gcc-lcov-summary.txt" >>"$out/gcc-lcov/gcc-lcov.tool-output.txt"
  write_summary "$out/gcc-lcov/gcc-lcov.summary.json" lcov "$(lcov --version | sed 's/^lcov: //'), $(gcc --version | head -n 1)" \
    "make check CC=gcc && lcov --capture --directory . --rc lcov_branch_coverage=1 --output-file ring.lcov" "$PWD" \
    "$(jq -n --argjson lcov "$(lcov_summary_figures "$WORK/_gcc-lcov-summary.txt")" '{lcovSummary: $lcov}')"
  add_fixture coverage gcc-lcov gcc-lcov/ring.lcov lcov absolute-path gcc-lcov/gcc-lcov.summary.json gcc-lcov/gcc-lcov.tool-output.txt

  gcovr --root . --cobertura gcovr.xml --cobertura-pretty --json-summary gcovr-summary.json --json-summary-pretty --print-summary \
    >"$out/gcovr/gcovr.tool-output.txt" 2>&1
  cp gcovr.xml "$out/gcovr/cobertura.xml"
  write_summary "$out/gcovr/gcovr.summary.json" gcovr "$(gcovr --version | head -n 1)" \
    "gcovr --root . --cobertura gcovr.xml --cobertura-pretty --json-summary gcovr-summary.json --json-summary-pretty --print-summary" "$PWD" \
    "$(jq '{total: (. | del(.files)), files: [.files[] | {filename, line_covered, line_total, branch_covered, branch_total}]}' gcovr-summary.json)"
  add_fixture coverage gcovr gcovr/cobertura.xml cobertura relative-to-sources gcovr/gcovr.summary.json gcovr/gcovr.tool-output.txt

  log "gcc --coverage, lcov and gcovr on a directory whose name is not ASCII"
  # lcov 1.16 writes a path whose characters are all Latin-1 (src/données/) in Latin-1, not in the
  # UTF-8 of the file system (geninfo decodes it and prints it without an encoding; a path with a
  # character beyond Latin-1 comes out as UTF-8). gcovr reads the same counters and names each
  # file in UTF-8: its per-file figures are the summary of the LCOV report.
  enter_project c-coverage-paths
  mkdir -p "$out/gcc-lcov-paths"
  {
    make -s check CC=gcc
    lcov --capture --directory . --rc lcov_branch_coverage=1 --output-file fares.lcov
  } >"$out/gcc-lcov-paths/gcc-lcov-paths.tool-output.txt" 2>&1
  cp fares.lcov "$out/gcc-lcov-paths/fares.lcov"
  lcov_summary fares.lcov "$WORK/_gcc-lcov-paths-summary.txt"
  cat "$WORK/_gcc-lcov-paths-summary.txt" >>"$out/gcc-lcov-paths/gcc-lcov-paths.tool-output.txt"
  gcovr --root . --json-summary gcovr-summary.json --json-summary-pretty --print-summary \
    >>"$out/gcc-lcov-paths/gcc-lcov-paths.tool-output.txt" 2>&1
  write_summary "$out/gcc-lcov-paths/gcc-lcov-paths.summary.json" "lcov and gcovr" \
    "$(lcov --version | sed 's/^lcov: //'), $(gcovr --version | head -n 1), $(gcc --version | head -n 1)" \
    "make check CC=gcc && lcov --capture --directory . --rc lcov_branch_coverage=1 --output-file fares.lcov; gcovr --root . --json-summary gcovr-summary.json" \
    "$PWD" "$(jq --argjson lcov "$(lcov_summary_figures "$WORK/_gcc-lcov-paths-summary.txt")" \
      '{lcovSummary: $lcov, total: (. | del(.files)), files: [.files[] | {filename, line_covered, line_total, branch_covered, branch_total}]}' \
      gcovr-summary.json)"
  add_fixture coverage gcc-lcov-paths gcc-lcov-paths/fares.lcov lcov absolute-path gcc-lcov-paths/gcc-lcov-paths.summary.json \
    gcc-lcov-paths/gcc-lcov-paths.tool-output.txt

  log "gcc --coverage and lcov: two test runs taking opposite branches, and lcov -a of the two"
  # Each run of the program grades one score; lcov captures the counters after each (zeroed in
  # between), and `lcov -a` adds the two tracefiles up outcome by outcome, as its own merge.
  enter_project c-coverage-runs
  mkdir -p "$out/gcc-lcov-runs"
  local lcov_branches=(--rc lcov_branch_coverage=1)
  {
    echo "\$ make grade CC=gcc"
    make -s grade CC=gcc
    echo "\$ ./grade 70 && lcov --capture --directory . --rc lcov_branch_coverage=1 --output-file run-1.lcov"
    ./grade 70
    lcov --capture --directory . "${lcov_branches[@]}" --output-file run-1.lcov
    echo "\$ lcov --zerocounters --directory ."
    lcov --zerocounters --directory .
    echo "\$ ./grade -5 && lcov --capture --directory . --rc lcov_branch_coverage=1 --output-file run-2.lcov"
    ./grade -5
    lcov --capture --directory . "${lcov_branches[@]}" --output-file run-2.lcov
    echo "\$ lcov -a run-1.lcov -a run-2.lcov --rc lcov_branch_coverage=1 --output-file merged.lcov"
    lcov -a run-1.lcov -a run-2.lcov "${lcov_branches[@]}" --output-file merged.lcov
  } >"$out/gcc-lcov-runs/gcc-lcov-runs.tool-output.txt" 2>&1
  local lcov_run
  for lcov_run in run-1 run-2 merged; do
    cp "$lcov_run.lcov" "$out/gcc-lcov-runs/$lcov_run.lcov"
    lcov_summary "$lcov_run.lcov" "$WORK/_$lcov_run-summary.txt"
    {
      echo "\$ lcov --summary $lcov_run.lcov --rc lcov_branch_coverage=1"
      cat "$WORK/_$lcov_run-summary.txt"
    } >>"$out/gcc-lcov-runs/gcc-lcov-runs.tool-output.txt"
    write_summary "$out/gcc-lcov-runs/$lcov_run.summary.json" lcov "$(lcov --version | sed 's/^lcov: //'), $(gcc --version | head -n 1)" \
      "make grade CC=gcc, ./grade 70 and ./grade -5 each captured by lcov, lcov -a of the two; lcov --summary $lcov_run.lcov" "$PWD" \
      "$(jq -n --argjson lcov "$(lcov_summary_figures "$WORK/_$lcov_run-summary.txt")" '{lcovSummary: $lcov}')"
    add_fixture coverage gcc-lcov-runs "gcc-lcov-runs/$lcov_run.lcov" lcov absolute-path "gcc-lcov-runs/$lcov_run.summary.json" \
      gcc-lcov-runs/gcc-lcov-runs.tool-output.txt
  done
  add_run coverage gcc-lcov-two-runs gcc-lcov-runs/merged.summary.json gcc-lcov-runs/gcc-lcov-runs.tool-output.txt \
    gcc-lcov-runs/run-1.lcov gcc-lcov-runs/run-2.lcov

  log "JaCoCo (agent and report through its Ant task)"
  enter_project java-coverage
  ant -q >"$out/jacoco/jacoco.tool-output.txt" 2>&1
  cp build/jacoco.xml "$out/jacoco/jacoco.xml"
  cp build/jacoco.csv "$out/jacoco/jacoco.csv"
  write_summary "$out/jacoco/jacoco.summary.json" jacoco \
    "JaCoCo $(dpkg-query -W -f='${Version}' libjacoco-java), $(java -version 2>&1 | head -n 1)" \
    "ant (build.xml: javac --release 11, jacoco:coverage, jacoco:report with xml and csv)" "$PWD" "$(
      jq -Rn --argjson report "$(xml_figures build/jacoco.xml '{c.get("type"): {"missed": int(c.get("missed")), "covered": int(c.get("covered"))} for c in root.findall("counter")}')" '
        [inputs | split(",")] as $rows
        | {reportCounters: $report, csv: [$rows[1:][] | [$rows[0], .] | transpose
            | map({key: .[0], value: (.[1] | tonumber? // .)}) | from_entries]}' build/jacoco.csv
    )"
  add_fixture coverage jacoco jacoco/jacoco.xml jacoco package-relative jacoco/jacoco.summary.json jacoco/jacoco.tool-output.txt
  # The same run reported by module (build.xml's second report: a <group> each for cart and coupons).
  cp build/jacoco-groups.xml "$out/jacoco/jacoco-groups.xml"
  write_summary "$out/jacoco/jacoco-groups.summary.json" jacoco \
    "JaCoCo $(dpkg-query -W -f='${Version}' libjacoco-java), $(java -version 2>&1 | head -n 1)" \
    "ant (build.xml: jacoco:report with a <group> per module, xml)" "$PWD" "$(
      jq -n --argjson report "$(xml_figures build/jacoco-groups.xml '{c.get("type"): {"missed": int(c.get("missed")), "covered": int(c.get("covered"))} for c in root.findall("counter")}')" \
        --argjson groups "$(xml_figures build/jacoco-groups.xml '{g.get("name"): {c.get("type"): {"missed": int(c.get("missed")), "covered": int(c.get("covered"))} for c in g.findall("counter")} for g in root.findall("group")}')" \
        '{reportCounters: $report, groupCounters: $groups}'
    )"
  add_fixture coverage jacoco jacoco/jacoco-groups.xml jacoco package-relative jacoco/jacoco-groups.summary.json jacoco/jacoco.tool-output.txt

  log "git diff and diff-cover (java-coverage's changes since java-coverage-previous)"
  # The project as a history of two commits, java-coverage-previous's sources and then the ones
  # the report above measured; diff-cover (compared with the first commit) reads the report
  # against that diff, finding each of JaCoCo's package paths under the source root it is given.
  git -c init.defaultBranch=main init -q .
  mv src "$WORK/_java-src"
  cp -r "$SOURCES/java-coverage-previous/src" src
  git add src && "${git_env[@]}" git commit -q -m "Percent coupons"
  rm -rf src && mv "$WORK/_java-src" src
  git add -A src && "${git_env[@]}" git commit -q -m "Fixed coupons, AU shipping, free NZ shipping over 100, one line per sku"
  record_git_diff jacoco
  record_diff_cover jacoco jacoco-changes jacoco/jacoco.xml build/jacoco.xml --src-roots src/main/java

  log "PHPUnit (Clover, with PCOV and with Xdebug's path coverage)"
  enter_project php-coverage
  # PHPUnit's Clover names each file by its absolute path; `stmt` lines are its executable lines,
  # `method` lines its methods (never statements). With PCOV it measures lines only; with Xdebug's
  # path coverage it adds branches and paths, which its Clover declares in <metrics conditionals>
  # without placing any on a line. Each run's --coverage-text summary is its own figure.
  local phpunit_version driver
  phpunit_version="$(phpunit --version | head -n 1 | sed "s/ by .*//"), PHP $(php -r 'echo PHP_VERSION;')"
  : >"$out/phpunit/phpunit.tool-output.txt"
  for driver in pcov xdebug; do
    local name=clover.xml run=(php -d xdebug.mode=off -d pcov.enabled=1 /usr/bin/phpunit --colors=never)
    if [ "$driver" = xdebug ]; then
      name=clover-path-coverage.xml
      run=(php -d xdebug.mode=coverage -d pcov.enabled=0 /usr/bin/phpunit --colors=never --path-coverage)
    fi
    run+=(--coverage-clover "$name" --coverage-text)
    {
      echo "\$ ${run[*]}"
      "${run[@]}" 2>&1
    } | tee -a "$out/phpunit/phpunit.tool-output.txt" >"$WORK/_phpunit-$driver.txt"
    cp "$name" "$out/phpunit/$name"
    write_summary "$out/phpunit/${name%.xml}.summary.json" phpunit \
      "$phpunit_version, $driver $(php -r "echo phpversion('$driver');")" "${run[*]}" "$PWD" "$(
        jq -Rn --argjson clover "$(xml_figures "$name" '{k: int(v) for k, v in root.find("project/metrics").attrib.items()}')" '
          [inputs | capture("^  (?<measure>Lines|Branches|Paths): +(?<pct>[0-9.]+)% \\((?<covered>[0-9]+)/(?<total>[0-9]+)\\)")
            | {key: (.measure | ascii_downcase), value: {covered: (.covered | tonumber), total: (.total | tonumber),
                percent: (.pct | tonumber)}}] | from_entries
          | {coverageTextSummary: ., cloverProjectMetrics: $clover}' "$WORK/_phpunit-$driver.txt"
      )"
    add_fixture coverage phpunit "phpunit/$name" clover absolute-path "phpunit/${name%.xml}.summary.json" \
      phpunit/phpunit.tool-output.txt
  done

  log "Go cover profiles"
  enter_project go-coverage
  local module mode
  module=$(go list -m)
  : >"$out/go/go.tool-output.txt"
  for mode in set count; do
    {
      echo "\$ go test -count=1 -covermode=$mode -coverprofile=$mode.out ./..."
      go test -count=1 -covermode="$mode" -coverprofile="$mode.out" ./... 2>&1
      echo "\$ go tool cover -func=$mode.out"
      go tool cover -func="$mode.out"
    } >>"$out/go/go.tool-output.txt"
    cp "$mode.out" "$out/go/$mode.out"
  done
  write_summary "$out/go/go.summary.json" go "$(go version)" \
    "go test -count=1 -covermode=set|count -coverprofile=MODE.out ./... && go tool cover -func=MODE.out" "$PWD" "$(
      jq -n --arg set "$(go tool cover -func=set.out)" --arg count "$(go tool cover -func=count.out)" --arg modulePath "$module" \
        "def totals: $GO_COVER_FUNC_FIGURES; {modulePath: \$modulePath, set: (\$set | totals), count: (\$count | totals)}"
    )"
  add_fixture coverage go go/set.out go import-path go/go.summary.json go/go.tool-output.txt "{\"stripPrefixes\": [\"$module\"]}"
  add_fixture coverage go go/count.out go import-path go/go.summary.json go/go.tool-output.txt "{\"stripPrefixes\": [\"$module\"]}"

  log "Go cover profiles of a workspace whose modules lie in subdirectories"
  # example.com/shop in backend/ and example.com/pricing in libs/pricing/, neither path naming its
  # directory, used together through go.work. Every profile names files by import path; `go list`
  # says where each module and package is, which is what Assay must find from the modules it is sent.
  enter_project go-modules
  mkdir -p "$out/go-modules"
  local go_modules go_packages go_output="$out/go-modules/go-modules.tool-output.txt"
  # Workspace mode refuses -mod=mod; the project needs no download.
  go_modules=$(GOFLAGS= go list -m -json | jq -s --arg root "$PWD/" '[.[] | {modulePath: .Path, directory: (.Dir | ltrimstr($root))}]')
  go_packages=$(GOFLAGS= go list -f '{{.ImportPath}} {{.Dir}}' example.com/shop/... example.com/pricing/... |
    jq -Rn --arg root "$PWD/" '[inputs | split(" ") | {key: .[0], value: (.[1] | ltrimstr($root))}] | from_entries')
  : >"$go_output"
  # Each module alone (GOWORK=off), in its own directory; then the workspace's merged profile.
  record_go_modules_profile backend backend.out set "$go_modules" "$go_packages" -covermode=set ./...
  record_go_modules_profile libs/pricing pricing.out set "$go_modules" "$go_packages" -covermode=set ./...
  # The shop's tests measuring the pricing module's package too: the profile names both modules.
  record_go_modules_profile backend coverpkg.out set "$go_modules" "$go_packages" -covermode=set \
    -coverpkg=./...,example.com/pricing ./...
  record_go_modules_profile . workspace.out count "$go_modules" "$go_packages" -covermode=count \
    example.com/shop/... example.com/pricing/...
  # The two modules' own profiles uploaded to one run count what the workspace's profile counts.
  add_run coverage go-modules-each-profile go-modules/workspace.summary.json go-modules/go-modules.tool-output.txt \
    go-modules/backend.out go-modules/pricing.out

  record_coverage_other "$out/other"

  write_manifest coverage
}

# ---------------------------------------------------------------------------------------------
make_sbom() {
  begin_kind sbom
  local out="$ROOT/src/formats/sbom/fixtures"
  mkdir -p "$out/npm"

  log "npm sbom"
  enter_project npm-sbom
  local format npm_version
  npm_version=$("$BIN/npm" --version)
  : >"$out/npm/npm-sbom.tool-output.txt"
  for format in cyclonedx spdx; do
    echo "\$ npm sbom --sbom-format $format --package-lock-only > $format.json" >>"$out/npm/npm-sbom.tool-output.txt"
    # The machine's own npm settings (~/.npmrc) play no part in an SBOM of the lockfile.
    NPM_CONFIG_USERCONFIG=/dev/null "$BIN/npm" sbom --sbom-format "$format" --package-lock-only \
      >"$out/npm/$format.json" 2>>"$out/npm/npm-sbom.tool-output.txt"
  done
  write_summary "$out/npm/npm-sbom.summary.json" npm "npm $npm_version, node $(node --version)" \
    "npm sbom --sbom-format cyclonedx|spdx --package-lock-only" "$PWD" "$(
      jq -n --slurpfile cdx "$out/npm/cyclonedx.json" --slurpfile spdx "$out/npm/spdx.json" '
        {cyclonedx: {bomFormat: $cdx[0].bomFormat, specVersion: $cdx[0].specVersion,
           components: ($cdx[0].components | length)},
         spdx: {spdxVersion: $spdx[0].spdxVersion, packages: ($spdx[0].packages | length)}}'
    )"
  add_fixture sbom npm npm/cyclonedx.json cyclonedx none npm/npm-sbom.summary.json npm/npm-sbom.tool-output.txt
  add_fixture sbom npm npm/spdx.json spdx none npm/npm-sbom.summary.json npm/npm-sbom.tool-output.txt

  # CycloneDX's own generator on the same lockfile, production dependencies only: ms is then only
  # debug's dependency (transitive). CycloneDX 1.6, JSON and XML, reproducible (no timestamp or
  # serial number). It runs the pinned npm ("npm ls"), found first on PATH.
  log "cyclonedx-npm"
  mkdir -p "$out/cyclonedx-npm"
  local cdx_version tool_output="$out/cyclonedx-npm/cyclonedx-npm.tool-output.txt"
  cdx_version=$("$BIN/cyclonedx-npm" --version)
  : >"$tool_output"
  for format in JSON XML; do
    local file="bom.${format,,}"
    local args=(--package-lock-only --omit dev --spec-version 1.6 --output-format "$format" --output-reproducible)
    echo "\$ cyclonedx-npm ${args[*]} --output-file $file" >>"$tool_output"
    PATH="$BIN:$PATH" NPM_CONFIG_USERCONFIG=/dev/null "$BIN/cyclonedx-npm" "${args[@]}" \
      --output-file "$out/cyclonedx-npm/$file" 2>>"$tool_output"
  done
  write_summary "$out/cyclonedx-npm/cyclonedx-npm.summary.json" cyclonedx-npm \
    "cyclonedx-npm $cdx_version, npm $npm_version, node $(node --version)" \
    "cyclonedx-npm --package-lock-only --omit dev --spec-version 1.6 --output-format JSON|XML" "$PWD" "$(
      jq '. as $bom | ($bom.metadata.component["bom-ref"]) as $root |
        {bomFormat, specVersion, components: (.components | length),
         root: .metadata.component.purl,
         direct: [.dependencies[] | select(.ref == $root) | .dependsOn[]] | length,
         purls: [.components[].purl] | sort}' "$out/cyclonedx-npm/bom.json"
    )"
  add_fixture sbom cyclonedx-npm cyclonedx-npm/bom.json cyclonedx none cyclonedx-npm/cyclonedx-npm.summary.json \
    cyclonedx-npm/cyclonedx-npm.tool-output.txt
  add_fixture sbom cyclonedx-npm cyclonedx-npm/bom.xml cyclonedx none cyclonedx-npm/cyclonedx-npm.summary.json \
    cyclonedx-npm/cyclonedx-npm.tool-output.txt

  # cdxgen, a generator of its own (it reads the lockfile itself rather than asking npm), on the
  # same lockfile: production dependencies only (--required-only), which still include ms as one
  # of the root's own dependencies, since the root lists it (as a devDependency) besides debug
  # needing it. It names each component's lockfile (SrcFile), relative to the scanned directory;
  # it would write paths under its temporary directory relative to that directory instead, so its
  # TMPDIR is one of its own. Offline: no dependency install, no licence look-ups.
  log "cdxgen"
  install_cdxgen
  mkdir -p "$out/cdxgen" "$TOOLS/cdxgen-tmp"
  local cdxgen_version cdxgen_output="$out/cdxgen/cdxgen.tool-output.txt"
  cdxgen_version=$(jq -r .version "$CDXGEN_DIR/node_modules/@cyclonedx/cdxgen/package.json")
  local cdxgen_args=(-t js --no-recurse --no-install-deps --no-babel --required-only --spec-version 1.6 --json-pretty)
  echo "\$ cdxgen ${cdxgen_args[*]} -o bom.json ." >"$cdxgen_output"
  TMPDIR="$TOOLS/cdxgen-tmp" FETCH_LICENSE=false NPM_CONFIG_USERCONFIG=/dev/null \
    "$CDXGEN_DIR/node_modules/.bin/cdxgen" "${cdxgen_args[@]}" -o "$out/cdxgen/bom.json" . >>"$cdxgen_output" 2>&1
  write_summary "$out/cdxgen/cdxgen.summary.json" cdxgen "cdxgen $cdxgen_version, node $(node --version)" \
    "cdxgen ${cdxgen_args[*]} -o bom.json ." "$PWD" "$(
      jq '. as $bom | ($bom.metadata.component["bom-ref"]) as $root |
        {bomFormat, specVersion, components: (.components | length),
         root: .metadata.component.purl,
         direct: [.dependencies[] | select(.ref == $root) | .dependsOn[]] | length,
         purls: [.components[].purl] | sort,
         srcFiles: [.components[].properties[]? | select(.name == "SrcFile") | .value] | unique}' \
        "$out/cdxgen/bom.json"
    )"
  add_fixture sbom cdxgen cdxgen/bom.json cyclonedx relative cdxgen/cdxgen.summary.json cdxgen/cdxgen.tool-output.txt

  make_sbom_workspaces "$out" "$npm_version" "$cdxgen_version"

  write_manifest sbom
}

# An npm workspace (packages/web, packages/core), a vendored package linked with `file:`
# (vendor/lodash, named and versioned as the lodash it copies) and, outside the workspace, a second
# project with its own lockfile (tools/changelog). Every tool of the other npm fixtures describes
# it; npm's own account of the tree (`npm query`, `npm ls`) is the summary: which packages are
# links or workspaces (npm audit leaves them out), which are third-party, and which the root, the
# workspaces and the links depend on. cdxgen runs twice: on the root project only (--no-recurse),
# and recursing, when it finds tools/changelog's lockfile and nests that project under the root.
make_sbom_workspaces() { # out npm-version cdxgen-version
  local out=$1 npm_version=$2 cdxgen_version=$3 dir="$1/workspaces"
  log "npm workspaces"
  enter_project npm-workspaces
  mkdir -p "$dir"
  local npm=(env NPM_CONFIG_USERCONFIG=/dev/null "$BIN/npm") output="$dir/workspaces.tool-output.txt" format
  : >"$output"
  for format in cyclonedx spdx; do
    echo "\$ npm sbom --sbom-format $format --package-lock-only > npm-$format.json" >>"$output"
    "${npm[@]}" sbom --sbom-format "$format" --package-lock-only >"$dir/npm-$format.json" 2>>"$output"
  done
  for format in JSON XML; do
    local args=(--package-lock-only --spec-version 1.6 --output-format "$format" --output-reproducible)
    echo "\$ cyclonedx-npm ${args[*]} --output-file cyclonedx-npm.${format,,}" >>"$output"
    PATH="$BIN:$PATH" NPM_CONFIG_USERCONFIG=/dev/null "$BIN/cyclonedx-npm" "${args[@]}" \
      --output-file "$dir/cyclonedx-npm.${format,,}" 2>>"$output"
  done
  local cdxgen_args=(-t js --no-install-deps --no-babel --required-only --spec-version 1.6 --json-pretty)
  echo "\$ cdxgen --no-recurse ${cdxgen_args[*]} -o cdxgen.json ." >>"$output"
  TMPDIR="$TOOLS/cdxgen-tmp" FETCH_LICENSE=false NPM_CONFIG_USERCONFIG=/dev/null \
    "$CDXGEN_DIR/node_modules/.bin/cdxgen" --no-recurse "${cdxgen_args[@]}" -o "$dir/cdxgen.json" . >>"$output" 2>&1
  echo "\$ cdxgen ${cdxgen_args[*]} -o cdxgen-recurse.json ." >>"$output"
  TMPDIR="$TOOLS/cdxgen-tmp" FETCH_LICENSE=false NPM_CONFIG_USERCONFIG=/dev/null \
    "$CDXGEN_DIR/node_modules/.bin/cdxgen" "${cdxgen_args[@]}" -o "$dir/cdxgen-recurse.json" . >>"$output" 2>&1

  # npm's own account: every package of the tree (`*`, the root among them, at location ""), the
  # links (`:link`, workspaces included) and workspaces, and what the root, the workspaces and the
  # links depend on that is not itself a link (their direct third-party dependencies).
  local query
  for query in '*' ':link' '.workspace' ':is(:root, .workspace, :link) > :not(:link)'; do
    echo "\$ npm query --package-lock-only '$query'" >>"$output"
    "${npm[@]}" query --package-lock-only "$query" | jq -c '[.[] | "\(.name)@\(.version)"] | sort' | tee -a "$output" \
      >"$WORK/_query-$(printf '%s' "$query" | md5sum | cut -c1-8).json"
  done
  echo "\$ npm ls --all --package-lock-only" >>"$output"
  "${npm[@]}" ls --all --package-lock-only >>"$output"
  # The changelog project's own lockfile, as npm reads it there.
  echo "\$ cd tools/changelog && npm query --package-lock-only ':root > *'" >>"$output"
  (cd tools/changelog && "${npm[@]}" query --package-lock-only ':root > *') | jq -c '[.[] | "\(.name)@\(.version)"] | sort' |
    tee -a "$output" >"$WORK/_query-changelog.json"
  q() { cat "$WORK/_query-$(printf '%s' "$1" | md5sum | cut -c1-8).json"; }
  write_summary "$dir/workspaces.summary.json" "npm, cyclonedx-npm and cdxgen" \
    "npm $npm_version, cyclonedx-npm $("$BIN/cyclonedx-npm" --version), cdxgen $cdxgen_version, node $(node --version)" \
    "npm query --package-lock-only; npm sbom; cyclonedx-npm; cdxgen [--no-recurse]" "$PWD" "$(
      jq -n --argjson all "$(q '*')" --argjson links "$(q ':link')" --argjson workspaces "$(q '.workspace')" \
        --argjson direct "$(q ':is(:root, .workspace, :link) > :not(:link)')" \
        --argjson changelog "$(cat "$WORK/_query-changelog.json")" \
        --slurpfile recurse "$dir/cdxgen-recurse.json" --slurpfile flat "$dir/cdxgen.json" '
        ($all - ["storefront@1.0.0"] - $links) as $third |
        {npm: {links: $links, workspaces: $workspaces, thirdParty: $third, direct: $direct,
               transitive: ($third - $direct), changelogDirect: $changelog},
         cdxgen: ($recurse[0] | {
           nestedProjects: [.metadata.component.components[]?.purl],
           linked: [.components[] | select(any(.properties[]?; .name == "cdx:npm:isLink" and .value == "true")) | .purl] | sort,
           srcFiles: [.components[].properties[]? | select(.name == "SrcFile") | .value] | unique}),
         cdxgenNoRecurse: ($flat[0] | {
           nestedProjects: [.metadata.component.components[]?.purl],
           srcFiles: [.components[].properties[]? | select(.name == "SrcFile") | .value] | unique})}'
    )"
  local summary=workspaces/workspaces.summary.json tool_output=workspaces/workspaces.tool-output.txt
  add_fixture sbom workspaces workspaces/npm-cyclonedx.json cyclonedx none "$summary" "$tool_output"
  add_fixture sbom workspaces workspaces/npm-spdx.json spdx none "$summary" "$tool_output"
  add_fixture sbom workspaces workspaces/cyclonedx-npm.json cyclonedx none "$summary" "$tool_output"
  add_fixture sbom workspaces workspaces/cyclonedx-npm.xml cyclonedx none "$summary" "$tool_output"
  add_fixture sbom workspaces workspaces/cdxgen.json cyclonedx relative "$summary" "$tool_output"
  add_fixture sbom workspaces workspaces/cdxgen-recurse.json cyclonedx relative "$summary" "$tool_output"
}

# ---------------------------------------------------------------------------------------------
# A pull request's history (test/pull-request-history.test.ts): the default branch's version of
# js-pull-request/ and the pull request's two pushes, each linted by ESLint (SARIF) and covered by
# c8 in the same directory, so the reports' absolute paths agree. The test commits the versions
# to a git repository of its own and uploads these reports with `assay upload`.
make_pull_request() {
  local out="$ROOT/test/fixtures/pull-request" version
  rm -rf "$out"
  mkdir -p "$out"
  for version in base push-1 push-2; do
    log "ESLint and c8 over js-pull-request/$version"
    rm -rf "${WORK:?}/js-pull-request"
    mkdir -p "$WORK/js-pull-request"
    cp "$SOURCES/js-pull-request/package.json" "$SOURCES/js-pull-request/eslint.config.mjs" "$WORK/js-pull-request/"
    cp -r "$SOURCES/js-pull-request/$version/." "$WORK/js-pull-request/"
    cd "$WORK/js-pull-request"
    NODE_PATH="$NPM_DIR/node_modules" expect_status "0 1" "$BIN/eslint" --format @microsoft/eslint-formatter-sarif src >"$out/$version.sarif"
    {
      echo "\$ eslint src"
      expect_status "0 1" "$BIN/eslint" src
      echo "\$ c8 --reporter=lcov --reporter=text node --test test/"
      "$BIN/c8" --reporter=lcov --reporter=text node --test test/ 2>&1 | grep -v '^# duration_ms'
    } >"$out/$version.tool-output.txt"
    cp coverage/lcov.info "$out/$version.lcov"
    expect_status "0 1" "$BIN/eslint" --format json src >"$WORK/_eslint-pr.json"
    write_summary "$out/$version.summary.json" "eslint and c8" \
      "eslint $("$BIN/eslint" --version), c8 $(jq -r .version "$NPM_DIR/node_modules/c8/package.json"), node $(node --version)" \
      "eslint --format @microsoft/eslint-formatter-sarif src; c8 --reporter=lcov node --test test/" "$PWD" "$(
        jq '{eslintByRule: ([.[].messages[]] | group_by(.ruleId) | map({key: .[0].ruleId, value: map(.line)}) | from_entries)}' \
          "$WORK/_eslint-pr.json"
      )"
  done
  rm -rf "${WORK:?}/js-pull-request"
}

# ---------------------------------------------------------------------------------------------
# Checkstyle XML, which several linters write, and ShellCheck's own outputs: ShellCheck over
# shell-lint/ (json1, json, checkstyle and gcc; the gcc output, one line per finding, is also the
# summary; tty and diff, which are refused, are kept for the refusals' tests),
# Checkstyle over java-lint/ (its plain output, one line per finding, and its closing count),
# ESLint with eslint-formatter-checkstyle over js-lint/ (its JSON formatter) and PHP_CodeSniffer
# over php-lint/ (its JSON report). Each summary's `findings` list every finding the tool printed:
# file (relative to the work directory), line, column (null where the tool printed none),
# severity as the tool printed it, and rule as the tool names it.
make_checkstyle() {
  begin_kind checkstyle
  local out="$ROOT/src/formats/checkstyle/fixtures"
  local scripts=(bin/backup.sh bin/deploy.sh lib/common.sh)

  log "ShellCheck"
  mkdir -p "$out/shellcheck"
  enter_project shell-lint
  expect_status "1" shellcheck -f json1 "${scripts[@]}" >"$out/shellcheck/shellcheck.json1"
  expect_status "1" shellcheck -f json "${scripts[@]}" >"$out/shellcheck/shellcheck.json"
  expect_status "1" shellcheck -f checkstyle "${scripts[@]}" >"$out/shellcheck/shellcheck.xml"
  expect_status "1" shellcheck -f gcc "${scripts[@]}" >"$out/shellcheck/shellcheck.tool-output.txt"
  # The gcc output is read too (the same lines as the summary's); tty and diff are kept for the
  # refusals that name the outputs read.
  cp "$out/shellcheck/shellcheck.tool-output.txt" "$out/shellcheck/shellcheck.gcc"
  expect_status "1" shellcheck -f tty "${scripts[@]}" >"$out/shellcheck/shellcheck.tty"
  expect_status "1" shellcheck -f diff "${scripts[@]}" >"$out/shellcheck/shellcheck.diff"
  write_summary "$out/shellcheck/shellcheck.summary.json" shellcheck "$(shellcheck --version | sed -n 's/^version: //p')" \
    "shellcheck -f json1|json|checkstyle|gcc ${scripts[*]}" "$PWD" "$(
      jq -Rn '[inputs | capture("^(?<file>[^:]+):(?<line>[0-9]+):(?<column>[0-9]+): (?<severity>[a-z]+): .* \\[(?<rule>SC[0-9]+)\\]$")
          | .line |= tonumber | .column |= tonumber] as $findings
        | {findings: $findings,
           bySeverity: ($findings | group_by(.severity) | map({key: .[0].severity, value: length}) | from_entries)}' \
        "$out/shellcheck/shellcheck.tool-output.txt"
    )"
  local format
  for format in json1 json xml gcc; do
    add_fixture checkstyle shellcheck "shellcheck/shellcheck.$format" \
      "$([ $format = xml ] && echo checkstyle-xml || echo "shellcheck-$format")" relative \
      shellcheck/shellcheck.summary.json shellcheck/shellcheck.tool-output.txt
  done

  log "Checkstyle"
  mkdir -p "$out/checkstyle"
  enter_project java-lint
  # Checkstyle exits with the number of findings at severity error.
  expect_status "2" checkstyle -c checkstyle.xml -f xml -o "$out/checkstyle/checkstyle.xml" src
  expect_status "2" checkstyle -c checkstyle.xml src >"$out/checkstyle/checkstyle.tool-output.txt" 2>&1
  write_summary "$out/checkstyle/checkstyle.summary.json" checkstyle "$(checkstyle --version | sed 's/^Checkstyle version: //')" \
    "checkstyle -c checkstyle.xml -f xml src" "$PWD" "$(
      jq -Rn --arg root "$PWD/" '[inputs] as $lines
        | [$lines[] | capture("^\\[(?<severity>[A-Z]+)\\] (?<file>[^:]+):(?<line>[0-9]+)(:(?<column>[0-9]+))?: .* \\[(?<rule>[A-Za-z]+)\\]$")
            | .file |= ltrimstr($root) | .line |= tonumber | .column |= (if . == null then null else tonumber end)] as $findings
        | {findings: $findings,
           bySeverity: ($findings | group_by(.severity) | map({key: .[0].severity, value: length}) | from_entries),
           errors: ($lines | map(capture("^Checkstyle ends with (?<n>[0-9]+) errors?\\.").n | tonumber) | first)}' \
        "$out/checkstyle/checkstyle.tool-output.txt"
    )"
  add_fixture checkstyle checkstyle checkstyle/checkstyle.xml checkstyle-xml absolute-path \
    checkstyle/checkstyle.summary.json checkstyle/checkstyle.tool-output.txt

  log "ESLint (checkstyle formatter)"
  mkdir -p "$out/eslint"
  enter_project js-lint
  NODE_PATH="$NPM_DIR/node_modules" expect_status "1" "$BIN/eslint" --format checkstyle src >"$out/eslint/eslint.xml"
  expect_status "1" "$BIN/eslint" src >"$out/eslint/eslint.tool-output.txt"
  expect_status "1" "$BIN/eslint" --format json src >"$WORK/_eslint-checkstyle.json"
  write_summary "$out/eslint/eslint.summary.json" eslint "$("$BIN/eslint" --version), eslint-formatter-checkstyle $ESLINT_CHECKSTYLE_VERSION" \
    "eslint --format checkstyle src" "$PWD" "$(
      jq --arg root "$PWD/" '[.[] | (.filePath | ltrimstr($root)) as $file | .messages[]
          | {file: $file, line, column, severity: (if .severity == 2 then "error" else "warning" end), rule: .ruleId}] as $findings
        | {findings: $findings,
           bySeverity: ($findings | group_by(.severity) | map({key: .[0].severity, value: length}) | from_entries)}' \
        "$WORK/_eslint-checkstyle.json"
    )"
  add_fixture checkstyle eslint eslint/eslint.xml checkstyle-xml absolute-path \
    eslint/eslint.summary.json eslint/eslint.tool-output.txt

  log "PHP_CodeSniffer"
  mkdir -p "$out/phpcs"
  enter_project php-lint
  expect_status "2" phpcs -q --standard=PSR12 --report=checkstyle src >"$out/phpcs/phpcs.xml"
  # The full report ends with the run's time and memory, which change from run to run.
  expect_status "2" phpcs -q --standard=PSR12 --report=full src >"$WORK/_phpcs-full.txt"
  grep -v '^Time: ' "$WORK/_phpcs-full.txt" >"$out/phpcs/phpcs.tool-output.txt"
  expect_status "2" phpcs -q --standard=PSR12 --report=json src >"$WORK/_phpcs.json"
  write_summary "$out/phpcs/phpcs.summary.json" phpcs "$(phpcs --version | sed -n 's/^PHP_CodeSniffer version \([^ ]*\).*/\1/p')" \
    "phpcs --standard=PSR12 --report=checkstyle src" "$PWD" "$(
      jq --arg root "$PWD/" '[.files | to_entries[] | (.key | ltrimstr($root)) as $file | .value.messages[]
          | {file: $file, line, column, severity: (.type | ascii_downcase), rule: .source}] as $findings
        | {findings: $findings, errors: .totals.errors, warnings: .totals.warnings,
           bySeverity: ($findings | group_by(.severity) | map({key: .[0].severity, value: length}) | from_entries)}' \
        "$WORK/_phpcs.json"
    )"
  add_fixture checkstyle phpcs phpcs/phpcs.xml checkstyle-xml absolute-path \
    phpcs/phpcs.summary.json phpcs/phpcs.tool-output.txt
  write_manifest checkstyle
}


# Style linters on the style-lint project (`scripts/make-fixtures.sh style-lint` makes them alone):
# markdownlint-cli2 with its SARIF formatter, stylelint with stylelint-sarif-formatter, ESLint
# with typescript-eslint's recommended and stylistic configs through ESLint's SARIF formatter, and
# HTMLHint with its own SARIF formatter. They
# install apart from the other npm tools, at versions that run on Node 20, and the project links
# their node_modules so that its configurations find them. Each summary holds the tool's own counts
# per rule and level, and the facts the tool gives about its rules, which tool-families.ts reads
# from: stylelint's rules and those its recommended config turns on (the rules that "avoid
# errors"), typescript-eslint's rules with their `meta.type` and the stylistic configs' rules,
# HTMLHint's rules (`HTMLHint.rules`).
readonly MARKDOWNLINT_CLI2_VERSION=0.22.1
readonly MARKDOWNLINT_SARIF_VERSION=0.0.4
readonly STYLELINT_VERSION=16.25.0
readonly STYLELINT_CONFIG_STANDARD_VERSION=39.0.1
readonly STYLELINT_SARIF_VERSION=1.0.7
readonly TYPESCRIPT_ESLINT_VERSION=8.73.0
readonly TYPESCRIPT_VERSION=6.0.3
readonly HTMLHINT_VERSION=1.9.2
readonly STYLE_DIR="$TOOLS/style-lint"

install_style_tools() {
  local wanted=(
    "markdownlint-cli2@$MARKDOWNLINT_CLI2_VERSION" "markdownlint-cli2-formatter-sarif@$MARKDOWNLINT_SARIF_VERSION"
    "stylelint@$STYLELINT_VERSION" "stylelint-config-standard@$STYLELINT_CONFIG_STANDARD_VERSION"
    "stylelint-sarif-formatter@$STYLELINT_SARIF_VERSION" "eslint@$ESLINT_VERSION"
    "@microsoft/eslint-formatter-sarif@$ESLINT_SARIF_VERSION" "typescript-eslint@$TYPESCRIPT_ESLINT_VERSION"
    "typescript@$TYPESCRIPT_VERSION" "htmlhint@$HTMLHINT_VERSION"
  )
  local stamp="$STYLE_DIR/installed.txt"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${wanted[*]}" ]; then return; fi
  log "npm install ${wanted[*]}"
  rm -rf "$STYLE_DIR"
  mkdir -p "$STYLE_DIR"
  echo '{"private":true}' >"$STYLE_DIR/package.json"
  (cd "$STYLE_DIR" && npm install --no-audit --no-fund --save-exact --loglevel=error "${wanted[@]}" >/dev/null)
  echo "${wanted[*]}" >"$stamp"
}

# The figures of a linter's per-finding JSON lines ({rule, level}): errors, warnings, and per rule.
style_figures() { # jsonl-file
  jq -s '{problems: length, errors: map(select(.level == "error")) | length,
          warnings: map(select(.level == "warning")) | length,
          byRule: (group_by(.rule) | map({key: .[0].rule, value: {
            errors: map(select(.level == "error")) | length, warnings: map(select(.level == "warning")) | length}})
            | from_entries)}' "$1"
}

make_style_lint() {
  local fixtures="$ROOT/src/formats/sarif/fixtures" bin="$STYLE_DIR/node_modules/.bin" out tool
  install_style_tools
  for tool in markdownlint stylelint typescript-eslint htmlhint; do
    rm -rf "${fixtures:?}/$tool"
    mkdir -p "$fixtures/$tool"
  done
  mkdir -p "$WORK/_manifest"
  : >"$WORK/_manifest/sarif.jsonl"
  enter_project style-lint
  ln -s "$STYLE_DIR/node_modules" node_modules

  log "markdownlint-cli2"
  out="$fixtures/markdownlint"
  # Its configuration names two formatters: the default one (stderr, one line per finding) and SARIF.
  expect_status "1" "$bin/markdownlint-cli2" "docs/**/*.md" >/dev/null 2>"$out/markdownlint.tool-output.txt"
  mv markdownlint.sarif "$out/markdownlint.sarif"
  sed -nE 's/^[^ ]+:[0-9]+(:[0-9]+)? (error|warning) (MD[0-9]+)\/.*$/{"rule":"\3","level":"\2"}/p' \
    "$out/markdownlint.tool-output.txt" >"$WORK/_markdownlint.jsonl"
  write_summary "$out/markdownlint.summary.json" markdownlint-cli2 "$("$bin/markdownlint-cli2" --help | head -1)" \
    'markdownlint-cli2 "docs/**/*.md" (outputFormatters: default, markdownlint-cli2-formatter-sarif)' "$PWD" \
    "$(style_figures "$WORK/_markdownlint.jsonl")"
  add_fixture sarif markdownlint markdownlint/markdownlint.sarif sarif relative \
    markdownlint/markdownlint.summary.json markdownlint/markdownlint.tool-output.txt

  log "stylelint"
  out="$fixtures/stylelint"
  expect_status "2" "$bin/stylelint" "styles/**/*.css" --custom-formatter "$STYLE_DIR/node_modules/stylelint-sarif-formatter/index.js" \
    --output-file "$out/stylelint.sarif" >/dev/null 2>&1
  expect_status "2" "$bin/stylelint" "styles/**/*.css" >"$out/stylelint.tool-output.txt" 2>&1
  expect_status "2" "$bin/stylelint" "styles/**/*.css" --formatter json >"$WORK/_stylelint.json" 2>&1
  jq -c '.[].warnings[] | {rule, level: .severity}' "$WORK/_stylelint.json" >"$WORK/_stylelint.jsonl"
  write_summary "$out/stylelint.summary.json" stylelint "$("$bin/stylelint" --version)" \
    'stylelint "styles/**/*.css" --custom-formatter stylelint-sarif-formatter' "$PWD" "$(
      node -e '
        const { rules } = require("stylelint");
        const recommended = require("stylelint-config-recommended").rules;
        console.log(JSON.stringify({ coreRules: Object.keys(rules).sort(), recommendedRules: Object.keys(recommended).sort() }));
      ' | jq --argjson figures "$(style_figures "$WORK/_stylelint.jsonl")" '$figures + {ruleFacts: .}'
    )"
  add_fixture sarif stylelint stylelint/stylelint.sarif sarif absolute \
    stylelint/stylelint.summary.json stylelint/stylelint.tool-output.txt

  log "ESLint with typescript-eslint"
  out="$fixtures/typescript-eslint"
  expect_status "1" "$bin/eslint" --format @microsoft/eslint-formatter-sarif src >"$out/typescript-eslint.sarif"
  expect_status "1" "$bin/eslint" src >"$out/typescript-eslint.tool-output.txt"
  expect_status "1" "$bin/eslint" --format json src >"$WORK/_tseslint.json"
  jq -c '.[].messages[] | {rule: .ruleId, level: (if .severity == 2 then "error" else "warning" end)}' \
    "$WORK/_tseslint.json" >"$WORK/_tseslint.jsonl"
  write_summary "$out/typescript-eslint.summary.json" "eslint with typescript-eslint" \
    "eslint $("$bin/eslint" --version), typescript-eslint $(jq -r .version "$STYLE_DIR/node_modules/typescript-eslint/package.json")" \
    "eslint --format @microsoft/eslint-formatter-sarif src (typescript-eslint recommended and stylistic)" "$PWD" "$(
      node --input-type=module -e '
        import tseslint from "typescript-eslint";
        const prefix = "@typescript-eslint/";
        const stylistic = [tseslint.configs.stylistic, tseslint.configs.stylisticTypeChecked]
          .flat().flatMap((config) => Object.keys(config.rules ?? {}))
          .filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length));
        const types = Object.fromEntries(Object.entries(tseslint.plugin.rules).map(([name, rule]) => [name, rule.meta.type]).sort());
        console.log(JSON.stringify({ types, stylistic: [...new Set(stylistic)].sort() }));
      ' | jq --argjson figures "$(style_figures "$WORK/_tseslint.jsonl")" '$figures + {ruleFacts: .}'
    )"
  add_fixture sarif typescript-eslint typescript-eslint/typescript-eslint.sarif sarif absolute-file-uri \
    typescript-eslint/typescript-eslint.summary.json typescript-eslint/typescript-eslint.tool-output.txt

  log "HTMLHint"
  out="$fixtures/htmlhint"
  # The SARIF formatter writes the log to stdout and to htmlhint.sarif in the directory it runs in.
  expect_status "1" "$bin/htmlhint" --format sarif pages >"$out/htmlhint.sarif"
  rm -f htmlhint.sarif
  expect_status "1" "$bin/htmlhint" --nocolor pages >"$out/htmlhint.tool-output.txt"
  expect_status "1" "$bin/htmlhint" --format json pages >"$WORK/_htmlhint.json"
  jq -c '.[].messages[] | {rule: .rule.id, level: .type}' "$WORK/_htmlhint.json" >"$WORK/_htmlhint.jsonl"
  write_summary "$out/htmlhint.summary.json" htmlhint "$("$bin/htmlhint" --version)" \
    "htmlhint --format sarif pages" "$PWD" "$(
      node -e '
        const { HTMLHint } = require("htmlhint");
        console.log(JSON.stringify({ rules: Object.keys(HTMLHint.rules).sort() }));
      ' | jq --argjson figures "$(style_figures "$WORK/_htmlhint.jsonl")" '$figures + {ruleFacts: .}'
    )"
  add_fixture sarif htmlhint htmlhint/htmlhint.sarif sarif relative \
    htmlhint/htmlhint.summary.json htmlhint/htmlhint.tool-output.txt

  # The manifest's entries of these fixtures, replaced or added.
  jq --slurpfile new "$WORK/_manifest/sarif.jsonl" \
    '[.[] | select(.file as $file | $new | map(.file) | index($file) | not)] + $new' \
    "$ROOT/src/formats/sarif/fixtures/manifest.json" >"$WORK/_manifest.json"
  mv "$WORK/_manifest.json" "$ROOT/src/formats/sarif/fixtures/manifest.json"
  rm -f "$WORK"/_*.jsonl
}

# Versions of one small project, each linted by ESLint in the same directory (so the reports'
# absolute paths agree): make_eslint_versions <project> <fixture directory> <version>...
# test/fixtures/tools/<project>/<version>/ overlays the project's package.json and
# eslint.config.mjs; each version's SARIF, ESLint's own output and a summary listing every finding
# (path, rule, line, message) go to test/fixtures/<fixture directory>/.
make_eslint_versions() {
  local project=$1 out="$ROOT/test/fixtures/$2" version
  shift 2
  rm -rf "$out"
  mkdir -p "$out"
  for version in "$@"; do
    log "ESLint over $project/$version"
    rm -rf "${WORK:?}/$project"
    mkdir -p "$WORK/$project"
    cp "$SOURCES/$project/package.json" "$SOURCES/$project/eslint.config.mjs" "$WORK/$project/"
    cp -r "$SOURCES/$project/$version/." "$WORK/$project/"
    cd "$WORK/$project"
    NODE_PATH="$NPM_DIR/node_modules" expect_status "1" "$BIN/eslint" --format @microsoft/eslint-formatter-sarif src >"$out/$version.sarif"
    expect_status "1" "$BIN/eslint" src >"$out/$version.tool-output.txt"
    expect_status "1" "$BIN/eslint" --format json src >"$WORK/_eslint-versions.json"
    write_summary "$out/$version.summary.json" eslint "$("$BIN/eslint" --version)" \
      "eslint --format @microsoft/eslint-formatter-sarif src" "$PWD" "$(
        jq --arg root "$PWD/" '{findings: [.[] | (.filePath | ltrimstr($root)) as $path
          | .messages[] | {path: $path, rule: .ruleId, line: .line, message: .message}]}' "$WORK/_eslint-versions.json"
      )"
  done
  rm -rf "${WORK:?}/$project"
}

# A renamed file (test/renamed-files.test.ts): js-renames/ as the default branch had it (base),
# after `git mv src/outside.js src/ranges/outside.js` (moved), and renamed again with one edit
# (moved-edited). The test commits the versions to a git repository of its own and uploads these
# reports with `assay upload`.
make_renames() {
  make_eslint_versions js-renames renames base moved moved-edited
}

# Counts in messages (test/message-numbers.test.ts): js-message-numbers/ before and after an edit
# that adds lines and a branch, so ESLint's max-lines and complexity findings say other numbers,
# and adds a function with too many parameters (a new finding).
make_message_numbers() {
  make_eslint_versions js-message-numbers message-numbers base edited
}

# Findings silenced in the source (test/suppressed-findings.test.ts): ESLint with the SARIF
# formatter over js-suppressed/, whose two `eslint-disable-next-line` comments each silence one
# problem. ESLint leaves those out of its problems and the SARIF formatter writes them as results
# with an inSource suppression; its JSON formatter (eslint.json, kept as a report of its own)
# writes them under each file's `suppressedMessages`. The summary: the stylish formatter's totals
# (the unsuppressed problems) and, from the JSON formatter, every problem and every suppressed one
# with its rule and line.
make_suppressions() {
  local out="$ROOT/test/fixtures/suppressions"
  rm -rf "$out"
  mkdir -p "$out"
  log "ESLint over js-suppressed"
  enter_project js-suppressed
  NODE_PATH="$NPM_DIR/node_modules" expect_status "1" "$BIN/eslint" --format @microsoft/eslint-formatter-sarif src >"$out/eslint.sarif"
  expect_status "1" "$BIN/eslint" src >"$out/eslint.tool-output.txt"
  expect_status "1" "$BIN/eslint" --format json src >"$out/eslint.json"
  write_summary "$out/eslint.summary.json" eslint "$("$BIN/eslint" --version)" \
    "eslint --format @microsoft/eslint-formatter-sarif src" "$PWD" "$(
      jq -n --rawfile stylish "$out/eslint.tool-output.txt" --slurpfile results "$out/eslint.json" --arg root "$PWD/" '
        ($stylish | capture("(?<p>[0-9]+) problems? \\((?<e>[0-9]+) errors?, (?<w>[0-9]+) warnings?\\)")) as $t
        | {problems: ($t.p | tonumber), errors: ($t.e | tonumber), warnings: ($t.w | tonumber),
           findings: [$results[0][] | (.filePath | ltrimstr($root)) as $path
             | .messages[] | {path: $path, rule: .ruleId, line: .line}],
           suppressed: [$results[0][] | (.filePath | ltrimstr($root)) as $path
             | .suppressedMessages[] | {path: $path, rule: .ruleId, line: .line}]}'
    )"
}

# Shards of one ESLint check (test/ingest-unanalyzed.test.ts): js-shards/ at two commits, linted
# in the same directory so that the reports' absolute paths agree. base/: src/badge.jsx has
# findings (base.sarif, the app's configuration over src). fixed/: they are fixed, and one commit
# is linted three ways: the app's configuration (eslint.config.js, JSX) over src (app.sarif: it
# lists badge.jsx, in which it finds nothing); the server build's (eslint.server.config.js, the
# same rules without JSX) over src (server.sarif: badge.jsx does not parse); and the server's
# over the files named one by one, JSX ignored, as a job linting changed files runs it
# (server-changed.sarif: it lists badge.jsx, ignored, with a warning). The summary of each: from
# ESLint's JSON formatter (kept beside each SARIF log as a report of its own, <name>.json), every
# file it reports with its findings (messages of a rule) and its other messages (a parsing error
# is `fatal`).
make_shards() {
  local out="$ROOT/test/fixtures/shards" version
  rm -rf "$out"
  mkdir -p "$out"
  shard() { # name eslint-arguments...
    local name=$1
    shift
    log "ESLint over js-shards/$version ($name)"
    NODE_PATH="$NPM_DIR/node_modules" expect_status "1" "$BIN/eslint" --format @microsoft/eslint-formatter-sarif "$@" >"$out/$name.sarif"
    expect_status "1" "$BIN/eslint" --format json "$@" >"$out/$name.json"
    write_summary "$out/$name.summary.json" eslint "$("$BIN/eslint" --version)" \
      "eslint --format @microsoft/eslint-formatter-sarif $*" "$PWD" "$(
        jq --arg root "$PWD/" '{files: [.[] | {path: (.filePath | ltrimstr($root)),
          findings: [.messages[] | select(.ruleId != null)] | length,
          others: [.messages[] | select(.ruleId == null) | {message, fatal: (.fatal == true), severity}]}]}' \
          "$out/$name.json"
      )"
  }
  for version in base fixed; do
    rm -rf "${WORK:?}/js-shards"
    mkdir -p "$WORK/js-shards"
    cp "$SOURCES/js-shards/package.json" "$SOURCES/js-shards/eslint.config.js" "$SOURCES/js-shards/eslint.server.config.js" "$WORK/js-shards/"
    cp -r "$SOURCES/js-shards/$version/." "$WORK/js-shards/"
    cd "$WORK/js-shards"
    if [ "$version" = base ]; then
      shard base src
    else
      shard app src
      shard server --config eslint.server.config.js src
      shard server-changed --config eslint.server.config.js --ignore-pattern "src/**/*.jsx" src/cart.js src/badge.jsx
    fi
  done
  rm -rf "${WORK:?}/js-shards"
}

# oxlint over the two versions of test/fixtures/tools/oxlint-parse (test/fixtures/oxlint-parse/):
# `base.sarif`, where src/cart.js and src/badge.js have findings, and `broken.sarif`, where cart.js
# is fixed and badge.js is half-way through an edit and does not parse: oxlint writes that as a
# result of its rule OXL0001 (not a notification) and lints nothing else of the file. The summary
# of each, from oxlint's own text output: its totals, each finding (rule, file, line) and each
# diagnostic of no rule (its message, file and line).
make_oxlint_parse() {
  local out="$ROOT/test/fixtures/oxlint-parse" version
  rm -rf "$out"
  mkdir -p "$out"
  for version in base broken; do
    log "oxlint over oxlint-parse/$version"
    rm -rf "${WORK:?}/oxlint-parse"
    mkdir -p "$WORK/oxlint-parse"
    cp "$SOURCES/oxlint-parse/package.json" "$WORK/oxlint-parse/"
    cp -r "$SOURCES/oxlint-parse/$version/." "$WORK/oxlint-parse/"
    cd "$WORK/oxlint-parse"
    # One thread: the findings come out in the same order every time.
    expect_status "0 1" "$BIN/oxlint" --threads=1 --format sarif src >"$out/$version.sarif"
    expect_status "0 1" "$BIN/oxlint" --threads=1 src >"$WORK/_oxlint.txt"
    write_summary "$out/$version.summary.json" oxlint "$("$BIN/oxlint" --version | sed 's/^Version: //')" \
      "oxlint --threads=1 --format sarif src" "$PWD" "$(
        jq -Rn '[inputs] as $lines
          | ($lines | map(capture("^Found (?<w>[0-9]+) warnings? and (?<e>[0-9]+) errors?\\.")) | first) as $t
          | [range(0; $lines | length) as $i | $lines[$i]
              | capture("^  (?<mark>[x!]) (?<text>.*)$")
              | . + ($lines[$i + 1] | capture(",-\\[(?<path>[^:]+):(?<line>[0-9]+):") | .line |= tonumber)
              | . + ((.text | capture("^(?<rule>[a-z0-9_-]+\\([^)]+\\)): ")) // {rule: null})] as $all
          | {errors: ($t.e | tonumber), warnings: ($t.w | tonumber),
             findings: [$all[] | select(.rule != null) | {rule, path, line}],
             ownErrors: [$all[] | select(.rule == null) | {message: .text, path, line}]}' "$WORK/_oxlint.txt"
      )"
  done
  rm -rf "${WORK:?}/oxlint-parse"
}

# A plugin rule no family row names (test/eslint-json.test.ts): ESLint over js-local-plugin/,
# whose configuration loads the project's own plugin (lint/plugin.js: a rule of `meta.type`
# layout and one of problem) beside a core rule, with `--format json-with-metadata`
# (eslint-metadata.json), whose rules' `meta` comes after every result. The summary: the stylish
# formatter's totals and, from the report, the problems per rule with the rule's `meta.type`.
make_local_plugin() {
  local out="$ROOT/test/fixtures/local-plugin"
  rm -rf "$out"
  mkdir -p "$out"
  log "ESLint over js-local-plugin"
  enter_project js-local-plugin
  expect_status "1" "$BIN/eslint" src >"$out/eslint.tool-output.txt"
  expect_status "1" "$BIN/eslint" --format json-with-metadata src >"$out/eslint-metadata.json"
  write_summary "$out/eslint.summary.json" eslint "$("$BIN/eslint" --version)" \
    "eslint --format json-with-metadata src" "$PWD" "$(
      jq -n --rawfile stylish "$out/eslint.tool-output.txt" --slurpfile report "$out/eslint-metadata.json" '
        ($stylish | capture("(?<p>[0-9]+) problems? \\((?<e>[0-9]+) errors?, (?<w>[0-9]+) warnings?\\)")) as $t
        | $report[0] as $r
        | {problems: ($t.p | tonumber), errors: ($t.e | tonumber), warnings: ($t.w | tonumber),
           byRule: ([$r.results[].messages[]] | group_by(.ruleId) | map({key: .[0].ruleId, value: {
             type: $r.metadata.rulesMeta[.[0].ruleId].type,
             errors: map(select(.severity == 2)) | length, warnings: map(select(.severity == 1)) | length}})
             | from_entries)}'
    )"
}

case "$WHAT" in
all | sarif | coverage | sbom | pull-request | staticcheck-module | gcc | gcc-history | eslint | file-names | coverage-other | checkstyle | style-lint | python-lint | renames | message-numbers | suppressions | shards | oxlint-parse | local-plugin) ;;
*) die "unknown part '$WHAT' (all, sarif, coverage, sbom, pull-request, staticcheck-module, gcc, gcc-history, eslint, file-names, coverage-other, checkstyle, style-lint, python-lint, renames, message-numbers, suppressions, shards, oxlint-parse or local-plugin)" ;;
esac
install_debian_packages
[ "$WHAT" = staticcheck-module ] || [ "$WHAT" = gcc ] || [ "$WHAT" = gcc-history ] || [ "$WHAT" = style-lint ] || [ "$WHAT" = python-lint ] || install_npm_tools
if [ "$WHAT" = staticcheck-module ]; then make_staticcheck_module; fi
if [ "$WHAT" = file-names ]; then make_file_names; fi
if [ "$WHAT" = coverage-other ]; then make_coverage_other; fi
if [ "$WHAT" = style-lint ]; then make_style_lint; fi
if [ "$WHAT" = python-lint ]; then make_python_lint; fi
if [ "$WHAT" = gcc ]; then make_one_sarif_fixture gcc record_gcc; fi
if [ "$WHAT" = gcc-history ]; then record_gcc_history "$ROOT/src/formats/sarif/fixtures/gcc-history"; fi
if [ "$WHAT" = eslint ]; then make_one_sarif_fixture eslint record_eslint; fi
if [ "$WHAT" = all ] || [ "$WHAT" = sarif ]; then make_sarif && make_style_lint; fi
if [ "$WHAT" = all ] || [ "$WHAT" = coverage ]; then make_coverage; fi
if [ "$WHAT" = all ] || [ "$WHAT" = sbom ]; then make_sbom; fi
if [ "$WHAT" = all ] || [ "$WHAT" = pull-request ]; then make_pull_request; fi
if [ "$WHAT" = all ] || [ "$WHAT" = checkstyle ]; then make_checkstyle; fi
if [ "$WHAT" = all ] || [ "$WHAT" = renames ]; then make_renames; fi
if [ "$WHAT" = all ] || [ "$WHAT" = message-numbers ]; then make_message_numbers; fi
if [ "$WHAT" = all ] || [ "$WHAT" = suppressions ]; then make_suppressions; fi
if [ "$WHAT" = all ] || [ "$WHAT" = shards ]; then make_shards; fi
if [ "$WHAT" = all ] || [ "$WHAT" = oxlint-parse ]; then make_oxlint_parse; fi
if [ "$WHAT" = all ] || [ "$WHAT" = local-plugin ]; then make_local_plugin; fi
rm -rf "$WORK/_manifest" "$WORK"/_*.json "$WORK"/_*.lcov "$WORK"/_*.txt
log "done: fixtures written under src/formats/*/fixtures"
