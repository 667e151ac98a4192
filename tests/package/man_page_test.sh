#!/usr/bin/env bash
# `man sprof` lists every option that `sprof --help` and each subcommand's --help list, and the
# generated bash and zsh completions know them too: all three come from the same definitions
# (cli/definitions), and this checks that they did not drift.
#
# Usage: man_page_test.sh CLI_BUILD_DIR   (holding sprof, sprof.1, sprof.bash, _sprof)
set -euo pipefail
dir=$1
sprof=$dir/sprof
fail=0

# The option names of one --help text: "  -o,--output FILE  ..." -> -o --output
help_options() {
  "$sprof" "$@" --help | sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n' | sed 's/\[=.*//' | grep .
}

# What a user reads: man's plain-text rendering of the page.
man_text=$(MANWIDTH=200 man -l "$dir/sprof.1" 2>/dev/null | col -b)
[ -n "$man_text" ] || { echo "FAIL: man -l $dir/sprof.1 printed nothing"; exit 1; }

subcommands=$("$sprof" --help | sed -n '/^Subcommands:/,$ s/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$subcommands" ] || { echo "FAIL: no subcommands in sprof --help"; exit 1; }
checked=0
for sub in "" $subcommands; do
  # The man page has one section per subcommand: "sprof record [OPTIONS] ..."
  if [ -n "$sub" ]; then
    section=$(printf '%s\n' "$man_text" | awk -v s="   sprof $sub " 'index($0, s) == 1 {on=1; next} /^   sprof [a-z]/ {on=0} on')
    [ -n "$section" ] || { echo "FAIL: man page has no section for 'sprof $sub'"; fail=1; continue; }
  else
    section=$(printf '%s\n' "$man_text" | awk '/^OPTIONS/ {on=1; next} /^   sprof [a-z]/ {on=0} on')
  fi
  for option in $(help_options $sub); do
    checked=$((checked + 1))
    # As an option name: followed by ',', ' ', '[' or the end of the line.
    # (A here-string: `printf | grep -q` fails under pipefail when grep stops reading early.)
    if ! grep -qE -- "(^|[ ,])${option}([,[ ]|$)" <<<"$section"; then
      echo "FAIL: 'sprof $sub --help' lists $option, 'man sprof' does not (in its section)"
      fail=1
    fi
    if [ -n "$sub" ] && ! grep -qF -- "$option" "$dir/sprof.bash"; then
      echo "FAIL: the bash completion does not know $option of 'sprof $sub'"
      fail=1
    fi
    if [ -n "$sub" ] && ! grep -qF -- "$option" "$dir/_sprof"; then
      echo "FAIL: the zsh completion does not know $option of 'sprof $sub'"
      fail=1
    fi
  done
done
[ "$checked" -gt 40 ] || { echo "FAIL: only $checked options found in --help"; exit 1; }

# The completion scripts parse, and bash completes options, values and the recorded command.
bash -n "$dir/sprof.bash" || { echo "FAIL: sprof.bash does not parse"; fail=1; }
if command -v zsh >/dev/null; then
  zsh -n "$dir/_sprof" || { echo "FAIL: _sprof does not parse"; fail=1; }
fi
if [ -f /usr/share/bash-completion/bash_completion ]; then
  complete_words() {
    bash -c '
      source /usr/share/bash-completion/bash_completion
      source "$1"; shift
      COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
      COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
      _sprof
      printf "%s\n" "${COMPREPLY[@]}"' _ "$dir/sprof.bash" "$@"
  }
  [ "$(complete_words sprof rec)" = record ] || { echo "FAIL: bash: 'sprof rec'"; fail=1; }
  grep -qx -- --output <<<"$(complete_words sprof record --out)" || { echo "FAIL: bash: --out"; fail=1; }
  grep -qx task-clock <<<"$(complete_words sprof record -e task)" || { echo "FAIL: bash: -e task"; fail=1; }
  # After the command starts, its words complete as that command's: its name among commands.
  grep -qx printenv <<<"$(complete_words sprof record -o x.json printen)" ||
    { echo "FAIL: bash: the command name"; fail=1; }
fi

[ "$fail" -eq 0 ] && echo "PASS: $checked options of --help are in man sprof and the completions"
exit "$fail"
